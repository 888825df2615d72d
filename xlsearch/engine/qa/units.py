"""What a check reads and what it reports: units (source, target) and flags."""

from __future__ import annotations

import re
from dataclasses import dataclass

SEVERITIES = ("error", "warning", "info")
"""``error``: the target is wrong (a lost placeholder, another language); ``warning``: a
reviewer should look (a number changed, an end punctuation); ``info``: a convention the team
may not follow (reported, not counted as a defect)."""

KINDS = (
    "empty",
    "untranslated",
    "numbers",
    "placeholders",
    "tags",
    "mnemonics",
    "whitespace",
    "newlines",
    "punctuation",
    "doubled-words",
    "urls",
    "consistency",
    "mistranslation",
    "omission",
    "addition",
    "wrong-language",
)
"""Every kind of flag a check raises (rule checks, then consistency, then semantic)."""


@dataclass(frozen=True, slots=True)
class QaUnit:
    """One unit to check: where it is, its source and its target as the file writes them."""

    file: str
    key: str
    """The unit id (XLIFF ``id``/``mid``; PO ``msgctxt`` + EOT + ``msgid``; TMX/TSV line)."""
    source: str
    target: str
    line: int | None = None
    source_tags: int = 0
    """Inline codes in the source (XLIFF), when the reader counts them; -1: unknown."""
    target_tags: int = -1
    draft: bool = False
    """The target is a draft no translator confirmed (a PO ``#, fuzzy`` entry's msgstr)."""


_FORM = re.compile(r"msgstr\[\d+\]")


def key_parts(key: str) -> tuple[str | None, str, str | None]:
    """A unit id's parts: (PO ``msgctxt`` or None, the id or ``msgid``, the plural form
    (``msgstr[1]``) or None). gettext joins a context and its msgid with an EOT
    character (U+0004), which the reports never show."""
    parts = key.split("\x04")
    form = parts.pop() if len(parts) > 1 and _FORM.fullmatch(parts[-1]) else None
    context = parts.pop(0) if len(parts) > 1 else None
    return context, "\x04".join(parts), form


def readable_key(key: str) -> str:
    """A unit id as people read it: ``msgctxt | msgid`` (``| msgstr[1]`` for a plural
    form), with no control character."""
    context, ident, form = key_parts(key)
    return " | ".join(x for x in (context, ident.replace("\x04", " "), form) if x is not None)


@dataclass(frozen=True, slots=True)
class Flag:
    """One problem found in a unit."""

    file: str
    key: str
    source: str
    target: str
    kind: str
    severity: str
    message: str
    line: int | None = None
    score: float | None = None
    """The measure behind a semantic flag (its calibrated score), else None."""
    draft: bool = False
    """The unit's target is a draft no translator confirmed (``QaUnit.draft``)."""
