"""CAT-style fuzzy matching: tokens, fuzzy %, word diff and number/tag/placeholder checks.

The fuzzy percentage is the one translators know from Trados, memoQ or OmegaT: a
**word-level Levenshtein similarity normalised by the longer segment**,

    fuzzy = floor(100 × (1 − d(A, B) / max(|A|, |B|)))

where A and B are the token sequences of the two segments and d counts token insertions,
deletions and substitutions (each costs 1). Tokens are words, numbers, single punctuation
marks (an ellipsis ``...`` is one, as ``…`` is), and each inline tag or placeholder
(``<b>``, ``{0}``, ``%s``…) as one token; scripts
written without spaces (Chinese, Japanese, Thai) count one token per character. Whitespace
is normalised away and words compare case-insensitively (a typographic apostrophe as a
straight one); a segment that then equals the stored one but differs in case, spacing,
apostrophes or tags gets 99, not 100 (CAT tools' penalty), so
100 % always means "identical text". One changed word in a 20-word segment gives 95 %.
The distance is rapidfuzz's (C++, ``Levenshtein.normalized_similarity``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from xlsearch.engine.importers.placeholders import (
    PLACEHOLDER,
    arguments,
    is_date_format,
    placeholders,
)

# Inline tags (XML/HTML-like), then placeholders of common formats (``placeholders``: {0}
# {name} {{x}} ${x} $x %{name} %s %d %.2f %1$s %(name)s), then numbers (1,234.5 · 12:30 ·
# 3/4 · 50%), words, a CJK character, any other non-space character.
_TAG = r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>"
_PLACEHOLDER = PLACEHOLDER
_NUMBER = r"[-+]?\d+(?:[.,:/]\d+)*%?"
_NOSPACE = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f"
_TOKEN = re.compile(
    rf"(?P<tag>{_TAG})|(?P<ph>{_PLACEHOLDER})|(?P<num>{_NUMBER})"
    rf"|(?P<cjk>[{_NOSPACE}])|(?P<word>[^\W\d_{_NOSPACE}]+(?:['’][^\W\d_]+)*)"
    r"|(?P<punct>\.{2,}|\S)",
    re.UNICODE,
)
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Token:
    """One token: its kind (tag, ph, num, cjk, word, punct), text and span in the segment."""

    kind: str
    text: str
    start: int
    end: int

    @property
    def key(self) -> str:
        """What the distance compares: words lower-cased, tags by name only."""
        if self.kind == "tag":
            return "<" + re.sub(r"[\s/>].*", "", self.text.lstrip("</")) + ">"
        return _apostrophes(self.text.lower()) if self.kind == "word" else self.text


def tokenize(text: str) -> list[Token]:
    """The segment's tokens (see the module doc), with their spans."""
    return [
        Token(m.lastgroup or "punct", m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)
    ]


_TAG_NAME = re.compile(r"[\s/>].*")


_SPECIAL = re.compile(rf"[<{{}}%$\\{_NOSPACE}]")
_PLAIN = re.compile(rf"{_NUMBER}|[^\W\d_]+(?:['’][^\W\d_]+)*|\.{{2,}}|\S", re.UNICODE)
"""``_TOKEN`` for text without tags, placeholders and no-space scripts (most segments)."""


def _apostrophes(word: str) -> str:
    """A word with a typographic apostrophe (``d’eau``, ``don’t``) as with a straight one:
    Word writes the one, a CMS the other — the same word (the text differs: 99 %, not 100)."""
    return word.replace("’", "'") if "’" in word else word


@lru_cache(maxsize=65536)
def _keys(text: str) -> tuple[str, ...]:
    """``Token.key`` of each token, without building ``Token``s (the lookup's hot path)."""
    text = _apostrophes(text)
    if not _SPECIAL.search(text):
        return tuple(t.lower() for t in _PLAIN.findall(text))
    out = []
    for m in _TOKEN.finditer(text):
        kind, tok = m.lastgroup, m.group()
        if kind == "word":
            out.append(tok.lower())
        elif kind == "tag":
            out.append("<" + _TAG_NAME.sub("", tok.lstrip("</")) + ">")
        else:
            out.append(tok)
    return tuple(out)


def token_keys(text: str) -> tuple[str, ...]:
    """The fuzzy tokens' keys of ``text`` (words lower-cased, tags by name), cached."""
    return _keys(text)


def word_keys(text: str) -> list[str]:
    """The lower-cased words and numbers of ``text`` (the fuzzy tokens that are words)."""
    return [k for k in _keys(text) if k[:1].isalnum()]


TAG_RE = re.compile(_TAG)
"""An inline markup tag (``<b>``, ``<span weight="bold">``), as the matcher reads one."""


