"""The one table of limits on what xlsearch reads from a user's file, and their one error each.

Every read path — ``import``, ``analyze`` and the app's Translate screen, ``align``, the
checks — holds a user's file to the same limits, and says the same line when one is passed:
a 50 MB file of one line is refused in a fraction of a second everywhere, not split into
sentences for minutes. A memory import skips an over-long line or segment and goes on (the
rest of a memory is still good, and the warning names it); a document to translate or to
align is refused, since a job cut short is not the job.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xlsearch.engine.errors import DataError


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit: its value, the unit it counts in, and what the user can do about it."""

    value: int
    unit: str
    what: str
    hint: str

    def message(self, found: int | None = None, what: str | None = None) -> str:
        """``a line (46,199,916 bytes) is over the limit of 1,600,000 bytes``."""
        size = f" ({found:,} {self.unit})" if found is not None else ""
        return f"{what or self.what}{size} is over the limit of {self.value:,} {self.unit}"

    def exceeded(self, where: str, found: int | None = None, what: str | None = None) -> DataError:
        """The one error for this limit, naming ``where`` (``file`` or ``file:line``); a
        memory import that goes on warns ``message(…) + SKIPPED`` instead."""
        return DataError(f"{where}: {self.message(found, what)}", hint=self.hint)


FILE = Limit(
    1 << 30,
    "bytes",
    "the file",
    "split it into several files, or import the part you need",
)
LINE = Limit(
    1_600_000,
    "bytes",
    "a line",
    "is it a text file? break it into lines (one paragraph or segment a line)",
)
SEGMENT = Limit(
    100_000,
    "characters",
    "a segment",
    "break it into paragraphs or sentences; a real segment is far shorter",
)
SEGMENTS = Limit(
    2_000_000,
    "segments",
    "the document",
    "split it into several documents",
)
LIMITS = {"file": FILE, "line": LINE, "segment": SEGMENT, "segments": SEGMENTS}
"""Every limit by name: file size, line length, segment length, segments in a document."""


SKIPPED = "; skipped"
"""What an import that goes on past an over-long line or segment adds to ``message``."""


def check_file(path: Path) -> None:
    """A ``DataError`` when the file at ``path`` is bigger than ``FILE`` allows."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # the reader says what is wrong with it
    if size > FILE.value:
        raise FILE.exceeded(str(path), size)


def check_lines(path: Path, lines: list[str], unit: str = "line") -> None:
    """A ``DataError`` naming the first of ``lines`` (numbered from 1) longer than ``LINE``
    allows, in UTF-8 bytes; ``unit="paragraph"``: the lines are a Word file's paragraphs."""
    cap = LINE.value
    for number, line in enumerate(lines, 1):
        if len(line) > cap // 4 and (size := len(line.encode("utf-8", "surrogatepass"))) > cap:
            if unit == "line":
                raise LINE.exceeded(f"{path}:{number}", size)
            raise LINE.exceeded(f"{path} ({unit} {number:,})", size, f"a {unit}")


def check_segments(where: str, sources: list[str]) -> None:
    """A ``DataError`` when a document has more segments than ``SEGMENTS`` allows or one
    longer than ``SEGMENT`` allows (the first is named by its number)."""
    if len(sources) > SEGMENTS.value:
        raise SEGMENTS.exceeded(where, len(sources))
    for number, text in enumerate(sources, 1):
        if len(text) > SEGMENT.value:
            raise SEGMENT.exceeded(f"{where} (segment {number:,})", len(text))
