"""Rule checks on one unit's strings: the checks every localisation QA tool runs.

Placeholders (printf with ``%1$s`` reordering and ``%%``, Python ``{name}``), mnemonics and
markup are checked with translate-toolkit's checkers (``translate.filters.checks``, the code
behind ``pofilter``): years of real catalogues shaped them (accelerator markers in CJK
``(_O)`` form, positional printf arguments, escaped percents), and a third hand-written copy
would only disagree with them. Numbers (digits of any script, grouping separators), Qt
``%1``, ``${name}``/``%{name}``, whitespace, end punctuation by the target language's
convention, doubled words, URLs and e-mails are checked here.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from xlsearch.engine.importers.placeholders import PRINTF
from xlsearch.engine.qa.units import Flag, QaUnit

_PRINTF = re.compile(PRINTF)  # the one printf grammar (importers.placeholders)
_QT = re.compile(r"(?<![%\w])%L?(\d{1,2})(?!\$)")
_DOLLAR = re.compile(r"[$%]\{[\w.]+\}|\$\([\w.]+\)")
_BRACE_CODE = re.compile(r"\{\{[^{}]*\}\}|\{[\w.:]*\}")
_NUMBER = re.compile(r"(?<![^\W\d_])\d+(?:[.,\u00a0\u202f' ]\d{3})*(?:[.,]\d+)?")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"')\]]+|\bwww\.[^\s<>\"')\]]+", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DOUBLED = re.compile(r"\b(\w{2,})\s+\1\b", re.IGNORECASE | re.UNICODE)
_DOUBLED_OK = frozenset(
    {
        "nous",
        "vous",
        "that",
        "had",
        "is",
        "la",
        "bye",
        "ha",
        "très",
        "die",
        "der",
        "das",
        "dem",
        "den",
    }
)
_ACCEL_CANDIDATES = ("_", "&", "~")
_MARKUP = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
_ENTITY = re.compile(r"&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);")

# End punctuation classes and how each language writes them.
_END_CLASSES = {
    ".": "stop", "。": "stop", "۔": "stop", "।": "stop", "．": "stop",
    "?": "question", "？": "question", "؟": "question",
    "!": "exclamation", "！": "exclamation",
    ":": "colon", "：": "colon",
    "…": "ellipsis", "...": "ellipsis", "⋯": "ellipsis", "……": "ellipsis",
    ";": "semicolon", "；": "semicolon", "؛": "semicolon",
}  # fmt: skip
_CJK = frozenset({"ja", "zh", "ko"})


_OTHER_DIGIT = re.compile(r"(?![0-9])\d")
"""A decimal digit of another script than ASCII's."""


def _digits(text: str) -> str:
    """``text`` with every decimal digit (Arabic-Indic, full-width …) as an ASCII digit."""
    if text.isascii() or not _OTHER_DIGIT.search(text):
        return text
    out = []
    for ch in text:
        if ch.isdigit() and not ch.isascii():
            try:
                out.append(str(unicodedata.digit(ch)))
                continue
            except (TypeError, ValueError):
                pass
        out.append(ch)
    return "".join(out)


_CODE_PATTERNS = (
    ("%", _PRINTF), ("%", _QT), ("$%", _DOLLAR), ("{", _BRACE_CODE), ("<", _MARKUP),
    ("&", _ENTITY), ("/.", _URL), ("@", _EMAIL),
)  # fmt: skip
"""Each code pattern after a character every match of it has (most strings have none)."""


@functools.lru_cache(maxsize=65536)
def strip_codes(text: str) -> str:
    """``text`` without placeholders, markup and entities (their digits are not numbers)."""
    for chars, rx in _CODE_PATTERNS:
        if any(ch in text for ch in chars):
            text = rx.sub(" ", text)
    return text


@functools.lru_cache(maxsize=65536)
def numbers(text: str) -> Counter[str]:
    """The numbers of ``text`` (any script's digits; grouping separators and the decimal
    mark written either way count as the same number; cached: do not change it)."""
    found: Counter[str] = Counter()
    for m in _NUMBER.finditer(_digits(strip_codes(text))):
        value = re.sub(r"[.,\u00a0\u202f' ](?=\d{3}(?:\D|$))", "", m.group())
        found[value.replace(",", ".")] += 1
    return found