def split_tags(text: str) -> tuple[str, list[list[object]] | None]:
    """A segment typed or pasted with inline tags (``Press <b>Start</b> now.``) as the
    memory stores one: the text without them, and where they stood (``[[offset, kind, id,
    spaced], …]``, kind ``open``/``close``/``ph``; None without tags) — so ``tag_penalty``
    makes it 100 % against a memory unit with the same tags in the same places (it was 75 %:
    each tag counted as an inserted word)."""
    from xlsearch.engine.importers.base import normalize
    from xlsearch.engine.importers.inline import MARK, tag_anchors

    if "<" not in text or MARK in text:
        return text, None
    kinds: list[str] = []

    def mark(m: re.Match[str]) -> str:
        tag = m.group()
        kinds.append("close" if tag.startswith("</") else "ph" if tag.endswith("/>") else "open")
        return MARK

    raw = TAG_RE.sub(mark, text)
    if not kinds:
        return text, None
    plain, offsets, spaced = tag_anchors(normalize(raw))
    tags: list[list[object]] = [
        [o, kind, f"t{i}", int(sp)]
        for i, (o, kind, sp) in enumerate(zip(offsets, kinds, spaced, strict=True))
    ]
    return plain, tags


def words(text: str) -> int:
    """Word count as CAT tools count it: words and numbers, each CJK/Thai character one."""
    return sum(1 for t in tokenize(text) if t.kind in ("word", "num", "cjk"))


def fuzzy(new: str, stored: str) -> int:
    """The fuzzy match percentage (0–100) of ``stored`` for segment ``new`` (module doc)."""
    a, b = _keys(new), _keys(stored)
    if not a and not b:
        return 100 if new.strip() == stored.strip() else 0
    sim = Levenshtein.normalized_similarity(a, b)
    pct = math.floor(100 * sim + 1e-9)
    if pct >= 100 and _WS.sub(" ", new).strip() != _WS.sub(" ", stored).strip():
        return 99
    return pct


def word_fuzzy(new: str, stored: str) -> int:
    """The fuzzy % of the two segments' words and numbers alone (punctuation, tags and
    placeholders aside): the score OmegaT bands and ranks a match by. ``Failed to unmount
    "%s"`` / ``Failed to mount "%s"`` is 66 % (two words of three), where ``fuzzy``,
    counting the quotes and the placeholder, gives 83 %. A mnemonic is no word break
    (``Re_name…`` / ``Rename`` is 100 %)."""
    a, b = word_keys(_unmarked(new)), word_keys(_unmarked(stored))
    if not a and not b:
        return 100
    return math.floor(100 * Levenshtein.normalized_similarity(a, b) + 1e-9)


def _unmarked(text: str) -> str:
    """``text`` without its one mnemonic (``_``/``&`` before a letter, CJK ``(_X)``)."""
    from xlsearch.engine.tm.matching.repair import CJK_MNEMONIC, INLINE_MNEMONIC

    s = CJK_MNEMONIC.sub("", text, count=1)
    if s == text and text.count("_") + text.count("&") == 1:
        s = INLINE_MNEMONIC.sub("", s, count=1)
    return s


def fuzzy_many(new: str, stored: Sequence[str]) -> list[int]:
    """``fuzzy(new, s)`` for each stored segment, the distances in one rapidfuzz ``cdist``
    call (C++, no Python loop over pairs)."""
    if not stored:
        return []
    a = _keys(new)
    keys = [_keys(s) for s in stored]
    if not a or not all(keys):
        return [fuzzy(new, s) for s in stored]
    sims = process.cdist([a], keys, scorer=Levenshtein.normalized_similarity, dtype=np.float64)
    pcts = np.floor(100 * sims[0] + 1e-9).astype(int).tolist()
    norm = _WS.sub(" ", new).strip()
    return [
        99 if p >= 100 and _WS.sub(" ", s).strip() != norm else p
        for p, s in zip(pcts, stored, strict=True)
    ]


