"""CAT normalisation and match repair: a stored source that differs from the new segment
only in what a translator does not retranslate is a 95–99 % match whose target is repaired.

The differences recognised (``KINDS``), each with its own penalty (``Penalties``): numbers,
placeholders (printf, Python, ICU, ``%1$s`` …), mnemonics (``_Open``, ``&Open``, CJK
``(_O)``), a trailing ellipsis, colon or full stop, whitespace, quote/dash/apostrophe
variants, letter case. The match's fuzzy % is ``100 − Σ penalties`` (never under
``FLOOR``, never 100: it is not the same text), as memoQ scores such a difference and
OmegaT matches numbers. Its target is repaired:

* numbers and placeholders: the stored ones replaced by the segment's, in order (a number
  or placeholder of the stored source that its target does not hold once, or a named
  placeholder for another name, ``{title}`` for ``{name}``: no repair);
* mnemonic: dropped when the segment has none; added when only the segment has one, the
  way the memory's targets in that language place theirs (``Conventions``: inline before a
  letter, or CJK ``(_X)`` after the text); kept as it is when both have one, written
  with the segment's mark (``&`` or ``_``);
* trailing ellipsis/colon/full stop: added or removed in the target, in the form the
  memory's targets in that language use (``…`` or ``...``, ``\u00a0:``, ``：``, ``。``);
* case: the target's first letter follows the segment's when the language has case;
* whitespace, quotes and dashes: the target stays as it is.

A repaired match is never a 100 % match and stays marked for review: its flags name each
repair.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from xlsearch.engine.importers.placeholders import PLACEHOLDER

KINDS = (
    "numbers",
    "placeholders",
    "mnemonic",
    "punctuation",
    "whitespace",
    "quotes",
    "case",
)
FLOOR = 95
"""The lowest fuzzy % a repaired match gets (memoQ's band for such differences)."""
REPAIRED = "repaired:"
"""The flag of a repaired match (``repaired: mnemonic added, ellipsis added``)."""


@dataclass(frozen=True)
class Penalties:
    """Fuzzy points taken off per kind of difference (configurable)."""

    numbers: int = 2
    placeholders: int = 2
    mnemonic: int = 1
    punctuation: int = 1
    whitespace: int = 1
    quotes: int = 1
    case: int = 1

    def of(self, kinds: Iterable[str]) -> int:
        return sum(getattr(self, k) for k in set(kinds))


DEFAULT_PENALTIES = Penalties()

CJK_MNEMONIC = re.compile(r"\s*[(（][_&]([^\W_])[)）]")
INLINE_MNEMONIC = re.compile(r"[_&](?=[^\W_])")
_TRAIL = re.compile(r"(\s*)(\.\.\.|…|[:：]|[.。])$")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_PH = re.compile(PLACEHOLDER)
_NAMED = re.compile(r"[A-Za-z]{2,}")
_QUOTES = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "`": "'",
        "´": "'",
        "–": "-",
        "—": "-",
        "‐": "-",
        "‑": "-",
    }
)
_HAS_CASE = re.compile(r"[^\W\d_]")


def _trail_kind(p: str) -> str:
    return {"...": "ellipsis", "…": "ellipsis", ":": "colon", "：": "colon"}.get(p, "stop")


@dataclass(frozen=True)
class Parsed:
    """A source string taken apart for comparison."""

    text: str
    mnemonic: str
    """The letter the mnemonic marks ('' when none)."""
    trail: str
    """Trailing ``ellipsis``/``colon``/``stop`` ('' when none)."""
    numbers: list[str]
    placeholders: list[str]
    core: str
    """What is compared: no mnemonic, no trailing punctuation, numbers and placeholders as
    markers, whitespace collapsed, quotes and dashes unified (case kept)."""
    raw: str
    """The compared text before whitespace, quotes and dashes are unified."""
    trail_form: str = ""
    """The trailing mark as written (``...`` or ``…``, ``:`` or ``：``)."""
    mark: str = ""
    """The character that marks the mnemonic: ``_`` (GTK) or ``&`` (Qt, KDE, Windows)."""


