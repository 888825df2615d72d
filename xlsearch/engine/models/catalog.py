"""The models xlsearch knows: the bundled teacher, distilled students and user folders."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import ModelError
from xlsearch.engine.models.cards import (
    BUNDLED_TEACHER,
    bundled_teacher_path,
    canonical_spec,
    default_model,
    read_card,
    resolve_model_path,
    search_path,
    shipped_model_path,
)
from xlsearch.engine.runtime.settings import Settings

DEMO_COLLECTION = "demo"
"""The collection the demo imports (its student is a toy anywhere else)."""


@dataclass
class ModelInfo:
    """One model folder and what its card says."""

    spec: str
    """What to pass to ``load_encoder`` (``bundled:teacher`` or a folder path)."""
    path: Path
    card: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return "teacher (all-MiniLM-L6-v2)" if self.spec == BUNDLED_TEACHER else self.path.name

    @property
    def shipped(self) -> bool:
        """True for the multilingual student shipped with xlsearch."""
        return self.path == shipped_model_path()

    @property
    def is_student(self) -> bool:
        """True for models xlsearch distilled (their card names a teacher)."""
        return bool(self.card.get("teacher"))

    @property
    def created(self) -> str:
        return str(self.card.get("created", ""))

    @property
    def finished(self) -> bool:
        """False for a distillation that was cancelled, crashed or is still running (its card
        says ``"finished": false``); such a folder is a resumable run, not a model to use."""
        return self.card.get("finished", True) is not False

    @property
    def run_dir(self) -> Path:
        """The run folder (checkpoints, metrics log) beside the model folder."""
        return self.path.with_name(self.path.name + ".run")


def list_models(*, unfinished: bool = False) -> list[ModelInfo]:
    """The bundled teacher, then every finished model folder under ``./models`` and the user
    models dir; ``unfinished=True`` lists only the resumable runs instead (no teacher)."""
    found = []
    if not unfinished:
        found.append(
            ModelInfo(
                BUNDLED_TEACHER,
                bundled_teacher_path(),
                {"kind": "transformer", "dim": 384, "languages": ["en"]},
            )
        )
    seen: set[Path] = set()
    for folder in search_path():
        if not folder.is_dir():
            continue
        for sub in sorted(folder.iterdir()):
            if sub.name.startswith(".") or sub.name.endswith((".saving", ".old", ".ckpt")):
                continue
            if not ((sub / "modules.json").is_file() or (sub / "config.json").is_file()):
                continue
            real = sub.resolve()
            if real in seen:
                continue
            seen.add(real)
            try:
                card = read_card(sub)
            except ModelError:
                card = {}
            info = ModelInfo(str(real), real, card)
            if info.finished != unfinished:
                found.append(info)
    return found


def _card(path: Path) -> dict[str, Any]:
    try:
        return read_card(path)
    except ModelError:
        return {}


def active_model(settings: Settings | None = None) -> str:
    """The model used for indexing and search: the one chosen with ``models --use`` (or the
    Models screen, or ``XLSEARCH_ACTIVE_MODEL``), else the shipped multilingual student
    (the bundled teacher where there is none).

    Nothing else changes it: distilling a student does not make it active.
    """
    settings = settings or Settings.load()
    return settings.active_model or default_model()


def set_active_model(spec: str) -> str:
    """Make ``spec`` the active model (checked to exist and finished) and save the setting."""
    spec = canonical_spec(spec)
    resolved = BUNDLED_TEACHER if spec == BUNDLED_TEACHER else str(resolve_model_path(spec))
    if resolved != BUNDLED_TEACHER:
        info = ModelInfo(resolved, Path(resolved), _card(Path(resolved)))
        if not info.finished:
            raise ModelError(
                f"{resolved} is an unfinished distillation run, not a finished model",
                hint=f"finish it: xlsearch distill --resume --out {resolved}",
            )
    settings = Settings.load()
    settings.active_model = resolved
    settings.save()
    return resolved
