"""Semantic-fill calibration of a model (``xlsearch eval MODEL --calibrate``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xlsearch.engine.progress import ProgressCallback
from xlsearch.service.types import JSONDict


@dataclass(frozen=True)
class PairFit:
    """One language pair's fit: the cosine from which the model writes, or why it does not."""

    threshold: float | None
    why: str = ""
    held_out: int = 0
    """Held-out pairs the precision and recall were measured on."""
    precision: float = 0.0
    recall: float = 0.0


@dataclass
class FillCalibration:
    """A model's fitted calibration: per language pair, the cosine from which it writes."""

    model: str
    data: str
    """What it was fitted on: ``dev split`` or the pair files' names."""
    calibration: JSONDict
    """As stored with the model."""
    stored: Path | None = None
    pairs: dict[str, PairFit] = field(default_factory=dict)
    """By language pair (``en-de``)."""


def calibrate_fills(
    spec: str | None = None,
    pair_files: Sequence[str] = (),
    *,
    device: str = "auto",
    batch_size: int = 32,
    save: bool = True,
    on_progress: ProgressCallback | None = None,
) -> FillCalibration:
    """Fit ``spec``'s (default: the active model's) semantic-fill calibration on its dev split
    or on ``pair_files`` (pairs it was not trained on; the bundled teacher needs them), and
    store it unless ``save`` is off."""
    from xlsearch.engine.calibration import fill as fill_policy
    from xlsearch.engine.distill.fill_data import dev_groups, groups_from_files
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.models.cards import BUNDLED_TEACHER
    from xlsearch.engine.models.catalog import active_model
    from xlsearch.engine.models.encoder import load_encoder

    enc = load_encoder(spec or active_model(), device=device, batch_size=batch_size)
    if pair_files:
        groups = groups_from_files(list(pair_files))
        data = ", ".join(str(p).rsplit("/", 1)[-1] for p in pair_files)
    elif enc.id == BUNDLED_TEACHER:
        raise ConfigError(
            "the bundled teacher has no dev split to calibrate on",
            hint="name translation pairs it was not trained on: --calibrate-pairs en-de.tsv "
            f"(at least {fill_policy.MIN_PAIRS} pairs per language pair)",
        )
    else:
        groups = dev_groups(enc.path) if enc.path is not None else {}
        data = "dev split"
    if not groups:
        raise ConfigError("no translation pairs to calibrate on", hint="check --calibrate-pairs")
    cal = fill_policy.fit(groups, lambda t: enc.encode(t, on_progress=on_progress), data=data)
    stored = fill_policy.store(enc.id, enc.path, cal) if save else None
    pairs = {
        key: PairFit(
            pair.get("threshold"),
            pair.get("why", ""),
            pair.get("held_out", 0),
            pair.get("precision", 0.0),
            pair.get("recall", 0.0),
        )
        for key, pair in cal["pairs"].items()
    }
    return FillCalibration(enc.id, data, cal, Path(stored) if stored else None, pairs)
