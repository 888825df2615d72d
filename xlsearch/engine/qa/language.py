"""Wrong language of a target: its script, then the language identifier (py3langid)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from xlsearch.engine.qa.units import Flag, QaUnit

_SCRIPTS = {
    "ar": {"ARABIC"}, "fa": {"ARABIC"}, "ur": {"ARABIC"}, "he": {"HEBREW"},
    "ru": {"CYRILLIC"}, "uk": {"CYRILLIC"}, "bg": {"CYRILLIC"}, "sr": {"CYRILLIC", "LATIN"},
    "be": {"CYRILLIC"}, "mk": {"CYRILLIC"}, "kk": {"CYRILLIC"},
    "el": {"GREEK"}, "ja": {"CJK", "HIRAGANA", "KATAKANA"}, "zh": {"CJK"},
    "ko": {"HANGUL", "CJK"}, "th": {"THAI"}, "hi": {"DEVANAGARI"}, "ka": {"GEORGIAN"},
    "hy": {"ARMENIAN"},
}  # fmt: skip
"""Scripts a language is written in (every other listed-or-not language: Latin)."""
MIN_LETTERS = 4
LANGID_MIN_CHARS = 10
LANGID_PROB = 0.9
LANGID_TARGET_MAX = 0.005


def _script(ch: str) -> str:
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return ""
    word = name.split(" ", 1)[0]
    if word in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL"):
        return word
    if word == "FULLWIDTH" and "LATIN" in name:
        return "LATIN"
    return word


def letter_scripts(text: str) -> Counter[str]:
    """How many letters of ``text`` each script has."""
    return Counter(_script(ch) for ch in text if ch.isalpha())


def _strip(text: str) -> str:
    from xlsearch.engine.qa.rules import _strip_codes

    return _strip_codes(text)


def language_flags(units: Sequence[QaUnit], src: str, tgt: str) -> list[Flag]:
    """Targets written in another language than ``tgt``: letters of a script the language
    does not use (a Latin target in a Russian file, unless the source is the same words),
    or a long target the identifier is sure is another language."""
    from xlsearch.engine.lang.identify import COMMON_LANGUAGES, identifier

    prim = (tgt or "").replace("_", "-").split("-")[0].lower()
    sprim = (src or "").replace("_", "-").split("-")[0].lower()
    if not prim:
        return []
    want = _SCRIPTS.get(prim, {"LATIN"})
    plausible = set(COMMON_LANGUAGES) | {sprim}
    flags: list[Flag] = []
    ident = None
    from xlsearch.engine.qa.rules import is_credits

    for u in units:
        if is_credits(u.source):
            continue
        text = _strip(u.target)
        counts = letter_scripts(text)
        letters = sum(counts.values())
        if letters < MIN_LETTERS:
            continue
        foreign = sum(v for k, v in counts.items() if k not in want)
        if foreign / letters > 0.8 and u.target.strip() != u.source.strip():
            names = {w.casefold() for w in re.findall(r"[^\W\d_]+", _strip(u.source))}
            words = [w.casefold() for w in re.findall(r"[^\W\d_]+", text)]
            if names and sum(w in names for w in words) >= 0.5 * len(words):
                continue  # names and terms kept as in the source
            top = max(counts, key=lambda k: counts[k]).title()
            flags.append(
                Flag(
                    u.file, u.key, u.source, u.target, "wrong-language", "error",
                    f"the target is written in {top} script, not in {tgt}'s",
                    line=u.line,
                )
            )  # fmt: skip
            continue
        if len(text) < LANGID_MIN_CHARS or foreign:
            continue
        ident = ident or identifier()
        ranked = [(str(lang), float(p)) for lang, p in ident.rank(text)]
        # Among the languages a file is plausibly written in (the common ones, its own two):
        # a look-alike outside them (Galician for Portuguese) does not hide the answer.
        kept = [(lang, p) for lang, p in ranked if lang in plausible or lang == prim]
        total = sum(p for _, p in kept) or 1.0
        best, prob = kept[0][0], kept[0][1] / total
        if best == prim or best == sprim or prob < LANGID_PROB:
            continue
        p_tgt = next((p for lang, p in kept if lang == prim), 0.0) / total
        if p_tgt > LANGID_TARGET_MAX:
            continue
        flags.append(
            Flag(
                u.file, u.key, u.source, u.target, "wrong-language", "error",
                f"the target reads as {best}, not {tgt} (identifier {prob:.0%})",
                line=u.line,
            )
        )  # fmt: skip
    return flags