def end_class(text: str) -> str:
    """How ``text`` ends: ``stop``, ``question``, ``colon``, ``ellipsis``… or ""."""
    t = text.rstrip()
    t = re.sub(r"(?:</?[A-Za-z][^<>]*>|[\"'»”’)\]」』）])+$", "", t).rstrip()
    for mark in ("……", "...", "…", "⋯"):
        if t.endswith(mark):
            return "ellipsis"
    return _END_CLASSES.get(t[-1:], "") if t else ""


def edge_whitespace(text: str) -> tuple[str, str]:
    """``text``'s leading and trailing whitespace."""
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    return lead.replace("\r", ""), trail.replace("\r", "")


def accelerator_marker(sources: Iterable[str]) -> str:
    """The mnemonic marker a catalogue uses (``_`` GTK, ``&`` Qt/Windows, ``~``
    LibreOffice), by how many sources carry one before a letter; "" when none does."""
    counts: Counter[str] = Counter()
    rx = {m: re.compile(rf"(?:^|[\s(\[]){re.escape(m)}[^\W\d_]") for m in _ACCEL_CANDIDATES}
    for text in sources:
        for marker, pattern in rx.items():
            if marker in text and pattern.search(text):
                counts[marker] += 1
    if not counts:
        return ""
    marker, n = counts.most_common(1)[0]
    return marker if n >= 2 else ""


@functools.lru_cache(maxsize=64)
def _checker(marker: str, lang: str) -> Any:
    from translate.filters import checks

    config = checks.CheckerConfig(
        accelmarkers=[marker] if marker else [], targetlanguage=lang or None
    )
    return checks.StandardChecker(checkerconfig=config)


def _tt(checker: Any, name: str, source: str, target: str) -> str:
    """translate-toolkit's check ``name`` on the pair: its message when it fails, else ""."""
    from translate.filters import checks

    try:
        getattr(checker, name)(source, target)
    except (checks.FilterFailure, checks.SeriousFilterFailure) as exc:
        return str(exc).strip() or name
    except Exception:  # noqa: BLE001 - a checker crash on odd text is no flag
        return ""
    return ""


def _multiset_diff(a: Counter[str], b: Counter[str]) -> tuple[list[str], list[str]]:
    missing = sorted((a - b).elements())
    extra = sorted((b - a).elements())
    return missing, extra


def _describe(missing: list[str], extra: list[str], what: str) -> str:
    parts = []
    if missing:
        parts.append(f"{what} {', '.join(missing[:4])} missing in the target")
    if extra:
        parts.append(f"{', '.join(extra[:4])} added")
    return "; ".join(parts)


def is_credits(source: str) -> bool:
    """gettext's translator-credits entry: the translators' names, not a translation."""
    return source.strip().lower() in ("translator-credits", "translator_credits", "translators")


_KEYS = frozenset(
    "ctrl alt shift super meta tab esc escape enter return space backspace home end insert "
    "delete del pgup pgdn fn".split()
)
"""Key names, abbreviations and units (``Shift``, ``ms``, ``16px``) a UI keeps as written."""
_STOPWORDS = frozenset(
    "the and for with from into not all any are was were has have this that these those you "
    "your its our their can will may of to in on at by or is it as be do if an".split()
)
_KEYWORDS = re.compile(r"^(?:[^;\s][^;]*;)+[^;]*$")
_KEYWORD_WORDS = 3
"""A keyword list's items are terms of at most this many words (a sentence with a
semicolon is no keyword list)."""
_STRFTIME = re.compile(r"%[-_0^#]?[AaBbYyHIMSpejZzklTRDFuVwWGgCcxXhntdm]")
_STRFTIME_ONLY = re.compile(r"%[-_0^#]?[AaBbYyHIMSjZzTRDFVGC]")
_NUMBER_WORDS = {
    "one": "1", "once": "1", "two": "2", "twice": "2", "double": "2", "three": "3",
    "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
    "ten": "10", "eleven": "11", "twelve": "12", "binary": "2", "octal": "8",
    "decimal": "10", "hexadecimal": "16", "sexagesimal": "60", "dozen": "12",
}  # fmt: skip
_DIGITS = re.compile(r"\d+")
_QT_STRIP = re.compile(r"%L?\d{1,2}(?![\d$])")


