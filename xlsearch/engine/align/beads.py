"""Beads: Vecalign's text format, and strict/lax precision, recall and F1 as Vecalign scores.

A bead line is ``[0]:[0, 1]:0.31`` — 0-based source indexes, target indexes, and (optional)
the cost. Scoring follows Vecalign's ``score.py``: strict = exact bead match; lax = the
predicted bead overlaps a gold bead on both sides; precision counts every predicted bead
(insertions/deletions too), recall every gold bead with both sides non-empty.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from xlsearch.engine.errors import DataError


@dataclass
class Bead:
    """Source sentences ``src`` aligned with target sentences ``tgt`` (either may be empty)."""

    src: tuple[int, ...]
    tgt: tuple[int, ...]
    cost: float = 0.0
    """The DP cost (about 0 for a sure 1–1, about 1 for a random pair)."""
    score: float = 0.0
    """Cosine similarity of the two runs' embeddings (0 for insertions/deletions)."""
    flagged: bool = False
    """Low confidence: worth a look before the bead goes into a memory."""

    def line(self, with_cost: bool = True) -> str:
        """Vecalign's format: ``[0]:[0, 1]:0.31``."""
        text = f"{list(self.src)}:{list(self.tgt)}"
        return f"{text}:{self.cost:.3f}" if with_cost else text


def parse_bead(line: str, where: str = "") -> Bead:
    """One Vecalign bead line (the cost is optional)."""
    try:
        src, tgt, *rest = line.strip().split(":")
        ids_src = tuple(int(x) for x in json.loads(src))
        ids_tgt = tuple(int(x) for x in json.loads(tgt))
        cost = float(rest[0]) if rest and rest[0].strip() else 0.0
    except (ValueError, TypeError) as exc:
        raise DataError(f"{where}: not a bead line like [0]:[0, 1]:0.31: {line.strip()!r}") from exc
    return Bead(ids_src, ids_tgt, cost)


def read_beads(path: Path | str) -> list[Bead]:
    """Every bead of a Vecalign-format file (blank lines skipped)."""
    path = Path(path)
    from xlsearch.engine.runtime.pathcheck import require_file

    require_file(path, "name the beads file")
    out = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                out.append(parse_bead(line, f"{path}:{number}"))
    return out


def write_beads(path: Path | str, beads: Iterable[Bead]) -> int:
    """Write beads one a line; returns how many."""
    lines = [b.line() for b in beads]
    from xlsearch.engine.runtime.atomic import write_output

    write_output(path, "".join(line + "\n" for line in lines))
    return len(lines)


def _counts(gold: Sequence[Bead], test: Sequence[Bead]) -> tuple[int, int, int, int]:
    """(strict tp, strict fp, lax tp, lax fp) of ``test`` against ``gold`` (Vecalign)."""
    gold_set = {(b.src, b.tgt) for b in gold if b.src or b.tgt}
    test_set = {(b.src, b.tgt) for b in test if b.src or b.tgt}
    src_to_tgt: dict[int, set[int]] = defaultdict(set)
    for gs, gt in gold_set:
        for s in gs:
            src_to_tgt[s].update(gt)
    tps = fps = tpl = fpl = 0
    for ts, tt in test_set:
        if (ts, tt) in gold_set:
            tps += 1
            tpl += 1
            continue
        fps += 1
        targets = set().union(*(src_to_tgt[s] for s in ts)) if ts else set()
        if targets & set(tt):
            tpl += 1
        else:
            fpl += 1
    return tps, fps, tpl, fpl


def score_beads(gold: Sequence[Bead], test: Sequence[Bead]) -> dict[str, float]:
    """Strict and lax precision/recall/F1 of predicted ``test`` beads against ``gold``."""
    p = _counts(gold, test)
    r = _counts(
        [b for b in test if b.src and b.tgt],
        [b for b in gold if b.src and b.tgt],
    )
    out: dict[str, float] = {}
    for kind, (tp_p, fp_p, tp_r, fp_r) in {
        "strict": (p[0], p[1], r[0], r[1]),
        "lax": (p[2], p[3], r[2], r[3]),
    }.items():
        prec = tp_p / (tp_p + fp_p) if tp_p + fp_p else 0.0
        rec = tp_r / (tp_r + fp_r) if tp_r + fp_r else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        out |= {f"{kind}_precision": prec, f"{kind}_recall": rec, f"{kind}_f1": f1}
    return out
