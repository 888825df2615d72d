"""Held-out translation pairs for a model's fill calibration (``calibration.fill``): from
translation TSVs the user names, or a distilled student's own dev split rebuilt."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xlsearch.engine.calibration.fill import groups_from_parallel, pair_key
from xlsearch.engine.errors import DataError


def groups_from_files(paths: Sequence[str | Path]) -> dict[str, Any]:
    """``{pair: (sources, targets)}`` from translation TSVs (column 1 the source language,
    further columns translations; languages as for distillation: from a name like
    ``en-de.tsv``, else guessed)."""
    from xlsearch.engine.distill.data import TrainFile, read_tsv

    out: dict[str, tuple[list[str], list[str]]] = {}
    for i, p in enumerate(paths):
        groups, _ = read_tsv(TrainFile.parse(p), i)
        for g in groups:
            key = pair_key("en", g.lang)
            s, t = out.setdefault(key, ([], []))
            s.extend(g.src)
            t.extend(g.tgt)
    return out


def dev_groups(model_path: str | Path) -> dict[str, Any]:
    """The held-out pairs of a distilled student, re-read from its training files with the
    split its run made (same files, seed and filters). DataError when they are gone."""
    from xlsearch.engine.distill.config import DistillConfig
    from xlsearch.engine.distill.setup import read_data
    from xlsearch.engine.models.cards import read_card
    from xlsearch.engine.models.encoder import load_encoder

    card = read_card(model_path)
    conf = card.get("config")
    files = [d for d in card.get("data", []) if not d.get("mono")]
    if not isinstance(conf, dict) or not files:
        raise DataError(
            f"{model_path}: the model card does not name its training data, so it has no "
            "held-out split to calibrate on",
            hint="name held-out translation pairs: --calibrate-pairs pairs.tsv",
        )
    cfg = DistillConfig.from_dict({**conf, "mono": []})
    cfg.train = [f"{d['path']}:{d.get('weight', 1)}" for d in files]
    missing = [d["path"] for d in files if not Path(d["path"]).is_file()]
    if cfg.dev and not Path(cfg.dev).is_file():
        missing.append(cfg.dev)
    if missing:
        raise DataError(
            f"{missing[0]}: training file of {Path(model_path).name} not found, so its "
            "held-out split cannot be rebuilt",
            hint="name held-out translation pairs: --calibrate-pairs pairs.tsv",
        )
    teacher = load_encoder(card.get("teacher") or "bundled:teacher")
    return groups_from_parallel(read_data(cfg, teacher).dev)


__all__ = ["dev_groups", "groups_from_files"]
