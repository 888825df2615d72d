"""One language per document side: a document's language is decided once, for all of it.

Identified line by line, a French document comes in as "fr 267, wa 2, und 1, oc 1, …": short
lines, names and titles look like Walloon or Occitan, and those lines drop out of French
searches. A document (a text, Markdown, DOCX or HTML file; each XLIFF ``<file>`` side and
TSV column is decided in ``LanguageFiller``) is written in one language unless it is
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
from typing import Any

from xlsearch.engine.lang.identify import classify, classify_among, identify, settle

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
    stem, _, modifier = stem.partition("@")  # gettext's sr@latin.po, ca@valencia.po
    parts = _PART.split(stem)
    if modifier:
        from xlsearch.engine.lang.tags import normalize_lang

        word = parts[-1].rsplit("-", 1)[-1]
        return normalize_lang(f"{word}@{modifier}") if _known(word) else None
    candidates = [parts[-1]]
    if len(parts) > 1 and re.fullmatch(r"[A-Z]{2}", parts[-1]):  # x_pt_BR, Launchpad's x-pt_BR
        candidates.insert(0, f"{parts[-2].rsplit('-', 1)[-1]}-{parts[-1]}")
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
    from xlsearch.engine.lang.tags import normalize_lang, primary

    if not _TAG.fullmatch(word):
        return None
    tag = normalize_lang(word)
    if tag is None or len(primary(tag)) != 2 or primary(tag) not in _identifier_langs():
        return None
    return tag


def _identifier_langs() -> frozenset[str]:
    from xlsearch.engine.lang.identify import identifier

    return frozenset(str(lang) for lang in identifier().nb_classes)


def hinted(text: str, hint: str | None, prior: Sequence[str] = ()) -> str:
    """The language of a document's ``text`` (a sample of it): ``hint`` (the file name's
    tag) when identification agrees, is unsure, or still finds the hint plausible; else
    what it identifies (``lang.identify.settle``d on ``prior`` when short and unsure)."""
    from xlsearch.engine.lang.identify import UNDETERMINED, identifier
    from xlsearch.engine.lang.tags import primary

    lang, prob = classify(text)
    if hint:
        if lang in (UNDETERMINED, primary(hint)) or prob < 0.5:
            return hint
        ranked = dict(identifier().rank(text))
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
    from xlsearch.engine.lang.identify import classify

    majors, sure = mixed_languages(texts), _sure_chars(texts)
    if majors:
        return "", majors
    text = " \n".join(texts)
    if not hint and not sure and classify(text)[1] < 0.5:
        return "", []
    return hinted(text, hint, prior), []


def _sure_chars(texts: Sequence[str]) -> Counter[str]:
    """Characters per language of the lines identified surely (long, ≥ ``SURE``)."""
    from xlsearch.engine.lang.identify import classify

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


GROUP_SAMPLE_CHARS = 4000
"""A group's one guess is made once this much of its text has been read (or at its end)."""
GROUP_SAMPLE_RECORDS = 40
GROUP_SHORT = 200
"""A group whose whole text is shorter than this, identified under 50 %, is ``settle``d."""


class LanguageFiller:
    """Fills in the languages a file leaves out, at import.

    Records that share a ``group`` (all sources or all targets of one XLIFF ``<file>``, one
    TSV column) get *one* guess for the whole group, made on a sample of its first texts
    (concatenated, so short segments cannot scatter over look-alike languages); records
    without a group (lines of a text file, JSONL objects) are identified one by one, short
    unsure ones taking their batch's majority. ``prior``: the store's languages, most used
    first, for short texts the identifier is unsure of (``settle``). ``allowed`` (the
    import's ``--lang``) restricts every guess to those tags, so ``--lang`` can set what the
    file leaves out.
    """

    def __init__(
        self, allowed: Sequence[str] = (), prior: Sequence[str] = (), hint: str | None = None
    ) -> None:
        self.allowed = list(allowed)
        self.prior = list(prior)
        self.hint = hint
        """The file name's language (``doclang.filename_lang``), for a document's group."""
        self.decided: dict[Any, str] = {}
        self.mixed: list[str] = []
        """A really mixed document's languages (``doclang.mixed_languages``)."""

    def _sample(self, texts: Sequence[str]) -> tuple[int, int]:
        return len(texts), sum(len(t) for t in texts)

    def ready(self, batch: Sequence[Any]) -> bool:
        """Whether every undecided group in ``batch`` has a big enough sample to decide."""
        pending: dict[Any, list[str]] = {}
        for rec in batch:
            if not rec.lang and rec.group is not None and rec.group not in self.decided:
                pending.setdefault(rec.group, []).append(rec.text)
        for texts in pending.values():
            n, chars = self._sample(texts)
            if n < GROUP_SAMPLE_RECORDS and chars < GROUP_SAMPLE_CHARS:
                return False
        return True

    def fill(self, batch: Sequence[Any]) -> None:
        """Set ``lang`` on every record of ``batch`` that has none."""
        loose: list[Any] = []
        groups: dict[Any, list[Any]] = {}
        for rec in batch:
            if rec.lang:
                continue
            if rec.group is None:
                loose.append(rec)
            else:
                groups.setdefault(rec.group, []).append(rec)
        for group, recs in groups.items():
            if group not in self.decided:
                sample, size = [], 0
                for rec in recs:
                    sample.append(rec.text)
                    size += len(rec.text)
                    if size >= 5 * GROUP_SAMPLE_CHARS:
                        break
                text = " \n".join(sample)
                if group != DOCUMENT_GROUP or self.allowed:
                    self.decided[group] = self._guess(text)
                else:  # one language per document, unless it is really mixed
                    self.decided[group], self.mixed = decide(sample, self.hint, self.prior)
            if group == DOCUMENT_GROUP and not self.decided[group]:
                if self.mixed:  # each line in the one of the document's languages it reads as
                    for rec in recs:
                        rec.lang = classify_among(rec.text, self.mixed)
                else:  # no evidence for one language: line by line
                    loose.extend(recs)
                continue
            for rec in recs:
                rec.lang = self.decided[group]
        if loose and self.allowed:
            for rec in loose:
                rec.lang = classify_among(rec.text, self.allowed)
        elif loose:
            langs = identify([r.text for r in loose], prior=self.prior)
            for rec, lang in zip(loose, langs, strict=True):
                rec.lang = lang

    def _guess(self, text: str) -> str:
        if self.allowed:
            return classify_among(text, self.allowed)
        return settle(text, *classify(text), self.prior, short=GROUP_SHORT)


__all__ = [
    "DOCUMENT_GROUP",
    "LanguageFiller",
    "decide",
    "filename_lang",
    "hinted",
    "mixed_languages",
]