@lru_cache(maxsize=65536)
def parse(text: str) -> Parsed:
    """``text`` taken apart (cached: an analysis compares the same memory sources with
    many segments; the ``Parsed`` is shared, never changed)."""
    s = text.strip()
    mnemonic = mark = ""
    m = CJK_MNEMONIC.search(s)
    if m:
        mnemonic, mark = m.group(1), s[m.start(1) - 1]
        s = s[: m.start()] + s[m.end() :]
    else:
        m2 = INLINE_MNEMONIC.search(s)
        if m2 and (s.count("_") + s.count("&")) == 1:
            mnemonic, mark = s[m2.end()], m2.group()
            s = s[: m2.start()] + s[m2.end() :]
    trail = form = ""
    t = _TRAIL.search(s)
    if t:
        trail, form = _trail_kind(t.group(2)), t.group(2)
        s = s[: t.start()]
    phs = _PH.findall(s)
    s = _PH.sub("\x01", s)
    nums = _NUMBER.findall(s)
    s = _NUMBER.sub("\x02", s)
    core = re.sub(r"[\s\-]+", " ", s.translate(_QUOTES)).strip()
    return Parsed(text, mnemonic, trail, nums, phs, core, s, form, mark)


def bare(text: str) -> str:
    """``text`` without its mnemonic and trailing ellipsis/colon/stop, spaces collapsed."""
    s = CJK_MNEMONIC.sub("", text.strip(), count=1)
    if s.count("_") + s.count("&") == 1:
        s = INLINE_MNEMONIC.sub("", s, count=1)
    t = _TRAIL.search(s)
    if t:
        s = s[: t.start()]
    return " ".join(s.split())


def twin_key(text: str) -> str:
    """What two strings that differ only in ``KINDS`` have in common (``differences`` is
    not None for them): the lower-cased core."""
    return parse(text).core.lower()


def differences(new: str, stored: str) -> list[str] | None:
    """The kinds by which ``stored`` differs from ``new``, or None when they differ in more
    than those (different words) — [] when they are the same text."""
    if new == stored:
        return []
    a, b = parse(new), parse(stored)
    if a.core.lower() != b.core.lower():
        return None
    kinds = []
    if a.numbers != b.numbers:
        kinds.append("numbers")
    if a.placeholders != b.placeholders:
        kinds.append("placeholders")
    if bool(a.mnemonic) != bool(b.mnemonic):
        kinds.append("mnemonic")
    elif a.mnemonic.lower() != b.mnemonic.lower() or a.mark != b.mark:  # "&Help", "_Help"
        kinds.append("mnemonic")
    if a.trail != b.trail or a.trail_form != b.trail_form:  # "..." for "…" too
        kinds.append("punctuation")
    if a.core != b.core:
        kinds.append("case")
    if _spacing(a.raw) != _spacing(b.raw):
        kinds.append("whitespace")  # or a dash for a space: "Double-Click" / "Double Click"
    if _quotes(a.raw) != _quotes(b.raw):
        kinds.append("quotes")
    if not kinds:
        kinds.append("whitespace")  # leading or trailing spaces
    return kinds


def _spacing(text: str) -> str:
    return re.sub(r"\s+", " ", text.translate(_QUOTES)).strip().lower()


def _quotes(text: str) -> list[str]:
    return [c for c in text if c in _QUOTE_CHARS]


_QUOTE_CHARS = frozenset("\"'“”„«»‘’‚`´–—")


# -- the memory's conventions in the target language -----------------------------------------
@dataclass
class Conventions:
    """How the memory's targets in one language write mnemonics and trailing punctuation."""

    cjk_mnemonic: bool = False
    """Mnemonics written ``(_X)`` after the text (Chinese, Japanese, Korean catalogues)."""
    mnemonic_char: str = "_"
    ellipsis: str = "…"
    colon: str = ":"
    stop: str = "."

    @classmethod
    def learn(cls, targets: Iterable[str], lang: str = "") -> Conventions:
        """The majority form of each, from targets of the memory in that language."""
        cjk = inline = 0
        ell: Counter[str] = Counter()
        col: Counter[str] = Counter()
        stop: Counter[str] = Counter()
        chars: Counter[str] = Counter()
        for t in targets:
            if CJK_MNEMONIC.search(t):
                cjk += 1
            elif INLINE_MNEMONIC.search(t):
                inline += 1
                chars[INLINE_MNEMONIC.search(t).group()[0]] += 1  # type: ignore[union-attr]
            m = _TRAIL.search(t.strip())
            if m:
                kind = _trail_kind(m.group(2))
                space = m.group(1)[-1:] if m.group(1) else ""
                form = (space if space in "\u00a0\u202f " else "") + m.group(2)
                {"ellipsis": ell, "colon": col, "stop": stop}[kind][form] += 1
        primary = lang.split("-")[0].split("_")[0].lower()
        default_cjk = primary in {"zh", "ja", "ko"}
        out = cls(
            cjk_mnemonic=cjk > inline if (cjk or inline) else default_cjk,
            mnemonic_char=chars.most_common(1)[0][0] if chars else "_",
        )
        if ell:
            out.ellipsis = ell.most_common(1)[0][0]
        if col:
            out.colon = col.most_common(1)[0][0]
        elif default_cjk:
            out.colon = "："
        if stop:
            out.stop = stop.most_common(1)[0][0]
        elif primary in {"zh", "ja"}:
            out.stop = "。"
        return out