class RuleContext:
    """What the rules need to know of the whole file: languages and the mnemonic marker."""

    def __init__(
        self,
        src: str,
        tgt: str,
        marker: str,
        names: frozenset[str] = frozenset(),
        kept: frozenset[str] = frozenset(),
        lower: frozenset[str] = frozenset(),
    ) -> None:
        self.lower = lower
        self.translated: frozenset[str] = frozenset()
        """Source words (case-folded) the file's translations translate, not keep."""
        self.uses_mnemonics = True
        """Whether the file's translations keep mnemonics (most targets of a source with
        one have one): a team that leaves them out is told in notes, not warnings."""
        """Words (case-folded) the file's sources write in lower case somewhere."""
        self.src = src
        self.names = names
        """Words the file's sources write capitalised inside a sentence (product names)."""
        self.kept = kept
        """Words (case-folded) the file's translated targets use: a source of such words
        written as its own target is a term the language shares."""
        self.tgt = tgt
        self.tgt_primary = (tgt or "").split("-")[0].split("_")[0].lower()
        self.tgt_latin = True
        """Whether the target language is written in Latin letters (the caller says)."""
        self.marker = marker
        self.checker = _checker(marker, self.tgt_primary)


def rule_flags(unit: QaUnit, ctx: RuleContext) -> list[Flag]:
    """Every rule flag of one unit (a unit without a target has none)."""
    s, t = unit.source, unit.target
    if not t:
        return []
    out: list[Flag] = []

    def flag(kind: str, severity: str, message: str) -> None:
        out.append(Flag(unit.file, unit.key, s, t, kind, severity, message, line=unit.line))

    if not t.strip():
        if s.strip():
            flag("empty", "error", "the target is blank")
        return out
    if is_credits(s):
        return out
    for check in _CHECKS:
        check(s, t, ctx, flag)
    return out


Emit = Callable[[str, str, str], None]


KEPT_WORDS = "the target is the source (words this language's translations also use)"


