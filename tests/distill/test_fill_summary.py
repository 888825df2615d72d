"""Distillation's last line on semantic fills names the real reason a pair was not
calibrated: 758 held-out pairs are enough pairs, the precision bound is what failed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from xlsearch.engine.distill.train import _calibrate_fills


def test_a_pair_with_enough_pairs_that_misses_the_precision_bound_says_so(
    tiny_st_model: Path,
) -> None:
    # 758 held-out English–French UI strings for a random tiny model: enough pairs, but its
    # cosines cannot tell a translation from another string at 95 % precision
    src = [f"Open file number {i} in a new window" for i in range(758)]
    tgt = [f"Ouvrir le fichier numéro {i} dans une nouvelle fenêtre" for i in range(758)]
    dev = [SimpleNamespace(src=src, tgt=tgt, lang="fr", mono=False)]
    lines: list[str] = []
    _calibrate_fills(tiny_st_model, dev, "cpu", lambda p: lines.append(p.message))
    last = lines[-1]
    assert "needed" not in last, last
    assert "en-fr: no cosine reaches 95% precision with 95% confidence" in last, last
