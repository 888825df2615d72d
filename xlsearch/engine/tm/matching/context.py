"""Context and consistency: what a match's context (PO ``msgctxt``, XLIFF ``resname``, the
neighbouring units) says about it.

* A 100 % match whose stored unit has the segment's context is a **101 %** (context)
  match and ranks first, as CAT tools rank an in-context exact match. Where neither side
  names a context, a stored unit between the same two neighbours as the segment (the
  sources before and after it, both there) is one too.
* A 100 % match whose context differs (either side has one, the other another or none) is
  not 100 %: 99 %, flagged with both contexts. A **short string** (one word of at most
  ``SHORT_LETTERS`` letters: weekday initials, units, abbreviations) with another context
  is a suggestion only: "T" in a calendar grid is not "T" in a toolbar.
* Entries that name their translators (PO's ``translator-credits`` and the like) are never
  looked up and never leveraged: another project's translators are not this one's.
* Where the memory translates one source in several ways, the one written is chosen by
  context, then by its trailing punctuation (an ellipsis, colon or full stop where the
  source has one, none where it has none: ``ends_like_source``), then by project (a unit
  of the job's own project: PO ``Project-Id-Version``, XLIFF ``product-name``), then by
  use count counting the source's other forms (``_Cancel``, ``Cancel``, ``Cancel:``: how
  many of their stored units translate it with the same words, mnemonic, punctuation and
  case aside), then by use count (how many stored units hold that very translation), then
  by date (the most recently imported); the others are listed with their counts and the
  evidence that chose.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from xlsearch.engine.tm.matching.repair import parse

Neighbours = tuple[str, str]
"""The sources before and after a unit ('' at either end)."""

CONTEXT_MATCH = 101
"""The fuzzy % of a 100 % match with the segment's own context."""
SHORT_LETTERS = 3
CONTEXT_MATCHED = "context match:"
"""The flag of a 101 % match (``context match: 'grid thursday'``)."""
CONTEXT_FLAG = "context:"
"""The flag of a 100 % match whose context differs (``context: new 'a' · stored 'b'``)."""
SUGGESTION_ONLY = "suggestion only:"
"""The flag of a match pre-translation must not write."""
OTHER_TRANSLATIONS = "other 100 % translations in the memory:"

_CREDITS = re.compile(
    r"^\s*(translator[-_ ]?credits|translators?[-_ ]?names?|your names?|your emails?|"
    r"name of translators|email of translators|_: ?(name|email) of translators\n?.*)\s*$",
    re.IGNORECASE | re.DOTALL,
)


def never_leveraged(source: str) -> bool:
    """Whether ``source`` names the translators (``translator-credits`` …): never looked up,
    never filled from the memory."""
    return bool(_CREDITS.match(source))


def _unmarked(text: str) -> str:
    """``text`` without mnemonic marks (``_`` and ``&``), for counting its words."""
    return text.replace("_", "").replace("&", "")


def is_short(text: str) -> bool:
    """One word of at most ``SHORT_LETTERS`` letters (mnemonic and punctuation aside)."""
    words = re.findall(r"[^\W\d_]+", _unmarked(text))
    return len(words) <= 1 and sum(len(w) for w in words) <= SHORT_LETTERS


