"""Evaluation data every user has: the demo's held-out units and a student's own dev split.

As with Tatoeba, each set's ``src`` is the non-English side (tables: xx→en, en→xx).

Both give translation-retrieval accuracy (English ↔ each language) without a benchmark
folder, so evaluation works out of the box (the Evaluate screen's default sources).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.evaluation.readers import ParallelSet


def demo_heldout_sets(source: Path | None = None) -> list[ParallelSet]:
    """English ↔ each demo language on the held-out demo units (never trained on)."""
    from xlsearch.service import demo

    folder = source or demo.assets_dir() / "source"
    if not folder.is_dir():
        raise ConfigError(f"the demo data is missing: {folder}", hint="reinstall xlsearch")
    held = [u for u in demo.load_units(folder) if demo.is_heldout(u["id"])]
    return [
        ParallelSet(lang, [u[lang] for u in held], [u["en"] for u in held], lang, "en")
        for lang in demo.DEMO_LANGS[1:]
    ]


def dev_split_sets(spec: str) -> list[ParallelSet]:
    """The dev pairs a student was evaluated on while training, rebuilt from its card (same
    files, dev file or seeded split; pairs training dropped as too long for the teacher are
    not dropped here, which can shift a seeded split). ``ConfigError`` for models without one."""
    from xlsearch.engine.distill.data import TrainFile, load_parallel
    from xlsearch.engine.models.cards import read_card, resolve_model_path

    card: dict[str, Any] = read_card(resolve_model_path(spec))
    files = [d for d in card.get("data", []) if isinstance(d, dict) and d.get("path")]
    config = card.get("config", {}) if isinstance(card.get("config"), dict) else {}
    if not files:
        raise ConfigError(
            f"{spec} has no training data recorded, so no dev split",
            hint="only students distilled by xlsearch have one; choose the demo held-out set",
        )
    missing = [d["path"] for d in files if not Path(d["path"]).is_file()]
    dev_file = config.get("dev")
    if missing or (dev_file and not Path(dev_file).is_file()):
        raise ConfigError(
            f"the training data of {spec} is gone: {(missing or [dev_file])[0]}",
            hint="the dev split is rebuilt from the training files; restore them",
        )
    data = load_parallel(
        [TrainFile(Path(d["path"]), int(d.get("weight", 1))) for d in files],
        dev_per_lang=int(config.get("dev_per_lang", 1000)),
        dev_file=dev_file,
        langs=config.get("langs") or None,
        seed=int(config.get("seed", 0)),
    )
    sets = [ParallelSet(g.lang, list(g.tgt), list(g.src), g.lang, "en") for g in data.dev if g.src]
    if not sets:
        raise ConfigError(f"{spec}: its training data is too small for a dev split")
    names = [s.name for s in sets]
    for s, i in zip(sets, range(len(sets)), strict=True):
        if names.count(s.name) > 1:
            s.name = f"{s.name}#{i + 1}"
    return sets