# -- the repair ----------------------------------------------------------------------------------
def repair(
    new: str, stored: str, target: str, conv: Conventions, lang: str = ""
) -> tuple[str, list[str]] | None:
    """``target`` (the translation of ``stored``) made to translate ``new``, and what was
    done to it; None when it cannot be repaired safely."""
    a, b = parse(new), parse(stored)
    done: list[str] = []
    out = target
    # numbers and placeholders, in order: each stored one must be in the target
    for kind, old, now in (
        ("placeholders", b.placeholders, a.placeholders),
        ("numbers", b.numbers, a.numbers),
    ):
        if old == now:
            continue
        if len(old) != len(now):
            return None
        for o, n in zip(old, now, strict=True):
            if o == n:
                continue
            if kind == "placeholders" and (_NAMED.search(o) or _NAMED.search(n)):
                return None  # {title} for {name}: another variable, perhaps another sentence
            if out.count(o) != 1:
                return None
            out = out.replace(o, "\x00" + n + "\x00", 1)
        out = out.replace("\x00", "")
        done.append(f"{kind} {', '.join(now)}")
    # trailing punctuation
    if a.trail != b.trail:
        tm = _TRAIL.search(out.rstrip())
        if b.trail:
            if not tm or _trail_kind(tm.group(2)) != b.trail:
                return None
            out = out.rstrip()[: tm.start()]
            done.append(f"{b.trail} removed")
        if a.trail:
            stripped = out.rstrip()
            tm2 = _TRAIL.search(stripped)
            if tm2 and b.trail == "":
                return None  # the target has a mark its source has not: unclear
            form = {"ellipsis": conv.ellipsis, "colon": conv.colon, "stop": conv.stop}[a.trail]
            out = stripped + form
            done.append(f"{a.trail} added")
    # mnemonic
    if a.mnemonic and b.mnemonic and a.mnemonic.lower() != b.mnemonic.lower():
        moved = _move_mnemonic(new, a.mnemonic, out, conv)
        if moved is not None and moved != out:
            out = moved
            done.append(f"mnemonic moved to {a.mnemonic!r}")
        else:
            done.append(
                f"mnemonic kept where the target has it (the source's is on {a.mnemonic!r})"
            )
    if bool(a.mnemonic) != bool(b.mnemonic):
        if b.mnemonic:
            cleaned = CJK_MNEMONIC.sub("", out, count=1)
            if cleaned == out:
                cleaned = INLINE_MNEMONIC.sub("", out, count=1)
            if cleaned == out:
                return None
            out = cleaned
            done.append("mnemonic removed")
        else:
            placed = _place_mnemonic(new, a.mnemonic, out, conv)
            if placed is None:
                return None
            out = placed
            done.append("mnemonic added")
    if a.mark and b.mark and a.mark != b.mark:  # a Qt job ("&Help"), a GTK memory ("_Help")
        swapped = _swap_mark(out, a.mark)
        if swapped is not None and swapped != out:
            out = swapped
            done.append(f"mnemonic mark {a.mark!r} for {b.mark!r}")
    # case: all capitals, else the first letter
    if _all_caps(a.core) and not _all_caps(b.core) and out.upper() != out.lower():
        out = _upper_outside_codes(out)
        done.append("case: all capitals")
    elif a.core != b.core and a.core.lower() == b.core.lower():
        first_new = next((c for c in a.core if c.isalpha()), "")
        first_old = next((c for c in b.core if c.isalpha()), "")
        if first_new and first_old and first_new != first_old:
            i = next((k for k, c in enumerate(out) if c.isalpha()), None)
            if i is not None and _HAS_CASE.match(out[i]) and out[i].lower() != out[i].upper():
                ch = out[i].upper() if first_new.isupper() else out[i].lower()
                if ch != out[i]:
                    out = out[:i] + ch + out[i + 1 :]
                    done.append("case")
        if "case" not in done:
            done.append("case (check)")
    if a.trail and a.trail == b.trail and a.trail_form != b.trail_form:
        done.append(f"{a.trail} {b.trail_form!r} → {a.trail_form!r} in the source only")
    if not done:
        done.append(_source_only(_unmarked(a), _unmarked(b)))
    return out, done