def apply(
    matches: list[Any],
    segment: str,
    context: str,
    *,
    project: str = "",
    strict: bool = True,
    neighbours: Neighbours | None = None,
    stored_neighbours: Callable[[int], Neighbours] | None = None,
) -> None:
    """Score the 100 % matches by context (module doc) and rank them: context matches
    first, then those whose trailing punctuation is the segment's, then those of
    ``project``, then by use count, then the most recent.
    ``strict``: the context is part of the message's identity (PO ``msgctxt``); else
    (XLIFF ``resname``) a stored unit without a context stays 100 %.
    ``neighbours``: the segment's; ``stored_neighbours(segment_id)``: a stored unit's."""
    for m in matches:
        if m.fuzzy < 100 or m.cross_language:
            continue
        stored = getattr(m, "context", "") or ""
        if context in (getattr(m, "contexts", None) or {}):
            stored = m.context = context  # one of the merged copies has the segment's context
        if not context and not stored:
            if neighbours and all(neighbours) and stored_neighbours is not None:
                if stored_neighbours(m.segment_id) == neighbours:
                    m.fuzzy = CONTEXT_MATCH
                    m.flags.insert(0, f"{CONTEXT_MATCHED} the same neighbours")
            continue
        if not stored and not strict:
            continue
        if stored == context:
            m.fuzzy = CONTEXT_MATCH
            m.flags.insert(0, f"{CONTEXT_MATCHED} {context!r}")
            continue
        m.fuzzy = 99
        m.flags.insert(
            0, f"{CONTEXT_FLAG} new {context or '(none)'!r} · stored {stored or '(none)'!r}"
        )
        if is_short(segment):
            m.flags.insert(0, f"{SUGGESTION_ONLY} a short string in another context")
    order = {id(m): n for n, m in enumerate(matches)}
    matches.sort(
        key=lambda m: (
            -min(m.fuzzy, 100) if m.fuzzy >= 99 else 0,
            -(m.fuzzy == CONTEXT_MATCH),
            -(m.fuzzy >= 99 and ends_like_source(m)),
            -(m.fuzzy >= 99 and bool(project) and project in getattr(m, "projects", ())),
            -(getattr(m, "form_uses", 0) if m.fuzzy >= 99 else 0),
            -(m.copies if m.fuzzy >= 99 else 0),
            -((getattr(m, "newest", 0) or m.segment_id) if m.fuzzy >= 99 else 0),
            order[id(m)],
        )
    )


SHORT_WORDS = 3
"""A string of at most this many words is *short*: another word in it is another string."""
SHORT_FUZZY = 85
"""Under this fuzzy %, an unrepaired match of a short string is a suggestion only."""
WORD_BAND = 75
"""Under this % of its words (``fuzzy.word_fuzzy``, OmegaT's score), an unrepaired match
whose source has another content word is a suggestion only (the lowest band CAT tools
pre-translate from)."""
FUNCTION_WORDS = frozenset(
    "a an the to of in on at by for from with into onto as and or but not no is are was "
    "were be been being this that these those it its all any some each your you our my".split()
)
"""English words that carry no meaning of their own: an article more or less does not
make another string."""


def _words(text: str) -> list[str]:
    """The words of ``text`` (mnemonics, placeholders and numbers aside)."""
    from xlsearch.engine.tm.matching.fuzzy import word_keys

    return [w for w in word_keys(_unmarked(text)) if not w.isdigit()]


def content_words_differ(segment: str, source: str) -> bool:
    """Whether ``source`` lacks a word of ``segment`` or has one it lacks, other than
    ``FUNCTION_WORDS`` and numbers (``unmount`` / ``mount``, ``show`` / ``hide``)."""
    a, b = set(_words(segment)), set(_words(source))
    return any(w not in FUNCTION_WORDS for w in a ^ b)


def flag_short_fuzzy(m: Any, segment: str) -> bool:
    """Flag an unrepaired fuzzy match as a suggestion only where another word makes it
    another string: under ``SHORT_FUZZY`` % for a string of at most ``SHORT_WORDS`` words
    (one word of three differs: "Select _All" is not "Select _all Files"), and under
    ``WORD_BAND`` % of the words (``fuzzy.word_fuzzy``) when a content word differs —
    ``Failed to unmount "%s"`` is 83 % of ``Failed to mount "%s"`` counting its quotes and
    placeholder, 66 % of its words, and means the opposite. True when flagged."""
    from xlsearch.engine.tm.matching.fuzzy import word_fuzzy

    if m.fuzzy >= 100 or m.repairs or suggestion_only(m):
        return False
    short = len(re.findall(r"[^\W_]+", _unmarked(segment)))
    if m.fuzzy < SHORT_FUZZY and short <= SHORT_WORDS:
        m.flags.insert(0, f"{SUGGESTION_ONLY} a short string with other words ({m.fuzzy} %)")
        return True
    by_words = word_fuzzy(segment, m.source)
    if by_words < WORD_BAND and content_words_differ(segment, m.source):
        m.flags.insert(
            0,
            f"{SUGGESTION_ONLY} another word in the source ({by_words} % of the words; "
            f"{m.fuzzy} % with punctuation and placeholders)",
        )
        return True
    return False


