"""A fuzzy match whose source differs from the new segment in one short phrase the memory
itself translates: the phrase's translation is swapped in its target.

``Failed to open "%s"`` against ``Failed to save "%s"``: the stored target holds the
memory's translation of *save* once; the memory translates *open* too; the target with
one for the other translates the new segment. ``Authentication is required to run
Mousepad`` against ``… to run Thunar``: a name the target keeps as it is, swapped for the
new one. Nothing is swapped unless the memory agrees on the phrase's translation (its
units holding the phrase alone translate it one way), the old translation stands once in
the target and the rest of both sources is the same, word for word. A substituted match
is at most ``SUBSTITUTED`` %, never 100 %, and stays marked for review.
"""

from __future__ import annotations

import re
from collections.abc import Callable

SUBSTITUTED = 90
"""The fuzzy % of a match whose differing phrase was swapped (``substitute``)."""
MOST_WORDS = 3
"""The longest phrase (in words) that is swapped."""
SHARED_WORDS = 3
"""Words the two sources must share around the phrase."""
FLAG = "substituted:"

_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_", re.UNICODE)
_WORD = re.compile(r"[^\W\d_]", re.UNICODE)
_NOSPACE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _spans(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def differing_phrase(new: str, stored: str) -> tuple[str, str] | None:
    """(the stored phrase, the new phrase) where the two differ in one span of at most
    ``MOST_WORDS`` words each and the rest is the same; None otherwise."""
    a, b = _spans(new), _spans(stored)
    if not a or not b:
        return None
    pre = 0
    while pre < min(len(a), len(b)) and a[pre][0] == b[pre][0]:
        pre += 1
    suf = 0
    while suf < min(len(a), len(b)) - pre and a[-1 - suf][0] == b[-1 - suf][0]:
        suf += 1
    mid_a, mid_b = a[pre : len(a) - suf], b[pre : len(b) - suf]
    if not mid_a or not mid_b or pre + suf < max(2, len(a) - MOST_WORDS):
        return None
    shared = [t for t, _s, _e in [*a[:pre], *a[len(a) - suf :]] if _WORD.search(t)]
    if len(shared) < SHARED_WORDS:
        return None  # "New _Tab" / "Close _Tab": too little said the same to vouch for it
    if any(t in "_&" for t, _s, _e in [*mid_a, *mid_b]):
        return None  # a mnemonic inside the phrase: another string's keys
    if len(mid_a) > MOST_WORDS or len(mid_b) > MOST_WORDS:
        return None
    if not all(_WORD.search(t) for t, _s, _e in [*mid_a, *mid_b]):
        return None  # numbers and punctuation are repairs, not phrases
    old = stored[mid_b[0][1] : mid_b[-1][2]]
    now = new[mid_a[0][1] : mid_a[-1][2]]
    return old, now


def _find_once(phrase: str, target: str) -> re.Match[str] | None:
    """The one occurrence of ``phrase`` in ``target`` (case aside; whole words where the
    script has spaces), None when none or several."""
    if _NOSPACE.search(phrase):
        pattern = re.escape(phrase)
    else:
        pattern = r"(?<![^\W_])" + re.escape(phrase) + r"(?![^\W_])"
    found = list(re.finditer(pattern, target, re.IGNORECASE))
    return found[0] if len(found) == 1 else None


def _name_like(phrase: str, text: str) -> bool:
    """Every word of ``phrase`` capitalised in a ``text`` that writes other words in lower
    case (so the capitals say "name", not "title case")."""
    words = [w for w in re.findall(r"[^\W\d_]+", phrase)]
    if not words or not all(w[0].isupper() for w in words):
        return False
    rest = text.replace(phrase, " ")
    return any(w[0].islower() for w in re.findall(r"[^\W\d_]{3,}", rest))


def _same_case(word: str, like: str) -> str:
    """``word`` with its first letter's case set as ``like``'s first letter."""
    if not word or not like or not like[0].isalpha() or not word[0].isalpha():
        return word
    first = word[0].upper() if like[0].isupper() else word[0].lower()
    return first + word[1:]


def substitute(
    new: str,
    stored: str,
    target: str,
    translate: Callable[[str], str | None],
    unknown: Callable[[str], bool] | None = None,
) -> tuple[str, str] | None:
    """(``target`` made to translate ``new``, the flag saying what was swapped) or None.

    ``translate(phrase)`` is the memory's one translation of a phrase (None when it has
    none, or several that disagree). ``unknown(word)``: whether the memory's text never
    holds the word; a name the job writes in lower case (``Display ristretto user manual``)
    is such a word, where a lower-case word the memory knows (``it``) is no name."""
    diff = differing_phrase(new, stored)
    if diff is None:
        return None
    old, now = diff
    kept = _find_once(old, target)
    if kept is not None:  # the target keeps the phrase as it is (a name): so does the new one
        names = _name_like(old, stored) and (
            _name_like(now, new)
            or (unknown is not None and " " not in now.strip() and unknown(now))
        )  # the store is asked about ``now`` only when ``old`` reads as a name
        if not names:
            return None  # a word that reads the same in both languages ("Volume"): unclear
        if translate(now) not in (None, now) or translate(old) not in (None, old):
            return None
        swap = _same_case(now, kept.group()) if now[:1].lower() == old[:1].lower() else now
    else:
        old_t, now_t = translate(old), translate(now)
        if not old_t or not now_t:
            return None
        kept = _find_once(old_t, target)
        if kept is None:
            return None
        swap = _same_case(now_t, kept.group())
    out = target[: kept.start()] + swap + target[kept.end() :]
    return out, f"{FLAG} {kept.group()!r} → {swap!r} (for {old!r} → {now!r})"


__all__ = ["FLAG", "SUBSTITUTED", "differing_phrase", "substitute"]