def _unmarked(p: Parsed) -> str:
    """The parsed text as written, without its mnemonic."""
    if not p.mnemonic:
        return p.text
    s = CJK_MNEMONIC.sub("", p.text, count=1)
    return INLINE_MNEMONIC.sub("", s, count=1) if s == p.text else s


def _source_only(new: str, stored: str) -> str:
    """What differs in two sources whose target stays as it is: spacing, a dash for a space,
    quotes or dashes."""
    what = []
    if _spacing(new) != _spacing(stored):
        dash = _spacing(new).replace("-", " ") == _spacing(stored).replace("-", " ")
        what.append("a dash for a space" if dash else "spacing")
    if _quotes(new) != _quotes(stored):
        what.append("quotes or dashes")
    return f"{' and '.join(what) or 'leading or trailing spaces'} in the source only"


def _all_caps(core: str) -> bool:
    """Two letters or more, all capitals (``ENCODING``)."""
    letters = [c for c in core if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def _upper_outside_codes(text: str) -> str:
    """``text`` in capitals, its placeholders (``%s``, ``{name}``) as they were."""
    out, last = [], 0
    for m in _PH.finditer(text):
        out += [text[last : m.start()].upper(), m.group()]
        last = m.end()
    return "".join([*out, text[last:].upper()])


def _move_mnemonic(new: str, letter: str, target: str, conv: Conventions) -> str | None:
    """The target's mnemonic moved to ``letter`` (the new source's); None when the target
    has no single mnemonic or no such letter (it is then kept where it was)."""
    cjk = CJK_MNEMONIC.search(target)
    if cjk:
        return target[: cjk.start(1)] + letter.upper() + target[cjk.end(1) :]
    marks = INLINE_MNEMONIC.findall(target)
    if len(marks) != 1 or target.count("_") + target.count("&") != 1:
        return None
    bare = INLINE_MNEMONIC.sub("", target, count=1)
    if new.lstrip()[:1] in "_&":  # the new source marks its first letter: so does the target
        return _place_mnemonic(new, letter, bare, conv)
    if letter.lower() not in bare.lower():
        return None
    return _place_mnemonic(new, letter, bare, conv)


def _swap_mark(target: str, mark: str) -> str | None:
    """The target's one mnemonic written with ``mark``; None when it has none (or several
    marks: no telling which is the mnemonic)."""
    cjk = CJK_MNEMONIC.search(target)
    if cjk:
        at = cjk.start(1) - 1
        return target[:at] + mark + target[at + 1 :]
    inline = INLINE_MNEMONIC.search(target)
    if inline is None or target.count("_") + target.count("&") != 1:
        return None
    return target[: inline.start()] + mark + target[inline.end() :]


def _place_mnemonic(new: str, letter: str, target: str, conv: Conventions) -> str | None:
    """The target with a mnemonic, placed as the memory's targets place theirs."""
    char = "&" if "&" + letter in new and "_" + letter not in new else conv.mnemonic_char
    if conv.cjk_mnemonic:
        m = _TRAIL.search(target)
        cut = m.start() if m else len(target)
        return f"{target[:cut]}({char}{letter.upper()}){target[cut:]}"
    if char in target:
        return None
    first = target.lower().find(letter.lower())
    at_start = new.lstrip().startswith(char)
    i = None
    if at_start or first < 0:
        i = next((k for k, c in enumerate(target) if c.isalpha()), None)
    else:
        i = first
    if i is None:
        return None
    return target[:i] + char + target[i:]


__all__ = [
    "DEFAULT_PENALTIES",
    "FLOOR",
    "KINDS",
    "REPAIRED",
    "bare",
    "Conventions",
    "Penalties",
    "differences",
    "parse",
    "repair",
    "twin_key",
]
