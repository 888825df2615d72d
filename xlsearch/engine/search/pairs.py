"""A mined pair: two stored segments that translate each other, by margin score."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MinedPair:
    """Two stored segments mined as translations of each other (``mining.mine_store``)."""

    src_id: int
    tgt_id: int
    src_text: str
    tgt_text: str
    src_lang: str
    """The source segment's own tag (``en`` mined ``en-GB`` and ``en-US`` alike)."""
    tgt_lang: str
    score: float
    """The margin score (ratio margin, Artetxe & Schwenk 2019)."""
    cosine: float = 0.0
