"""What a check reads and what it reports: units (source, target) and flags."""

from __future__ import annotations

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