def suggestion_only(m: Any) -> bool:
    return any(f.startswith(SUGGESTION_ONLY) for f in m.flags)


def flag_alternatives(best: Any, matches: Sequence[Any], project: str = "") -> int:
    """Flag a 100 % (or 101 %) match whose source the memory also translates otherwise,
    listing the other translations with their use counts and what chose the written one
    (context, trailing punctuation, the job's ``project``, use count, date); returns how
    many there are."""
    if best.fuzzy < 100 or not best.target:
        return 0
    mine = " ".join(best.target.split())
    others: dict[str, int] = {}
    rivals: list[Any] = []
    for m in matches:
        t = " ".join((m.target or "").split())
        if m is best or m.fuzzy < 99 or not t or m.cross_language or t == mine:
            continue
        if " ".join(m.source.split()) != " ".join(best.source.split()):
            continue
        others[t] = others.get(t, 0) + m.copies
        rivals.append(m)
    if not others:
        return 0
    listed = ", ".join(f"{t!r} ×{n}" for t, n in sorted(others.items(), key=lambda x: -x[1]))
    why = _chosen_by(best, rivals, project)
    flag = (
        f"{OTHER_TRANSLATIONS} {len(others)} ({listed}; written: {mine!r} ×{best.copies}, "
        f"chosen by {why})"
    )
    if not any(f.startswith(OTHER_TRANSLATIONS) for f in best.flags):
        best.flags.append(flag)
    return len(others)


def ends_like_source(m: Any) -> bool:
    """Whether ``m``'s target ends as its source does: with the same kind of trailing
    ellipsis, colon or full stop, or with none (``Print version information and exit`` is
    not ``… Programm beenden.``)."""
    return parse(m.target or "").trail == parse(m.source or "").trail


def _chosen_by(best: Any, rivals: Sequence[Any], project: str) -> str:
    """The evidence that ranked ``best`` above its ``rivals`` (``apply``'s order): the
    first one in that order that sets it above every rival still level with it."""
    forms = getattr(best, "form_uses", 0)
    steps: list[tuple[str, Callable[[Any], Any]]] = [
        ("context", lambda m: (min(m.fuzzy, 100), m.fuzzy == CONTEXT_MATCH)),
        ("trailing punctuation like the source's", ends_like_source),
        (
            f"project {project!r}",
            lambda m: bool(project) and project in getattr(m, "projects", ()),
        ),
        (
            f"use count with the source's other forms: these words ×{forms} "
            "(mnemonic, punctuation and case aside)",
            lambda m: getattr(m, "form_uses", 0),
        ),
        ("use count", lambda m: m.copies),
    ]
    level = list(rivals)
    for name, key in steps:
        mine = key(best)
        if all(key(m) < mine for m in level):
            if name.startswith("use count with") and all(m.copies < best.copies for m in level):
                return "use count"
            return name
        level = [m for m in level if key(m) == mine]
    return "date (the most recently imported)"


__all__ = [
    "CONTEXT_MATCH",
    "CONTEXT_MATCHED",
    "Neighbours",
    "OTHER_TRANSLATIONS",
    "SUGGESTION_ONLY",
    "apply",
    "content_words_differ",
    "ends_like_source",
    "flag_alternatives",
    "flag_short_fuzzy",
    "is_short",
    "never_leveraged",
    "suggestion_only",
]
