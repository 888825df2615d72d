"""One language per document side: a document's language is decided once, for all of it.

Identified line by line, a French document comes in as "fr 267, wa 2, und 1, oc 1, …": short
lines, names and titles look like Walloon or Occitan, and those lines drop out of French
searches. A document (a text, Markdown, DOCX or HTML file; each XLIFF ``<file>`` side and
TSV column is decided in ``langid.LanguageFiller``) is written in one language unless it is
*really* mixed — a second language holds at least ``MIXED_SHARE`` of the text the
identifier is sure of, line by line — and then each line gets the one of those languages
it reads as. A language tag in the file name (``notes.fr.txt``, ``brief_de-AT.docx``) is a
strong hint: it wins unless the text is plainly another language (``hinted``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

DOCUMENT_GROUP = -1
"""``Record.group`` of the segments of one document (text, Markdown, DOCX, HTML)."""

MIXED_SHARE = 0.2
"""A document is mixed when a second language holds this share of its sure text."""
SURE = 0.9
"""A line counts towards a language's share when identified with this probability."""
LONG = 24
"""…and has at least this many characters (short lines are no evidence either way)."""
PLAUSIBLE = 0.01
"""A file name's language still wins when the identifier gives it this probability."""

_PART = re.compile(r"[._]")


def filename_lang(path: str | Path) -> str | None:
    """The language tag a file name carries before its extension (``x.fr.txt``,
    ``x_de-AT.docx``, ``report-en.md``), as a BCP 47 tag; None when it has none. Only a
    two-letter language (or its three-letter code, ``deu``) the identifier knows counts, so
    ``notes_final.txt`` or ``chapter_one.md`` carry none."""
    stem = Path(path).name
    for _ in range(2):  # x.fr.txt.gz: look through one compression suffix
        stem, dot, ext = stem.rpartition(".")
        if not dot:
            return None
        if ext.lower() not in ("gz", "gzip"):
            break
    parts = _PART.split(stem)
    candidates = [parts[-1]]
    if len(parts) > 1 and re.fullmatch(r"[A-Z]{2}", parts[-1]):  # x_pt_BR
        candidates.insert(0, f"{parts[-2]}-{parts[-1]}")
    if "-" in parts[-1]:  # report-en
        candidates.append(parts[-1].rsplit("-", 1)[-1])
    for word in candidates:
        tag = _known(word)
        if tag:
            return tag
    return None


_TAG = re.compile(r"([a-z]{2,3}|[A-Z]{2,3})(-([A-Za-z]{4}|[A-Za-z]{2}|\d{3}))*")


def _known(word: str) -> str | None:
    """``word`` as a language tag when it is one (a lower- or upper-case language, then a
    script or region; not a capitalised word such as ``It`` or ``No``)."""
    from xlsearch.engine.langtags import normalize_tag, primary

    if not _TAG.fullmatch(word):
        return None
    tag = normalize_tag(word)
    if tag is None or len(primary(tag)) != 2 or primary(tag) not in _identifier_langs():
        return None
    return tag


def _identifier_langs() -> frozenset[str]:
    from xlsearch.engine.langid import _identifier

    return frozenset(str(lang) for lang in _identifier().nb_classes)


def hinted(text: str, hint: str | None, prior: Sequence[str] = ()) -> str:
    """The language of a document's ``text`` (a sample of it): ``hint`` (the file name's
    tag) when identification agrees, is unsure, or still finds the hint plausible; else
    what it identifies (``langid.settle``d on ``prior`` when short and unsure)."""
    from xlsearch.engine.langid import GROUP_SHORT, UNDETERMINED, _identifier, classify, settle
    from xlsearch.engine.langtags import primary

    lang, prob = classify(text)
    if hint:
        if lang in (UNDETERMINED, primary(hint)) or prob < 0.5:
            return hint
        ranked = dict(_identifier().rank(text))
        if ranked.get(primary(hint), 0.0) >= PLAUSIBLE:
            return hint
    return settle(text, lang, prob, prior, short=GROUP_SHORT)


def decide(
    texts: Sequence[str], hint: str | None = None, prior: Sequence[str] = ()
) -> tuple[str, list[str]]:
    """A document's language from a sample of its lines: ``(language, [])``; or ``("",
    languages)`` for a really mixed document, each line to get the one of ``languages`` it
    reads as; or ``("", [])`` when there is no evidence at all (short lines only, no name
    hint, the sample unsure): each line is identified on its own."""
    from xlsearch.engine.langid import classify

    majors, sure = mixed_languages(texts), _sure_chars(texts)
    if majors:
        return "", majors
    text = " \n".join(texts)
    if not hint and not sure and classify(text)[1] < 0.5:
        return "", []
    return hinted(text, hint, prior), []


def _sure_chars(texts: Sequence[str]) -> Counter[str]:
    """Characters per language of the lines identified surely (long, ≥ ``SURE``)."""
    from xlsearch.engine.langid import classify

    chars: Counter[str] = Counter()
    for text in texts:
        if len(text) < LONG:
            continue
        lang, prob = classify(text)
        if prob >= SURE:
            chars[lang] += len(text)
    return chars


def mixed_languages(texts: Sequence[str]) -> list[str]:
    """The languages of a really mixed document (each with ≥ ``MIXED_SHARE`` of the text of
    its sure lines), or ``[]`` when it is written in one language."""
    chars = _sure_chars(texts)
    total = sum(chars.values())
    if not total:
        return []
    majors = [lang for lang, n in chars.most_common() if n >= MIXED_SHARE * total]
    return majors if len(majors) > 1 else []


__all__ = ["DOCUMENT_GROUP", "decide", "filename_lang", "hinted", "mixed_languages"]
