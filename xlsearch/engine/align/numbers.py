"""Numbers as alignment evidence: translations keep their figures (heights, dates, prices).

Each sentence's numbers are read the way translations rewrite them — digit groups joined
(``8 848``, ``8.848``, ``8,848`` and ``8848`` are one number), a decimal part without
trailing zeros (``8847,60`` = ``8847.6``), any script's digits, no leading zeros — and
marked in a 256-bit mask (four ``uint64`` words); a run of sentences has the OR of its
sentences' masks. The agreement of a source run and a target run is ``2 J - 1`` for the
Jaccard overlap ``J = popcount(x & y) / popcount(x | y)`` of their masks (vectorised over a
block of beads): 1 for the same numbers, -1 for disjoint ones or numbers on one side only,
0 where neither side has a number. Numbers get their bits in order of first appearance in
the two documents, so up to 256 distinct numbers never share one; beyond that, only numbers
first seen 256 distinct numbers apart do (a false match softens a mismatch, nothing more).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np

WORDS = 4
"""64-bit words per mask (256 buckets)."""
_NUMBER = re.compile(
    r"(?<!\d)(\d{1,3}(?:[ \u00a0\u202f.,'\u2019]\d{3})+(?!\d)|\d+)(?:[.,](\d+)(?!\d))?"
)
"""A number: digit groups of three after a first group of one to three digits (thousands
separators: space, no-break spaces, dot, comma, apostrophe), or a plain run of digits; then
an optional decimal part."""
_GROUP_SEPARATORS = re.compile(r"[^\d]")
_BYTE_BITS = np.array([bin(k).count("1") for k in range(256)], dtype=np.uint8)


def _canonical(whole: str, decimals: str) -> str:
    """One number as ASCII digits: groups joined, no leading zeros, the decimal part (if
    any) without trailing zeros (``٠٧`` -> ``7``, ``8 848`` -> ``8848``, ``3,50`` -> ``3.5``)."""
    text = _GROUP_SEPARATORS.sub("", whole)
    if not (text + decimals).isascii():
        text = "".join(str(unicodedata.digit(c, 0)) for c in text)
        decimals = "".join(str(unicodedata.digit(c, 0)) for c in decimals)
    text, decimals = text.lstrip("0") or "0", decimals.rstrip("0")
    return f"{text}.{decimals}" if decimals else text


def numbers_in(text: str) -> set[str]:
    """The numbers of one text, each as ``_canonical`` writes it (``8 848`` -> ``8848``)."""
    return {_canonical(whole, decimals) for whole, decimals in _NUMBER.findall(text)}


def number_masks(*documents: Sequence[str]) -> list[np.ndarray]:
    """``(len(document), WORDS)`` ``uint64`` masks of each sentence's numbers, one array per
    document, with one numbering of the numbers for all of them."""
    bits: dict[str, int] = {}
    out = []
    for sentences in documents:
        masks = np.zeros((len(sentences), WORDS), dtype=np.uint64)
        for row, text in enumerate(sentences):
            for whole, decimals in _NUMBER.findall(text):
                bit = bits.setdefault(_canonical(whole, decimals), len(bits)) % (64 * WORDS)
                masks[row, bit // 64] |= np.uint64(1) << np.uint64(bit % 64)
        out.append(masks)
    return out


def run_masks(masks: np.ndarray, max_side: int) -> dict[int, np.ndarray]:
    """Masks of every run of ``a`` consecutive sentences, a = 1…max_side (``[a][i]``:
    sentences ``i..i+a-1``)."""
    out = {1: masks}
    for a in range(2, max_side + 1):
        if len(masks) < a:
            break
        out[a] = out[a - 1][:-1] | masks[a - 1 :]
    return out


def popcount(x: np.ndarray) -> np.ndarray:
    """Set bits per element, summed over the last axis (the mask's words)."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(x).sum(axis=-1, dtype=np.int32)
    as_bytes = np.ascontiguousarray(x).view(np.uint8)
    return _BYTE_BITS[as_bytes].sum(axis=-1, dtype=np.int32)


def agreement(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``(len(x), len(y))`` agreement scores in ``[-1, 1]``: ``2 · Jaccard − 1`` of each
    source mask with each target mask (1: the same numbers, −1: disjoint ones or numbers on
    one side only), 0 where neither has a number. Only pairs with numbers on both sides are
    compared bit by bit (most sentences have none)."""
    has_x, has_y = np.asarray(x.any(axis=1)), np.asarray(y.any(axis=1))
    out = -(has_x[:, None] | has_y[None, :]).astype(np.float64)
    rows, cols = np.flatnonzero(has_x), np.flatnonzero(has_y)
    if len(rows) and len(cols):
        xs, ys = x[rows][:, None, :], y[cols][None, :, :]
        inter, union = popcount(xs & ys), popcount(xs | ys)
        out[np.ix_(rows, cols)] = 2.0 * inter / np.maximum(union, 1) - 1.0
    return out