def _fold(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


def char_similarity(new: str, stored: str) -> float:
    """Character-level Levenshtein similarity (0–1) of the case-folded, space-normalised
    texts; a ranking feature that rewards shared word stems (``battery``/``batteries``)."""
    return float(Levenshtein.normalized_similarity(_fold(new), _fold(stored)))


def char_similarity_many(new: str, stored: Sequence[str]) -> list[float]:
    """``char_similarity(new, s)`` for each stored segment (one ``cdist`` call)."""
    if not stored:
        return []
    sims = process.cdist(
        [_fold(new)],
        [_fold(s) for s in stored],
        scorer=Levenshtein.normalized_similarity,
        dtype=np.float64,
    )
    return [float(x) for x in sims[0]]


# -- diff ----------------------------------------------------------------------------------
DiffOp = tuple[str, str]
"""``("=", text)`` unchanged, ``("-", text)`` only in the stored source (delete it),
``("+", text)`` only in the new segment (insert it)."""


def diff(new: str, stored: str) -> list[DiffOp]:
    """Word-level diff that turns the stored source into the new segment.

    Runs of whitespace between tokens follow the side they come from; adjacent operations
    of the same kind are merged.
    """
    ta, tb = tokenize(stored), tokenize(new)
    ops: list[DiffOp] = []

    def text(src: str, toks: list[Token], i: int, j: int) -> str:
        if i >= j:
            return ""
        start = toks[i].start if i else 0
        end = toks[j].start if j < len(toks) else len(src)
        return src[start:end]

    dels: list[str] = []
    ins: list[str] = []

    def flush() -> None:  # a changed region reads "-old" then "+new"
        _push(ops, "-", "".join(dels))
        _push(ops, "+", "".join(ins))
        dels.clear()
        ins.clear()

    for op in Levenshtein.opcodes([t.key for t in ta], [t.key for t in tb]):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag == "equal":
            flush()
            _push(ops, "=", text(new, tb, j1, j2))
        else:
            if j1 == len(tb) and i1 and not dels:  # the new segment ended: keep the space
                dels.append(stored[ta[i1 - 1].end : ta[i1].start])  # before the deleted words
            dels.append(text(stored, ta, i1, i2))
            ins.append(text(new, tb, j1, j2))
    flush()
    if not ta and not tb:
        return [("=", new)] if new else []
    return ops


def _push(ops: list[DiffOp], op: str, text: str) -> None:
    if not text:
        return
    if ops and ops[-1][0] == op:
        ops[-1] = (op, ops[-1][1] + text)
    else:
        ops.append((op, text))


def diff_markup(ops: Sequence[DiffOp]) -> str:
    """The diff as plain text: ``[-deleted-]`` and ``{+inserted+}`` (wdiff's notation)."""
    out = []
    for op, text in ops:
        body = text.strip()
        lead = text[: len(text) - len(text.lstrip())]
        trail = text[len(text.rstrip()) :]
        if op == "=" or not body:
            out.append(text)
        else:
            out.append(f"{lead}[-{body}-]{trail}" if op == "-" else f"{lead}{{+{body}+}}{trail}")
    return "".join(out)


# -- numbers, tags, placeholders -------------------------------------------------------------
_KINDS = {"num": "numbers", "tag": "tags", "ph": "placeholders"}


def protected(text: str) -> dict[str, Counter[str]]:
    """Numbers, tags and placeholders of a segment (multisets by kind)."""
    out: dict[str, Counter[str]] = {k: Counter() for k in _KINDS.values()}
    for t in tokenize(text):
        if t.kind in _KINDS:
            value = t.text if t.kind != "num" else _number_value(t.text)
            out[_KINDS[t.kind]][value] += 1
    return out


def _number_value(text: str) -> str:
    """``1,000`` and ``1.000`` and ``1000`` compare equal; ``1,5`` and ``1.5`` too."""
    digits = re.sub(r"[.,](?=\d{3}(?:\D|$))", "", text)
    return digits.replace(",", ".")


def flags(new: str, stored: str) -> list[str]:
    """What differs between the new segment and the stored source in numbers, tags and
    placeholders, one line per kind: ``numbers: new 5, 10 · stored 7`` (empty: all agree)."""
    a, b = protected(new), protected(stored)
    out = []
    for kind in _KINDS.values():
        if a[kind] != b[kind]:
            only_new = sorted((a[kind] - b[kind]).elements())
            only_old = sorted((b[kind] - a[kind]).elements())
            out.append(
                f"{kind}: new {', '.join(only_new) or '—'} · stored {', '.join(only_old) or '—'}"
            )
    return out


PLACEHOLDER_FLAG = "placeholders in target:"
"""How ``placeholder_problem``'s flag starts."""


def placeholder_problem(segment: str, target: str) -> str:
    """What a translation ``target`` of ``segment`` gets wrong in placeholders, as CAT QA
    reports it: ``placeholders in target: missing %{email} · extra {email}`` ("" when it has
    each of the segment's placeholders as often, and no other). Such a target must not be
    written as a match without a translator's check."""
    if arguments(segment) == arguments(target) or is_date_format(segment):
        return ""  # the same arguments, maybe reordered (%s of %s → %2$s de %1$s)
    want, have = placeholders(segment), placeholders(target)
    missing = ", ".join(sorted((want - have).elements())) or "—"
    extra = ", ".join(sorted((have - want).elements())) or "—"
    return f"{PLACEHOLDER_FLAG} missing {missing} · extra {extra}"


__all__ = [
    "PLACEHOLDER_FLAG",
    "DiffOp",
    "Token",
    "char_similarity",
    "char_similarity_many",
    "diff",
    "diff_markup",
    "flags",
    "fuzzy",
    "fuzzy_many",
    "placeholder_problem",
    "protected",
    "tokenize",
    "word_fuzzy",
    "word_keys",
    "words",
]
