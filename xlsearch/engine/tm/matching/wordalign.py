"""Word alignment of a translation memory's units, and the phrase pairs it makes consistent.

Two aligners give word links for each (source words, target words) unit:

* ``eflomal`` — the Bayesian IBM-model aligner (PyPI ``eflomal``, an optional extra: it
  builds a C extension), run forward and backward over the whole memory; the two directions
  are joined with *grow-diag-final-and* (the statistical-MT standard);
* ``vectors`` — SimAlign-style: each word's vector from the model (its tokens through the
  static student), the cosine matrix of a unit's words, and the links where a source word
  and a target word are each other's best match (SimAlign's *ArgMax*).

Chinese and Japanese targets are aligned character by character (no spaces to split on),
then read as whole words (``whole_words``: Janome for Japanese, jieba for Chinese, each with
its own dictionary inside the package) before phrase pairs are made, so that a fragment's
target is never part of a word.

``phrase_pairs`` extracts the consistent phrase pairs (no link leaves the box) of up to
``max_words`` source words, without unaligned target words on their edges.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

Links = set[tuple[int, int]]
"""(source word, target word) index pairs of one unit."""

_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_KANA = re.compile(r"[\u3040-\u30ff]")
_SCRIPT_RUN = re.compile(r"[\u30a0-\u30ff]+|[\u3040-\u309f]+|[^\u3040-\u30ff]+")
"""Katakana (with the long-vowel mark), hiragana, other: the word edges a Japanese text
shows without a dictionary."""


def cjk(text: str) -> bool:
    """Whether the text is written without spaces between words (Chinese, Japanese)."""
    return bool(_CJK_CHAR.search(text))


def target_tokens(text: str) -> list[str]:
    """The target's words as they stand (case kept, mnemonics out); in Chinese and Japanese
    text every ideograph or kana is one token (no spaces to split on)."""
    text = text.replace("_", "").replace("&", "")
    out: list[str] = []
    for w in _WORD.findall(text):
        if _CJK_CHAR.search(w):
            run = ""
            for ch in w:
                if _CJK_CHAR.match(ch):
                    if run:
                        out.append(run)
                        run = ""
                    out.append(ch)
                else:
                    run += ch
            if run:
                out.append(run)
        else:
            out.append(w)
    return out


def join_target(tokens: Sequence[str]) -> str:
    """Target tokens back into text (no spaces between CJK characters)."""
    out = ""
    for tok in tokens:
        if out and not (_CJK_CHAR.match(tok[0]) or _CJK_CHAR.match(out[-1])):
            out += " "
        out += tok
    return out


def japanese(targets: Sequence[Sequence[str]]) -> bool:
    """Whether CJK target tokens are Japanese (kana in a tenth of the CJK units or more)."""
    han = kana = 0
    for tokens in targets:
        if any(_CJK_CHAR.match(t) for t in tokens):
            han += 1
            kana += any(_KANA.match(t) for t in tokens)
    return han > 0 and kana * 10 >= han


@cache
def _segmenter(ja: bool) -> Callable[[str], list[str]] | None:
    """Janome (Japanese) or jieba (Chinese) where installed: dictionaries in the packages."""
    try:
        if ja:
            from janome.tokenizer import Tokenizer

            tokenizer = Tokenizer(wakati=True)
            return lambda text: [str(w) for w in tokenizer.tokenize(text)]
        import logging

        import jieba

        jieba.setLogLevel(logging.WARNING)
        return lambda text: list(jieba.lcut(text))
    except ImportError:
        return None


def segment(text: str, ja: bool) -> list[str]:
    """A run of Chinese or Japanese text split into words (without the segmenter: runs of
    katakana, of hiragana, of anything else)."""
    seg = _segmenter(ja)
    pieces = seg(text) if seg is not None else []
    if "".join(pieces) != text:
        pieces = _SCRIPT_RUN.findall(text)
    return pieces


def whole_words(tokens: Sequence[str], ja: bool) -> list[int]:
    """For target tokens (``target_tokens``: a CJK character each), the index of the word
    each belongs to: consecutive CJK characters the segmenter reads as one word share it."""
    out: list[int] = []
    word = k = 0
    while k < len(tokens):
        end = k + 1
        if _CJK_CHAR.match(tokens[k]):
            while end < len(tokens) and _CJK_CHAR.match(tokens[end]):
                end += 1
            for piece in segment("".join(tokens[k:end]), ja):
                out += [word] * len(piece)
                word += 1
        else:
            out.append(word)
            word += 1
        k = end
    return out


def merge_words(
    tokens: Sequence[str], links: Links, groups: Sequence[int]
) -> tuple[list[str], Links]:
    """Character tokens and their links as words (``whole_words``'s groups) and theirs."""
    merged: list[str] = []
    for tok, g in zip(tokens, groups, strict=True):
        if g == len(merged):
            merged.append(tok)
        else:
            merged[g] += tok
    return merged, {(i, groups[j]) for i, j in links if j < len(groups)}


# -- eflomal ------------------------------------------------------------------------------------
def _read_links(path: Path) -> list[Links]:
    out: list[Links] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            links: Links = set()
            for part in line.split():
                i, _, j = part.partition("-")
                links.add((int(i), int(j)))
            out.append(links)
    return out


def eflomal_links(
    units: Sequence[tuple[Sequence[str], Sequence[str]]],
) -> list[tuple[Links, Links]]:
    """(forward, backward) links of each unit, from eflomal run over all of them."""
    from eflomal import Aligner

    if not units:
        return []
    with tempfile.TemporaryDirectory(prefix="xlsearch-align-") as tmp:
        fwd, rev = Path(tmp) / "fwd", Path(tmp) / "rev"
        Aligner().align(
            [" ".join(s) for s, _ in units],
            [" ".join(t) for _, t in units],
            links_filename_fwd=str(fwd),
            links_filename_rev=str(rev),
            quiet=True,
        )
        return list(zip(_read_links(fwd), _read_links(rev), strict=True))


def grow_diag_final_and(fwd: Links, rev: Links) -> Links:
    """Koehn's symmetrisation: the intersection, grown by neighbouring links of the union,
    then union links whose both words are still unaligned."""
    union = fwd | rev
    links = fwd & rev
    src = {i for i, _ in links}
    tgt = {j for _, j in links}
    grown = True
    while grown:
        grown = False
        for i, j in sorted(links):
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    p = (i + di, j + dj)
                    if (di or dj) and p in union and p not in links:
                        if p[0] not in src or p[1] not in tgt:
                            links.add(p)
                            src.add(p[0])
                            tgt.add(p[1])
                            grown = True
    for i, j in sorted(union):
        if i not in src and j not in tgt:
            links.add((i, j))
            src.add(i)
            tgt.add(j)
    return links


# -- SimAlign-style -----------------------------------------------------------------------------
def vector_links(
    units: Sequence[tuple[Sequence[str], Sequence[str]]],
    encode: Callable[[list[str]], Any],
) -> list[Links]:
    """Mutual best cosine between a unit's source and target word vectors (``encode``: words
    → unit-length vectors, one row each)."""
    import numpy as np

    vocab = sorted({w for s, t in units for w in (*s, *t)})
    pos = {w: k for k, w in enumerate(vocab)}
    vecs = np.asarray(encode(vocab), dtype=np.float32) if vocab else np.zeros((0, 1))
    out: list[Links] = []
    for s, t in units:
        if not s or not t:
            out.append(set())
            continue
        sim = vecs[[pos[w] for w in s]] @ vecs[[pos[w] for w in t]].T
        best_t = sim.argmax(axis=1)
        best_s = sim.argmax(axis=0)
        out.append({(i, int(j)) for i, j in enumerate(best_t) if int(best_s[j]) == i})
    return out


# -- phrase pairs -------------------------------------------------------------------------------
def phrase_pairs(n_src: int, links: Links, max_words: int) -> Iterator[tuple[int, int, int, int]]:
    """(i, j, k, l): source words ``i:j`` and target words ``k:l`` consistent with ``links``
    (every link of one box stays inside it), the target span the tightest one."""
    by_src: dict[int, list[int]] = {}
    for i, j in links:
        by_src.setdefault(i, []).append(j)
    by_tgt: dict[int, list[int]] = {}
    for i, j in links:
        by_tgt.setdefault(j, []).append(i)
    for i in range(n_src):
        lo, hi = 10**9, -1
        for j in range(i, min(n_src, i + max_words)):
            for t in by_src.get(j, ()):
                lo, hi = min(lo, t), max(hi, t)
            if hi < 0 or i not in by_src or j not in by_src:
                continue  # an unaligned source word on the edge: the tighter span says it
            if all(i <= s <= j for t in range(lo, hi + 1) for s in by_tgt.get(t, ())):
                yield i, j + 1, lo, hi + 1


def aligner_available(name: str) -> bool:
    """Whether the named aligner can run here (eflomal is an optional extra)."""
    if name != "eflomal":
        return True
    try:
        import eflomal  # noqa: F401
    except ImportError:
        return False
    return True


__all__ = [
    "Links",
    "aligner_available",
    "cjk",
    "eflomal_links",
    "grow_diag_final_and",
    "japanese",
    "join_target",
    "merge_words",
    "phrase_pairs",
    "segment",
    "target_tokens",
    "vector_links",
    "whole_words",
]
