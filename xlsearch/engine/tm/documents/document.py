"""A document to translate: its segments, their targets, and saving it back in its format.

Formats: XLIFF 1.2 (``trans-unit``, also segmented ``seg-source``/``mrk``) and 2.x
(``unit/segment``), gettext PO, and plain text / DOCX split into sentences
(``engine/lang/sentences.py``). ``open_document`` reads one; ``set_target`` records a chosen
target with its match quality; ``save`` writes the file back in its own format, every target
xlsearch wrote marked for review (XLIFF 1.2 ``state="needs-review-translation"`` + an
``alt-trans`` with ``match-quality``; XLIFF 2.0 ``state="translated"`` +
``subState="xlsearch:…"`` + an ``mtc:match``; PO the ``fuzzy`` flag, ``#| msgid`` and a
comment), so the translator carries on in their CAT tool. Any document can also be saved as
XLIFF 2.0 (``.xlf`` output for a text/DOCX input).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import DataError

FORMATS = ("xliff", "po", "text", "docx", "html")


def _format_of(path: Path) -> str | None:
    """The document format of ``path``'s extension (Markdown is read as text), or None."""
    from xlsearch.engine.importers.base import suffix_format

    found = suffix_format(path, gz=False)
    found = "text" if found == "markdown" else found
    return found if found in FORMATS else None


SEGMENT_MODES = ("auto", "never", "always")
"""How units of several sentences (an XLIFF paragraph unit, a PO entry, a paragraph of a
text or DOCX) are segmented: ``auto`` looks them up whole first and an analysis segments
them into sentences only where the whole unit has no good match (an XLIFF unit or a PO
entry is opened whole and split then; a text paragraph is opened as sentences and made
whole again); ``never`` keeps every unit whole; ``always`` splits every one on opening, as
a CAT tool does on import. A PO plural entry stays whole."""


_A_FORMAT = {
    "xliff": "an XLIFF",
    "po": "a PO",
    "text": "a text",
    "docx": "a DOCX",
    "html": "an HTML",
}


@dataclass
class DocSegment:
    """One segment of the document: its source and (possibly empty) target."""

    index: int
    key: str
    """Where it lives: unit id (+ segment id), PO msgctxt/msgid, or paragraph.sentence."""
    source: str
    target: str = ""
    state: str = ""
    """The file's own state of the target (``new``, ``translated``, ``fuzzy`` …)."""
    tags: int = 0
    """Inline codes in the source."""
    source_tags: list[list[Any]] | None = field(default=None, repr=False, compare=False)
    """Where those codes stand in ``source`` (``[[offset, kind, id, spaced], …]``, as the
    memory stores them), when known: a 100 % match keeps 100 % when the memory's source had
    the same codes in the same places."""
    note: str = ""
    quality: float | None = None
    """Match quality of a target set by xlsearch (fuzzy %, or cosine × 100)."""
    origin: str = ""
    """How that target was found: ``fuzzy``, ``semantic``, ``edited``."""
    context_match: str = ""
    """The flag of the 101 % match (same context) that target was taken from (``context
    match: 'door state'``): the review comment says 101 %, as the report does."""
    match_source: str = ""
    tag_hint: tuple[Any, Any] | None = field(default=None, repr=False, compare=False)
    """Where the match's stored source and target had their inline codes (``Match.source_tags``,
    ``Match.target_tags``): places the source's tags in this target when it is written."""
    locked: bool = False
    """Locked in the CAT tool (Trados ``sdl:seg locked``, memoQ ``mq:locked``): pre-translation
    leaves it alone."""
    confirmed: bool = False
    """Confirmed by a translator, in the file (``confirmation.confirmed_in_file``) or in this
    session (``Document.confirm``): pre-translation never replaces its target, and it is
    saved as the format's "translated" status, not for review."""
    changed: bool = False
    ref: Any = field(default=None, repr=False, compare=False)
    """The format's handle on this segment (an XML element, a PO entry …)."""
    context: str = ""
    """Where the string is used, as the file says it (PO ``msgctxt``, XLIFF ``resname``): a
    match with the same context is a 101 % match, one with another is not 100 %."""
    context_is_key: bool = True
    """Whether the context is part of the message's identity (PO ``msgctxt``: a stored unit
    without one is another message), or only a name (XLIFF ``resname``: a stored unit
    without one stays 100 %)."""
    plurals: int = 0
    """A PO plural entry: how many plural forms the job's ``Plural-Forms`` header asks for
    (``msgstr[0]`` … ``msgstr[n-1]``); 0 for any other segment."""
    plural_source: str = ""
    """A PO plural entry's ``msgid_plural``."""
    plural_targets: list[str] = field(default_factory=list, repr=False, compare=False)
    """A PO plural entry's other forms (``msgstr[1]`` …) written with ``target``."""
    repairs: list[str] = field(default_factory=list, repr=False, compare=False)
    """What was done to the match's target to fit (``repaired: …``, ``substituted: …``), as
    the analysis report says it: named in the entry's review comment."""
    line_breaks: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)
    """Where the match's stored target had its line breaks (``Match.target_breaks``): a PO
    msgid of several lines gets them back (the memory keeps them as spaces)."""