def _untranslated(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    if s.strip() != t.strip():
        return
    letters = [ch for ch in s if ch.isalpha()]
    if len(letters) < 2:
        return
    plain = strip_codes(s).replace(ctx.marker, "") if ctx.marker else strip_codes(s)
    words = re.findall(r"[^\W\d_]+", plain)
    if not words:
        return
    if _KEYWORDS.match(s.strip()) and all(
        len(item.split()) <= _KEYWORD_WORDS for item in s.split(";")
    ):
        flag("untranslated", "info", "a keyword list kept as the source (search terms)")
        return
    content = [w for w in words if len(w) > 1 and w.casefold() not in _STOPWORDS]
    if content and all(
        w.casefold() in ctx.translated and not _name_like(w, ctx.names) for w in content
    ):
        told = content[0].casefold()
        flag("untranslated", "warning", f"the target is the source (this file translates {told!r})")
        return
    # Words the language's translations use themselves ("Status", "Menu"): a shared term.
    if all(w.casefold() in ctx.kept for w in words) and not all(
        _name_like(w, ctx.names) for w in words
    ):
        flag("untranslated", "info", KEPT_WORDS)
        return
    # English words in a language written in another script: a slip, not a name.
    if _english_in_another_script(words, ctx):
        flag("untranslated", "warning", "the target is the source: English words in a "
             "language not written in Latin letters")  # fmt: skip
        return
    # A name, an acronym or a file name is often written the same in every language.
    if (
        all(_name_like(w, ctx.names) or w.casefold() in ctx.kept for w in words)
        or (len(words) <= 2 and _name_words(words, ctx.lower))
        or (len(words) <= 2 and all(len(w) <= 3 or w.casefold() in _KEYS for w in words))
        or _EMAIL.search(s)
        or "rights reserved" in s.lower()
    ):
        flag("untranslated", "info", "the target is the source (a name or an acronym?)")
        return
    flag("untranslated", "warning", "the target is the source, untranslated")


def _english_in_another_script(words: list[str], ctx: RuleContext) -> bool:
    """A target language not written in Latin letters, and a copied source of plain English:
    every word a common English word, none an acronym, a key or a word the file's
    translations keep as written, one of four letters or more (``Unknown``, ``Mini Mode``;
    not ``GNOME``, ``iPad``, ``Alt``, ``Sylpheed``, ``Nick Schermer``)."""
    if ctx.tgt_latin:
        return False
    common = common_english()
    words = [w for w in words if len(w) > 1]
    return (
        bool(words)
        and all(
            w.casefold() in common
            and not w.isupper()
            and not any(c.isupper() for c in w[1:])
            and w.casefold() not in ctx.kept
            and w.casefold() not in _KEYS
            for w in words
        )
        and any(len(w) >= 4 for w in words)
    )


def _name_like(word: str, names: frozenset[str]) -> bool:
    """A product name, an acronym or a unit: kept as written in every language."""
    return word in names or word.isupper() or any(c.isupper() for c in word[1:])


@functools.lru_cache(maxsize=1)
def common_english() -> frozenset[str]:
    """Common English words: the whole words of the bundled teacher's WordPiece vocabulary
    (30k entries, what BERT's corpus uses most). Empty when the teacher is missing."""
    try:
        from xlsearch.engine.models.cards import bundled_teacher_path

        vocab = bundled_teacher_path() / "vocab.txt"
        words = vocab.read_text(encoding="utf-8").split()
    except Exception:  # noqa: BLE001 - no vocabulary: no word is known common
        return frozenset()
    return frozenset(w for w in words if w.isalpha() and len(w) > 1)


def _name_words(words: list[str], lower: frozenset[str]) -> bool:
    """Every word capitalised, never written in lower case by the file's sources and no
    common English word (a name: ``Chromium``, ``Sylpheed``; not ``Preview``)."""
    common = common_english()
    return all(
        w[:1].isupper() and w.casefold() not in lower and w.casefold() not in common for w in words
    )


def source_names(sources: Iterable[str]) -> frozenset[str]:
    """Words the sources write capitalised after a lower-case word (``Thunar``, ``Xfce``)
    and never in lower case: names a translation keeps."""
    capital: Counter[str] = Counter()
    lower: set[str] = set()
    for text in sources:
        words = re.findall(r"[^\W\d_]+", text)
        for prev, word in zip(words, words[1:], strict=False):
            if word[:1].isupper() and prev[:1].islower():
                capital[word] += 1
        lower.update(w for w in words if w[:1].islower())
    return frozenset(w for w in capital if w.lower() not in lower)


def lower_words(sources: Iterable[str]) -> frozenset[str]:
    """The words the sources write in lower case."""
    out: set[str] = set()
    for text in sources:
        out.update(w for w in re.findall(r"[^\W\d_]+", text) if w[:1].islower())
    return frozenset(out)


def target_words(pairs: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The words (case-folded) of the targets that differ from their source."""
    out: set[str] = set()
    for s, t in pairs:
        if s.strip() != t.strip():
            out.update(w.casefold() for w in re.findall(r"[^\W\d_]+", t))
    return frozenset(out)


TRANSLATED_MIN_UNITS = 2
TRANSLATED_MAX_KEPT = 0.34


def translated_words(pairs: Iterable[tuple[str, str]], marker: str = "") -> frozenset[str]:
    """Source words (case-folded) the file translates: in at least ``TRANSLATED_MIN_UNITS``
    of its translated units, and kept as written in the target of at most
    ``TRANSLATED_MAX_KEPT`` of them (``Help`` → ``Ayuda``; not ``Thunar``, not ``URL``)."""
    seen: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    for s, t in pairs:
        if not t.strip() or s.strip() == t.strip():
            continue
        if marker:
            s, t = s.replace(marker, ""), t.replace(marker, "")
        sw = {w.casefold() for w in re.findall(r"[^\W\d_]+", s)}
        tw = {w.casefold() for w in re.findall(r"[^\W\d_]+", t)}
        seen.update(sw)
        kept.update(sw & tw)
    return frozenset(
        w for w, n in seen.items()
        if n >= TRANSLATED_MIN_UNITS and kept[w] <= TRANSLATED_MAX_KEPT * n
    )  # fmt: skip


_NAMED = re.compile(r"[^\W_]*(?:[A-Za-z_][^\W_]*\d|\d[^\W_]*[A-Za-z])[^\W_]*")
"""A word with letters and digits ("Xfwm4", "W3M", "org.xfce.private_v1")."""
_MIXED = re.compile(r"[A-Za-z_][^\W_]*\d|\d[^\W_]*[A-Za-z]")
"""Where ``_NAMED`` can match at all (a search without its leading run: no backtracking)."""


def _renamed(s: str, t: str) -> str:
    """A name of the source written in the target with other digits: 'Xfwm4 → Xfwm7'."""
    if _MIXED.search(s) is None:
        return ""
    own = set(_NAMED.findall(s))
    theirs = set(_NAMED.findall(t)) - own
    if not theirs:
        return ""
    shape = {re.sub(r"\d+", "#", w): w for w in own}
    for w in sorted(theirs):
        was = shape.get(re.sub(r"\d+", "#", w))
        if was is not None and was != w and was not in t:
            return f"{was} → {w}"
    return ""


def _numbers(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    a, b = numbers(s), numbers(t)
    if a == b:
        renamed = _renamed(s, t)
        if renamed:
            flag("numbers", "warning", f"a name's digits differ: {renamed}")
        return
    glued = _DIGITS
    if Counter(glued.findall(_digits(strip_codes(s)))) == Counter(
        glued.findall(_digits(strip_codes(t)))
    ):
        return  # the same digits, written into a word on one side ("Int64", "64-bit")
    said = Counter(_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", s.lower()) if w in _NUMBER_WORDS)
    missing, extra = _multiset_diff(a, b)
    missing = [n for n in missing if not _spelled_out(n, t, ctx.tgt, s)]  # "5" as "fünf"
    if not missing and not Counter(extra) - said:
        return  # "two keys" written "2 つのキー"
    flag("numbers", "warning", _describe(missing, extra, "number") or "numbers differ")


SPELLED_MAX = 20
"""Numbers up to this a translation may write in words ("5 minutes" → "fünf Minuten")."""


@functools.lru_cache(maxsize=1024)
def _number_word(value: int, lang: str) -> str:
    """``value`` in words in ``lang`` (num2words), "" where it has no such language or the
    word is a CJK character (too short to tell from other words)."""
    try:
        from num2words import num2words
    except ImportError:
        return ""
    tag = lang.replace("-", "_")
    for code in (tag, tag.split("_")[0]):
        try:
            word = str(num2words(value, lang=code)).casefold()
        except (NotImplementedError, KeyError, ValueError, TypeError, AttributeError):
            continue
        return word if len(word) >= 3 and not _CJK_CHAR.search(word) else ""
    return ""


_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _spelled_out(number: str, target: str, lang: str, source: str = "") -> bool:
    """Whether ``number`` (a small whole number of the source) is written in words in the
    target: the target language's word for it, as a word of its own, and not the
    translation of the same word in the source ("two or three" → "zwei oder drei")."""
    if not number.isdigit() or not 2 <= int(number) <= SPELLED_MAX or not lang:
        return False

    def has(word: str, text: str) -> bool:
        return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text.casefold()) is not None

    word = _number_word(int(number), lang)
    english = _number_word(int(number), "en")
    return bool(word) and has(word, target) and not (english and has(english, source))


def _printf_specs(text: str) -> list[str]:
    """The printf conversions of ``text`` as written, argument positions and ``%%`` aside."""
    text = text.replace("%%", "")
    return [re.sub(r"^%\d+\$", "%", m.group()) for m in _PRINTF.finditer(text)]


def _placeholders(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    if _STRFTIME_ONLY.search(s):
        a = Counter(_STRFTIME.findall(s))
        b = Counter(_STRFTIME.findall(t))
        if a != b:  # a date format: the translation may order or choose its fields
            fewer = sum(b.values()) < sum(a.values())
            flag(
                "placeholders",
                "warning" if fewer else "info",
                _describe(*_multiset_diff(a, b), "date field"),
            )
        return
    if "%" in s or "%" in t:
        msg = _tt(ctx.checker, "printf", _QT_STRIP.sub(" ", s), _QT_STRIP.sub(" ", t))
        if msg:
            flag("placeholders", "error", f"printf: {msg}")
            return
        a = Counter(_printf_specs(s))
        b = Counter(_printf_specs(t))
        if a != b:  # a width, precision or conversion written otherwise ("%0.0f" → "%0.1f")
            flag("placeholders", "error", _describe(*_multiset_diff(a, b), "placeholder"))
            return
        a = Counter(m.group(1) for m in _QT.finditer(s))
        b = Counter(m.group(1) for m in _QT.finditer(t))
        if a != b:
            missing, extra = _multiset_diff(
                Counter({f"%{k}": v for k, v in a.items()}),
                Counter({f"%{k}": v for k, v in b.items()}),
            )
            flag("placeholders", "error", _describe(missing, extra, "placeholder"))
            return
    if "$" in s or "$" in t or "%{" in s or "%{" in t:
        a, b = Counter(_DOLLAR.findall(s)), Counter(_DOLLAR.findall(t))
        if a != b:
            flag("placeholders", "error", _describe(*_multiset_diff(a, b), "placeholder"))
            return
    if _ICU.search(s):  # ICU MessageFormat: its arguments, not its sub-messages' text
        a, b = Counter(set(icu_arguments(s))), Counter(set(icu_arguments(t)))
        if a != b:
            flag("placeholders", "error", _describe(*_multiset_diff(a, b), "ICU argument"))
        return
    if "{" in s or "{" in t:
        a, b = Counter(_BRACE_CODE.findall(s)), Counter(_BRACE_CODE.findall(t))
        if a != b:
            flag("placeholders", "error", _describe(*_multiset_diff(a, b), "placeholder"))


_ICU = re.compile(
    r"\{\s*[\w.]+\s*,\s*(?:plural|select|selectordinal|number|date|time|spellout|ordinal"
    r"|duration)\s*[,}]"
)
"""An ICU MessageFormat argument with a type (``{count, plural, …}``, ``{when, date}``)."""
_ICU_SUBMESSAGES = frozenset({"plural", "select", "selectordinal"})
_ICU_HEAD = re.compile(r"\s*([\w.]*)\s*(?:,\s*(\w+)\s*)?")
"""An argument's name and type, after its opening brace."""


def icu_arguments(text: str) -> list[str]:
    """The arguments of an ICU message, as ``{name}`` or ``{name, type}``, those inside the
    sub-messages of a plural or select included; the sub-messages themselves (``one {#
    file}``, ``male {He}``) are text to translate, their selectors a language's own.

    Read with a stack, not recursion: a string nested hundreds of plurals deep is read
    like any other."""
    out: list[str] = []
    # What each open brace holds: "msg" the text of a sub-message, "sub" a plural's or
    # select's selector {sub-message} pairs; empty: the message itself.
    open_: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if open_ and open_[-1] == "sub":
            if ch == "{":
                open_.append("msg")
            elif ch == "}":
                open_.pop()
            i += 1
        elif ch == "'" and i + 1 < n and text[i + 1] in "{}'":
            end = text.find("'", i + 1)  # a quoted literal: '{' is a brace, not code
            i = n if end < 0 else end + 1
        elif ch == "}":
            if not open_:
                break  # the message's end
            open_.pop()
            i += 1
        elif ch == "{":
            m = _ICU_HEAD.match(text, i + 1)
            assert m is not None  # every part of the pattern is optional
            name, kind, i = m.group(1), m.group(2), m.end()
            out.append(f"{{{name}, {kind}}}" if kind else f"{{{name}}}")
            if kind in _ICU_SUBMESSAGES:  # "offset:1"? then selector {sub-message} pairs
                open_.append("sub")
                continue
            depth = 1  # a simple argument or a format's style: to its closing brace
            while i < n and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
        else:
            i += 1
    return out


def _tags(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    if "<" not in s and "<" not in t:
        return
    a = Counter(m.group().split()[0].rstrip(">/").lower() for m in _MARKUP.finditer(s))
    b = Counter(m.group().split()[0].rstrip(">/").lower() for m in _MARKUP.finditer(t))
    if a != b:
        missing, extra = _multiset_diff(a, b)
        flag(
            "tags",
            "error",
            _describe([m + ">" for m in missing], [e + ">" for e in extra], "markup")
            or "markup differs",
        )


def _mnemonics(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    if not ctx.marker or (ctx.marker not in s and ctx.marker not in t):
        return
    msg = _tt(ctx.checker, "accelerators", s, t)
    if msg:
        # A mnemonic on a letter the keyboard may lack is the team's call, not a defect.
        odd = "invalid accelerator character" in msg
        dropped = msg.startswith("Missing") and not ctx.uses_mnemonics
        flag("mnemonics", "info" if odd or dropped else "warning", msg)


def _whitespace(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    (sl, st), (tl, tt) = edge_whitespace(s), edge_whitespace(t)
    if sl != tl or st != tt:
        where = "leading" if sl != tl else "trailing"
        want = sl if sl != tl else st
        have = tl if sl != tl else tt
        flag(
            "whitespace",
            "warning",
            f"{where} whitespace {want!r} in the source, {have!r} in the target",
        )
    if s.count("\n") != t.count("\n") and s.strip("\n").count("\n") != t.strip("\n").count("\n"):
        flag(
            "newlines",
            "info",
            f"{s.count(chr(10))} line breaks in the source, {t.count(chr(10))} in the target",
        )


def _punctuation(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    a, b = end_class(s), end_class(t)
    if a == b:
        return
    if ctx.tgt_primary in _CJK and a == "stop" and b == "":
        return  # a CJK UI string drops the full stop by convention
    if ctx.tgt_primary == "ar" and {a, b} == {"question", ""}:
        return
    if a in ("ellipsis", "colon", "question") or b in ("ellipsis", "colon", "question"):
        severity = "warning"
    elif a and not b:  # the sentence lost its end (often its second half with it)
        severity = "warning"
    else:
        severity = "info"
    flag(
        "punctuation",
        severity,
        f"the source ends with {a or 'no punctuation'}, the target with {b or 'none'}",
    )


def _doubled(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    for m in _DOUBLED.finditer(t):
        word = m.group(1)
        if word.lower() in _DOUBLED_OK or word.isdigit():
            continue
        before = t[: m.start()].rstrip()
        if m.group().split()[-1] != word and before and before[-1] not in ".!?:;":
            continue  # a capital inside a sentence is another word: German "Sie sie"
        if re.search(rf"\b{re.escape(word)}\s+{re.escape(word)}\b", s, re.IGNORECASE):
            continue
        flag("doubled-words", "warning", f"'{word} {word}': a word written twice")
        return


def _urls(s: str, t: str, ctx: RuleContext, flag: Emit) -> None:
    if "@" not in s and "//" not in s and "www." not in s:
        return
    a = set(_URL.findall(s)) | set(_EMAIL.findall(s))
    b = set(_URL.findall(t)) | set(_EMAIL.findall(t))
    missing = sorted(a - b)
    if missing:
        severity = "warning" if len(b) < len(a) else "info"
        flag("urls", severity, f"{', '.join(missing[:3])} not in the target")


_CHECKS = (
    _untranslated,
    _numbers,
    _placeholders,
    _tags,
    _mnemonics,
    _whitespace,
    _punctuation,
    _doubled,
    _urls,
)
