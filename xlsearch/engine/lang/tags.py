"""BCP 47 language tags: normalisation as written, and prefix matching for filters.

Why ``langcodes``: it parses full BCP 47 (script, region, variants, extensions, private use),
knows the IANA registry's deprecated and overlong codes (``iw`` → ``he``, ``deu`` → ``de``)
and CLDR's likely subtags (which script a region implies), with no network or native code.

Stored tags are *as written*, case-normalised: ``en-gb`` → ``en-GB``, ``zh-hant-tw`` →
``zh-Hant-TW``, ``EN_us`` → ``en-US``; three-letter codes with a two-letter equivalent and
deprecated codes take the preferred form; a script the language always uses is dropped
(``en-Latn`` → ``en``). A filter tag matches a stored tag when it is a prefix of it at a
subtag boundary (``en`` finds ``en``, ``en-GB``, ``en-US``); a filter with a script also
finds region-only tags whose region implies that script (``zh-Hant`` finds ``zh-TW``,
``zh-HK``, ``zh-MO``; ``zh-Hans`` finds ``zh-CN``, ``zh-SG``); a filter without a script
ignores a stored script (``zh-TW`` finds ``zh-Hant-TW``). A bare ``zh`` says nothing about
its script and is found only by ``zh``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from functools import lru_cache

_UN_M49 = re.compile(r"^\d{3}$")
_SHAPE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
_SIMPLE = re.compile(r"^([A-Za-z]{2})(?:-([A-Za-z]{2}))?$")
# The two-letter languages and regions langcodes replaces (deprecated or aliased codes);
# every other ``ll`` / ``ll-RR`` tag standardises to itself, case-normalised, which spares
# a fresh process the ~0.1 s langcodes import for the common tags (a test checks it).
_ALIASED_LANGS = frozenset("bh in iw ji jw mo sh tl tw".split())
_ALIASED_REGIONS = frozenset(
    "AN BU CS CT DD DY FQ FX HV JT MI NH NQ NT PC PU PZ QU RH SU TP UK VD WK YD YU ZR".split()
)


_POSIX_SCRIPTS = {"latin": "Latn", "cyrillic": "Cyrl", "devanagari": "Deva", "arabic": "Arab"}
"""gettext locale modifiers that name a script (``sr@latin``, ``uz@cyrillic``)."""


def _posix_locale(tag: str) -> str:
    """A POSIX locale as gettext names catalogues (``ll_CC.codeset@modifier``) as a BCP 47
    tag: ``sr@latin`` → ``sr-Latn``, ``sr_RS@latin`` → ``sr-Latn-RS``, ``ca@valencia`` →
    ``ca-valencia``, ``de_DE.UTF-8`` → ``de_DE``; anything else as it is."""
    base, _, modifier = tag.partition("@")
    base = base.split(".", 1)[0]
    if not modifier:
        return base
    lang, _, region = base.replace("-", "_").partition("_")
    script = _POSIX_SCRIPTS.get(modifier.lower())
    if script:
        return "-".join(p for p in (lang, script, region) if p)
    if re.fullmatch(r"[A-Za-z0-9]{5,8}", modifier):  # a variant (valencia); not @euro
        return "-".join(p for p in (lang, region, modifier.lower()) if p)
    return base


def gettext_locale(tag: str) -> str:
    """A BCP 47 tag as gettext names a catalogue's language (``Language:``): ``pt-BR`` →
    ``pt_BR``, ``sr-Latn`` → ``sr@latin``, ``ca-valencia`` → ``ca@valencia``."""
    parts = tag.split("-")
    lang, region, modifier = parts[0], "", ""
    scripts = {v: k for k, v in _POSIX_SCRIPTS.items()}
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            modifier = scripts.get(part.title(), modifier)
        elif len(part) in (2, 3):
            region = part.upper()
        elif len(part) >= 5:
            modifier = part.lower()
    return lang + (f"_{region}" if region else "") + (f"@{modifier}" if modifier else "")


def direction(src: str | None, tgt: str | None) -> str:
    """A job's language direction as every report prints it: ``en-US → de-DE`` (the tags
    as the job names them; ``?`` for one it does not name)."""
    return f"{src or '?'} → {tgt or '?'}"


@lru_cache(maxsize=4096)
def normalize_lang(tag: str | None) -> str | None:
    """The BCP 47 tag as written, case-normalised (``en-gb`` → ``en-GB``, ``EN_us`` →
    ``en-US``, ``deu`` → ``de``; gettext's ``sr@latin`` → ``sr-Latn``); None when ``tag`` is
    not a language tag."""
    if not tag:
        return None
    tag = tag.strip()
    if "@" in tag or "." in tag:
        tag = _posix_locale(tag)
    tag = tag.replace("_", "-")
    if not _SHAPE.match(tag):
        return None
    simple = _SIMPLE.match(tag)
    if simple:
        lang, region = simple.group(1).lower(), (simple.group(2) or "").upper()
        if lang not in _ALIASED_LANGS and region not in _ALIASED_REGIONS:
            return f"{lang}-{region}" if region else lang
    import langcodes

    try:
        return str(langcodes.standardize_tag(tag, macro=True))
    except (langcodes.LanguageTagError, ValueError):
        return _case_fold(tag)


def _case_fold(tag: str) -> str:
    """BCP 47 case conventions for a tag langcodes cannot parse (``ja-JP-mac``)."""
    parts = tag.split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            out.append(part.title())
        elif len(part) == 2 and part.isalpha():
            out.append(part.upper())
        else:
            out.append(part.lower())
    return "-".join(out)


def primary(tag: str) -> str:
    """The primary language subtag (``zh-Hant-TW`` → ``zh``)."""
    return tag.split("-", 1)[0].lower()


@lru_cache(maxsize=4096)
def _parts(tag: str) -> tuple[str, str, str, tuple[str, ...]]:
    """(language, script, region, rest) of a normalised tag, lower-cased; '' when absent."""
    subtags = tag.lower().split("-")
    lang, rest = subtags[0], subtags[1:]
    script = rest.pop(0) if rest and len(rest[0]) == 4 and rest[0].isalpha() else ""
    region = ""
    if rest and ((len(rest[0]) == 2 and rest[0].isalpha()) or _UN_M49.match(rest[0])):
        region = rest.pop(0)
    return lang, script, region, tuple(rest)


@lru_cache(maxsize=4096)
def implied_script(tag: str) -> str:
    """The script a language + region implies (CLDR likely subtags), lower-case; '' if the
    tag has no region or already names a script (``zh-TW`` → ``hant``, ``zh`` → '')."""
    lang, script, region, _ = _parts(tag)
    if script or not region:
        return ""
    import langcodes

    try:
        found = langcodes.Language.get(f"{lang}-{region}").maximize().script
    except (langcodes.LanguageTagError, ValueError):
        return ""
    return (found or "").lower()


def _prefix(want: tuple[str, ...], have: tuple[str, ...]) -> bool:
    return len(want) <= len(have) and have[: len(want)] == want


def tag_matches(filter_tag: str, tag: str) -> bool:
    """Whether stored ``tag`` is in the range of ``filter_tag`` (see the module doc)."""
    f_lang, f_script, f_region, f_rest = _parts(filter_tag)
    lang, script, region, rest = _parts(tag)
    if f_lang != lang:
        return False
    want = tuple(x for x in (f_region, *f_rest) if x)
    have = tuple(x for x in (region, *rest) if x)
    if f_script:
        if (script or implied_script(tag)) != f_script:
            return False
    return _prefix(want, have)


def matching(filters: Sequence[str], tags: Iterable[str]) -> list[str]:
    """The ``tags`` that any of ``filters`` matches (in the order of ``tags``)."""
    wanted = [normalize_lang(f) or f for f in filters]
    return [t for t in tags if any(tag_matches(f, t) for f in wanted)]


def stored_tags(conn: sqlite3.Connection) -> list[str]:
    """Every language tag in the store, sorted: a loose index scan over ``segments_lang``
    (one index seek per distinct tag, so it stays instant on millions of segments)."""
    rows = conn.execute(
        "WITH RECURSIVE t(lang) AS (SELECT MIN(lang) FROM segments UNION ALL "
        "SELECT (SELECT MIN(lang) FROM segments WHERE lang > t.lang) FROM t "
        "WHERE t.lang IS NOT NULL) SELECT lang FROM t WHERE lang IS NOT NULL"
    )
    return [r[0] for r in rows]


def expand(conn: sqlite3.Connection, filters: Sequence[str]) -> list[str]:
    """The stored tags that ``filters`` select (``en`` → ``en``, ``en-GB``, ``en-US``)."""
    return matching(filters, stored_tags(conn))