@dataclass
class Document:
    """A document being translated."""

    path: Path
    fmt: str
    src: str
    tgt: str
    segments: list[DocSegment]
    handle: Any = field(default=None, repr=False)
    resegmented: list[Any] = field(default_factory=list, repr=False)
    """Format-specific record of segments xlsearch split (XLIFF 2.0: ``(unit, the original
    segment, the new elements)``), undone on save where nothing was translated."""
    codec: Any = field(default=None, repr=False)
    """The format's reader/writer functions (``formats``), set by ``open_document``."""
    untranslatable: list[str] = field(default_factory=list, repr=False)
    """Sources of the units marked not to translate (``translate="no"``): left out of the
    segments, counted in the analysis."""
    review_comments: dict[int, Any] = field(default_factory=dict, repr=False)
    """A Word file's review comments by paragraph, rewritten when saved again."""
    project: str = ""
    """The project the document belongs to (PO ``Project-Id-Version``, XLIFF
    ``product-name``): a 100 % match from the same project is preferred."""
    language_notice: str | None = field(default=None, repr=False)
    """One line when the text reads as another language than ``src`` (``open_document``)."""
    written_as: tuple[bool, bool, bytes] = field(default=(False, False, b""), repr=False)
    """How an XLIFF file was written (a UTF-8 BOM, CRLF line ends, its XML declaration):
    saved back the same way."""

    def split(self, index: int, renumber: bool = True) -> int:
        """Split segment ``index`` — a whole unit of several sentences with no target — into
        one segment a sentence (XLIFF, PO; see ``SEGMENT_MODES``); the segments after it are
        renumbered (``renumber=False``: the caller calls :meth:`renumber` after several
        splits from the end). Returns how many segments it became (0: it stays whole)."""
        if self.fmt not in ("xliff", "po"):
            return 0
        news = self.codec.split_segment(self, index)
        if not news:
            return 0
        self.segments[index : index + 1] = news
        if renumber:
            self.renumber(index)
        return len(news)

    def renumber(self, start: int = 0) -> None:
        """Number the segments by position again, from ``start``."""
        for i in range(start, len(self.segments)):
            self.segments[i].index = i

    def merge(self, first: int, last: int, renumber: bool = True) -> bool:
        """Make the sentences ``first`` … ``last`` of one paragraph (text, Markdown, DOCX)
        one segment again, the whole paragraph; the segments after it are renumbered (see
        :meth:`split`). Returns whether it did."""
        if self.fmt not in ("text", "docx", "html"):
            return False
        whole = self.codec.merge_segments(self, first, last)
        if whole is None:
            return False
        self.segments[first : last + 1] = [whole]
        if renumber:
            self.renumber(first)
        return True

    def paragraphs(self) -> list[tuple[int, int]]:
        """``(first, last)`` segment of each paragraph split into several sentences (text,
        Markdown, DOCX); ``[]`` for other formats."""
        if self.fmt not in ("text", "docx", "html"):
            return []
        return self._runs(lambda a, b: a.ref == b.ref)

    def _runs(self, same: Any) -> list[tuple[int, int]]:
        """``(first, last)`` of each run of several segments where ``same(first, next)``."""
        out: list[tuple[int, int]] = []
        start = 0
        for i in range(1, len(self.segments) + 1):
            if i == len(self.segments) or not same(self.segments[start], self.segments[i]):
                if i - start > 1:
                    out.append((start, i - 1))
                start = i
        return out

    def written_whole(self) -> list[tuple[int, int]]:
        """``(first, last)`` segment of each PO entry split into sentences: the file holds
        one msgstr for all of them, so pre-translation fills all of them or none."""
        if self.fmt != "po":
            return []
        return self._runs(lambda a, b: a.ref is b.ref)

    def merge_all(self) -> int:
        """Make every paragraph one segment (``segment="never"`` for text and DOCX);
        returns how many were merged."""
        merged = sum(self.merge(a, b, False) for a, b in reversed(self.paragraphs()))
        self.renumber()
        return merged

    def split_all(self) -> int:
        """Split every unit that can be (``segment="always"``); returns segments added."""
        added = 0
        for index in range(len(self.segments) - 1, -1, -1):
            added += max(self.split(index, renumber=False) - 1, 0)
        self.renumber()
        return added

    def set_target(
        self,
        index: int,
        text: str,
        *,
        quality: float | None = None,
        origin: str = "edited",
        match_source: str = "",
        tag_hint: tuple[Any, Any] | None = None,
        edited_from: str | None = None,
        plural_targets: list[str] | None = None,
        repairs: list[str] | None = None,
        context_match: str = "",
        line_breaks: Mapping[str, Any] | None = None,
    ) -> DocSegment:
        """Set segment ``index``'s target (marked for review when saved). ``tag_hint``: the
        match's ``(source_tags, target_tags)``, for a target taken from it; ``edited_from``:
        that match's target when the translator edited it into ``text`` (the tags then
        follow the words they stood by: ``tags.follow_edit``); ``plural_targets``: a PO
        plural entry's other forms (``msgstr[1]`` …; none: those stay as they are);
        ``repairs``: what was done to the match's target (named in the review comment);
        ``context_match``: the flag of a 101 % (same-context) match; ``line_breaks``: where
        the match's stored target had line breaks (``Match.target_breaks``)."""
        if tag_hint is not None and edited_from is not None:
            from xlsearch.engine.tm.documents.tags import follow_edit

            tag_hint = follow_edit(tag_hint, edited_from, text)
        seg = self.segments[index]
        seg.target = text
        if plural_targets is not None:  # else a plural entry's other forms stay as they are
            seg.plural_targets = list(plural_targets)
        seg.repairs = list(repairs or [])
        seg.context_match = context_match
        seg.quality = quality
        seg.origin = origin
        seg.match_source = match_source
        seg.tag_hint = tag_hint
        seg.line_breaks = line_breaks
        seg.confirmed = False  # a changed target is a draft again until confirmed
        seg.changed = True
        return seg

    def confirm(self, index: int) -> DocSegment:
        """Confirm segment ``index``'s target: saved as translated (XLIFF 1.2 ``state=
        "translated"``, Trados ``conf="Translated"``, memoQ ``ManuallyConfirmed``, XLIFF 2.0
        ``translated`` without xlsearch's sub-state, PO without ``fuzzy``). A ``DataError``
        for an empty target; a locked segment stays as it is."""
        seg = self.segments[index]
        if not seg.target.strip():
            raise DataError(f"segment {index + 1} has no target to confirm")
        entry = seg.ref if self.fmt == "po" else None
        if entry is not None and entry.msgid_plural:
            forms = {**entry.msgstr_plural, **dict(enumerate(seg.plural_targets, 1))}
            empty = [k for k, v in sorted(forms.items()) if k and not v.strip()]
            if empty or len(forms) < 2:
                raise DataError(
                    f"segment {index + 1} is a plural entry: xlsearch writes its first form "
                    f"only, msgstr[{(empty or [1])[0]}] is empty",
                    hint="fill its other plural forms in your PO editor, which confirms it",
                )
        if not seg.locked:
            seg.confirmed = True
            seg.changed = True
        return seg

    def next_unconfirmed(self, after: int) -> int | None:
        """The first segment after ``after`` (then from the top) that is neither confirmed nor
        locked, or ``None`` when every segment is."""
        n = len(self.segments)
        for step in range(1, n + 1):
            i = (after + step) % n
            seg = self.segments[i]
            if not seg.confirmed and not seg.locked:
                return i
        return None

    @property
    def confirmed(self) -> int:
        return sum(1 for s in self.segments if s.confirmed)

    @property
    def translated(self) -> int:
        return sum(1 for s in self.segments if s.target.strip())

    def check_output(self, path: str | Path) -> None:
        """A ``ConfigError`` when ``path``'s extension names another format than the one
        :meth:`save` writes there (an XLIFF saved as ``job.po``)."""
        from xlsearch.engine.errors import ConfigError

        suffix = Path(path).suffix.lower()
        named = _format_of(Path(path))
        if named is None or named == self.fmt or suffix in (".xlf", ".xliff"):
            return
        own = {"xliff": ".xlf", "po": ".po", "text": ".txt", "docx": ".docx", "html": ".html"}[
            self.fmt
        ]
        raise ConfigError(
            f"{path}: {_A_FORMAT[self.fmt]} document is written in its own format, not as {suffix}",
            hint=f"name it *{own}" + ("" if self.fmt == "xliff" else " or *.xlf (XLIFF 2.0)"),
        )

    def save(self, path: str | Path | None = None) -> Path:
        """Write the document (default: over itself) in its format, or as XLIFF 2.0 when
        ``path`` ends in ``.xlf``/``.xliff`` and the document is not XLIFF. Atomic."""
        out = Path(path).expanduser() if path else self.path
        self.check_output(out)
        as_xliff = out.suffix.lower() in (".xlf", ".xliff") and self.fmt != "xliff"
        data = self.codec.dump(self, as_xliff)
        from xlsearch.engine.runtime.atomic import write_output

        return write_output(out, data)


def detect(path: Path, fmt: str | None = None) -> str:
    """The format of ``path`` (``fmt`` wins; else the extension)."""
    if fmt:
        from xlsearch.engine.importers.base import named_format

        fmt = "text" if fmt in ("md", "markdown") else fmt
        return named_format(fmt, FORMATS, "document format")
    found = _format_of(path)
    if found is None:
        raise DataError(
            f"{path}: cannot tell the format from the extension {path.suffix or '(none)'}",
            hint="use .xlf/.xliff, .po, .txt, .md, .docx or .html (a text file: --format text)",
        )
    return found
