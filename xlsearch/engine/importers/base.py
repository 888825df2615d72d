"""What every importer shares: records, format detection, decoding, warnings, normalisation."""

from __future__ import annotations

import codecs
import gzip
import io
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers.encoding import (
    GUESS_BYTES,
    codec_name,
    decode_error,
    decodes_as_utf8,
    from_bom,
    guess_encoding,
    is_wide,
    utf16_without_bom,
)
from xlsearch.engine.importers.limits import LINE, SEGMENT, SKIPPED
from xlsearch.engine.lang.tags import normalize_lang

MAX_SEGMENT_CHARS = SEGMENT.value
MAX_LINE_BYTES = LINE.value
"""Text/TSV/CSV lines longer than this are skipped while reading (memory stays flat); a
document read whole (``ReadContext.whole``) is refused (``limits``)."""
MAX_WARNINGS = 200

FORMATS = ("tmx", "xliff", "po", "tsv", "csv", "text", "jsonl", "markdown", "docx", "html")
SUFFIXES = {
    ".tmx": "tmx",
    ".xlf": "xliff",
    ".xliff": "xliff",
    ".sdlxliff": "xliff",
    ".mqxliff": "xliff",
    ".po": "po",
    ".pot": "po",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".csv": "csv",
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
_FORMAT_ALIASES = {
    "txt": "text",
    "xlf": "xliff",
    "json": "jsonl",
    "tab": "tsv",
    "pot": "po",
    "md": "markdown",
    "htm": "html",
}
"""File formats by extension and by the names users type (``--format``): the one table that
import, alignment and translation read."""
_LANG_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


@dataclass(slots=True)
class Record:
    """One segment as read from a file (before language identification)."""

    tu: int
    """Translation-unit number in the document; aligned segments share it."""
    lang: str | None
    text: str
    """Normalised text (stripped, whitespace collapsed)."""
    line: int | None = None
    meta: dict[str, Any] | None = None
    group: int | None = None
    """Records sharing a group (all targets of an XLIFF ``<file>``, a TSV column) share a
    language: when the file does not say it, one guess is made for all."""
    unit: dict[str, Any] | None = None
    """The translation unit's metadata (see ``store.units``), the same dict on every record
    of the unit; None when the file has none."""


@dataclass
class ReadContext:
    """Options and the warning sink an importer reads a file with."""

    path: Path
    langs: list[str] = field(default_factory=list)
    paragraphs: bool = False
    encoding: str | None = None
    warnings: list[str] = field(default_factory=list)
    skipped: int = 0
    warning_count: int = 0
    raw: IO[bytes] | None = None
    decoded_as: str | None = None
    whole: bool = False
    """A document read whole (to align, to translate): a line over ``limits.LINE`` is
    refused rather than skipped."""
    """The codec the file's text was decoded with (set by the reader), for messages."""

    def where(self, line: int | None = None, element: str | None = None) -> str:
        """``file:line`` (or ``file (element …)``) for messages."""
        if line is not None:
            return f"{self.path}:{line}"
        if element is not None:
            return f"{self.path} ({element})"
        return str(self.path)

    def warn(
        self, message: str, line: int | None = None, element: str | None = None, skip: bool = True
    ) -> None:
        """Record a skippable problem (``skip``: the segment/row was skipped)."""
        self.skipped += int(skip)
        self.warning_count += 1
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(f"{self.where(line, element)}: {message}")

    def error(
        self,
        message: str,
        line: int | None = None,
        element: str | None = None,
        hint: str | None = None,
    ) -> DataError:
        """A fatal ``DataError`` naming the file and line/element (and the fix, ``hint``)."""
        return DataError(f"{self.where(line, element)}: {message}", hint=hint)

    def bytes_read(self) -> int:
        """Position in the (compressed) file, for progress."""
        try:
            return self.raw.tell() if self.raw is not None else 0
        except (OSError, ValueError):
            return 0


OWN_MARK = "xlsearch:"
"""How xlsearch marks what it wrote for review: a line of a PO entry's translator comment
(``xlsearch: semantic 92%, needs review``), an XLIFF 2 ``subState`` (``xlsearch:semantic-92``)."""


def marked_own(text: str | None) -> bool:
    """Whether a comment line or a ``subState`` is xlsearch's own mark (``OWN_MARK``)."""
    return (text or "").startswith(OWN_MARK)


_WS = re.compile(r"[^\S\u00a0\u2007\u202f]+")
"""Whitespace that collapses: every kind but the no-break spaces (``«\u00a0%s\u00a0»``,
``Nom\u00a0:`` — French typography, kept as the translator wrote it)."""


def normalize(text: str) -> str:
    """Strip and collapse whitespace (Unicode spaces too, but no-break spaces are kept: they
    are part of the translation); drop NULs and other C0 controls."""
    if not text:
        return ""
    text = text.translate(_CONTROL)
    return _WS.sub(" ", text).strip()


_CONTROL = {c: None for c in range(32) if chr(c) not in "\t\n\r\x0b\x0c"}


def line_breaks(raw: str) -> dict[str, Any] | None:
    """Where ``normalize(raw)`` made an inner line break a space: ``{"gaps": N, "at":
    [[k, ws], …]}`` — the k-th of the N spaces of the normalised text stands for the
    whitespace ``ws`` as written (``"\n"``, ``"\n\t"``); None when ``raw`` has no line
    break inside. A dialog's message written on two lines keeps its layout this way
    (``restore_breaks``)."""
    if "\n" not in raw and "\r" not in raw:
        return None
    text = raw.translate(_CONTROL)
    first, end = len(text) - len(text.lstrip()), len(text.rstrip())  # the words' bounds
    inner = [m for m in _WS.finditer(text) if first < m.start() and m.end() < end]
    runs = [m.group().replace("\r\n", "\n").replace("\r", "\n") for m in inner]
    at: list[list[Any]] = [[k, ws] for k, ws in enumerate(runs) if "\n" in ws]
    return {"gaps": len(inner), "at": at} if at else None


def restore_breaks(text: str, breaks: Mapping[str, Any] | None) -> str | None:
    """``text`` (a normalised text) with the line breaks ``line_breaks`` recorded put back
    in its spaces; None when it has not as many spaces as the text they were recorded on
    (another text: its words differ)."""
    if not breaks or not isinstance(breaks.get("at"), list):
        return None
    pieces = text.split(" ")
    if len(pieces) - 1 != breaks.get("gaps"):
        return None
    gaps = [" "] * (len(pieces) - 1)
    for item in breaks["at"]:
        if (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], int)
            and 0 <= item[0] < len(gaps)
        ):
            gaps[item[0]] = str(item[1])
    return pieces[0] + "".join(g + p for g, p in zip(gaps, pieces[1:], strict=True))


def keep_lang(ctx: ReadContext, lang: str | None) -> bool:
    """Whether a segment in ``lang`` is imported: ``--lang`` keeps the tags it matches as
    prefixes (``en`` keeps ``en-GB``); an unknown language is kept, to be identified among
    the ``--lang`` tags."""
    if not ctx.langs or lang is None:
        return True
    from xlsearch.engine.lang.tags import tag_matches

    return any(tag_matches(want, lang) for want in ctx.langs)


def is_lang_code(value: str) -> bool:
    """Whether a header cell looks like a language tag (``en``, ``EN``, ``pt-BR``, ``deu``).

    A capitalised word (``Yes``, ``Ja``, ``No``) is text, not a tag: the first row of a
    headerless file of short sentences must not become its column languages."""
    value = value.strip()
    primary = re.split(r"[-_]", value, maxsplit=1)[0]
    return bool(_LANG_RE.match(value)) and (primary.islower() or primary.isupper())


def named_format(fmt: str, choices: Sequence[str] = FORMATS, what: str = "format") -> str:
    """The format a user named (``txt``, ``xlf``, … are aliases); a ``DataError`` when it is
    not one of ``choices``."""
    fmt = _FORMAT_ALIASES.get(fmt, fmt)
    if fmt not in choices:
        raise DataError(f"unknown {what} {fmt!r}; choose one of {', '.join(choices)}")
    return fmt


def suffix_format(path: Path, *, gz: bool = True) -> str | None:
    """The format ``path``'s extension names (``.gz`` looked through when ``gz``), or None."""
    suffixes = [s.lower() for s in path.suffixes]
    if gz and suffixes and suffixes[-1] in (".gz", ".gzip"):
        suffixes = suffixes[:-1]
    return SUFFIXES.get(suffixes[-1]) if suffixes else None


def detect_format(path: Path, fmt: str | None = None) -> str:
    """The importer for ``path``: ``fmt`` if given, else by extension (``.gz`` looked through)."""
    if fmt:
        return named_format(fmt)
    found = suffix_format(path)
    if found is not None:
        return found
    suffixes = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".gzip")]
    what = f"'{suffixes[-1]}' files are" if suffixes else "a file without an extension is"
    raise DataError(
        f"{path}: {what} not a supported format; supported: {supported_formats()}",
        hint="convert the file, or pass --format if it is one of these under another name",
    )


def supported_formats() -> str:
    """``tmx (.tmx), xliff (.xlf .xliff …), …`` for messages."""
    by_fmt: dict[str, list[str]] = {}
    for suffix, name in SUFFIXES.items():
        by_fmt.setdefault(name, []).append(suffix)
    return ", ".join(f"{name} ({' '.join(by_fmt.get(name, []))})" for name in FORMATS)


def open_binary(ctx: ReadContext) -> IO[bytes]:
    """The file's bytes, gunzipped when it is gzip (by magic number); sets ``ctx.raw``."""
    raw = open(ctx.path, "rb")  # noqa: SIM115 - closed by the caller via the returned stream
    ctx.raw = raw
    if raw.read(2) == b"\x1f\x8b":
        raw.seek(0)
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    raw.seek(0)
    return raw


def sniff(stream: IO[bytes], ctx: ReadContext) -> tuple[str | None, bytes]:
    """(encoding from a BOM or UTF-16/32 without BOM, else None; the first bytes).

    Refuses binary files (NUL bytes that are not UTF-16/32).
    """
    try:
        head = stream.peek(4096)[:4096] if hasattr(stream, "peek") else b""
    except (OSError, EOFError) as exc:
        raise ctx.error(f"cannot read: {exc}") from exc
    enc = from_bom(head) or utf16_without_bom(head)
    if enc:
        return enc, head
    if b"\x00" in head:
        raise ctx.error("looks like a binary file (NUL bytes), not text", line=1)
    return None, head


def _raw_lines(stream: IO[bytes], ctx: ReadContext) -> Iterator[bytes | None]:
    """Byte lines of at most ``MAX_LINE_BYTES``; a longer line is read through in pieces
    (memory stays flat) and comes out as None."""
    while True:
        raw = stream.readline(MAX_LINE_BYTES)
        if not raw:
            return
        if len(raw) < MAX_LINE_BYTES or raw.endswith(b"\n"):
            yield raw
            continue
        while True:  # the rest of an over-long line, in small pieces
            more = stream.readline(1 << 16)
            if not more or more.endswith(b"\n"):
                break
        yield None


def _text_encoding(
    ctx: ReadContext, stream: IO[bytes], bom_enc: str | None
) -> tuple[str, list[bytes | None]]:
    """(encoding, the lines read to decide it): ``--encoding``, a BOM, UTF-8 when the first
    64 KiB are valid UTF-8, else charset-normalizer's guess (a warning says so)."""
    if ctx.encoding:
        return codec_name(ctx.encoding, str(ctx.path), "--encoding"), []
    if bom_enc:
        return bom_enc, []
    head: list[bytes | None] = []
    size = 0
    for raw in _raw_lines(stream, ctx):
        head.append(raw)
        size += len(raw or b"")
        if size >= GUESS_BYTES:
            break
    sample = b"".join(r for r in head if r)
    if decodes_as_utf8(sample):
        return "utf-8", head
    guess = guess_encoding(sample) or "utf-8"
    ctx.warn(
        f"not UTF-8 and no encoding given: read as {guess} (detected); "
        "pass --encoding if that is wrong",
        skip=False,
    )
    return guess, head


def iter_lines(ctx: ReadContext) -> Iterator[tuple[int, str]]:
    """(line number from 1, decoded line without its newline), streaming.

    Encoding: ``ctx.encoding``, else a BOM (UTF-8/16/32), else UTF-16/32 without BOM, else
    UTF-8 when the start of the file is valid UTF-8, else charset-normalizer's guess.
    Undecodable bytes raise ``DataError`` naming line and column and suggesting
    ``--encoding``. Lines over ``MAX_LINE_BYTES`` are skipped with a warning.
    """
    with open_binary(ctx) as stream:
        stream = stream if hasattr(stream, "peek") else io.BufferedReader(stream)  # type: ignore[arg-type,type-var]
        bom_enc, _ = sniff(stream, ctx)
        try:
            encoding, head = _text_encoding(ctx, stream, bom_enc)
            ctx.decoded_as = encoding
            if is_wide(encoding):
                yield from _wide_lines(ctx, stream, encoding)
                return
            decoder = codecs.getincrementaldecoder(encoding)()
            first = True
            for number, raw in enumerate(itertools.chain(head, _raw_lines(stream, ctx)), 1):
                if raw is None:
                    if ctx.whole:
                        raise LINE.exceeded(ctx.where(number))
                    ctx.warn(LINE.message() + SKIPPED, line=number)
                    continue
                if first and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[3:]
                first = False
                try:
                    line = decoder.decode(raw)
                except UnicodeDecodeError as exc:
                    raise decode_error(
                        f"{ctx.path}:{number}", encoding, exc, raw, f" at column {exc.start + 1}"
                    ) from exc
                if "\x00" in line:
                    raise ctx.error("looks like a binary file (NUL bytes), not text", line=number)
                yield number, line.rstrip("\r\n")
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise ctx.error(f"cannot read (corrupt or truncated file?): {exc}") from exc


def _wide_lines(ctx: ReadContext, stream: IO[bytes], encoding: str) -> Iterator[tuple[int, str]]:
    text = io.TextIOWrapper(stream, encoding=encoding, newline="")  # type: ignore[arg-type]
    number = 0
    try:
        while True:
            line = text.readline(MAX_LINE_BYTES // 2)
            if not line:
                return
            number += 1
            if not line.endswith(("\n", "\r")) and len(line) >= MAX_LINE_BYTES // 2:
                while (more := text.readline(MAX_LINE_BYTES // 2)) and not more.endswith("\n"):
                    pass
                if ctx.whole:
                    raise LINE.exceeded(ctx.where(number))
                ctx.warn(LINE.message() + SKIPPED, line=number)
                continue
            yield number, line.rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise decode_error(f"{ctx.path}:{number + 1}", encoding, exc, exc.object) from exc


def check_text(ctx: ReadContext, text: str, line: int | None, element: str | None = None) -> bool:
    """False (with a warning) for empty or oversized segments."""
    if not text:
        ctx.warn("empty segment skipped", line=line, element=element)
        return False
    if len(text) > MAX_SEGMENT_CHARS:
        ctx.warn(
            SEGMENT.message(len(text)) + SKIPPED,
            line=line,
            element=element,
        )
        return False
    return True


def langs_option(langs: Sequence[str] | str | None) -> list[str]:
    """``"en,de"`` or ``["en", "de"]`` → normalised codes; invalid codes raise ``DataError``."""
    if langs is None:
        return []
    items = langs.split(",") if isinstance(langs, str) else list(langs)
    out = []
    for item in items:
        for part in str(item).split(","):
            if not part.strip():
                continue
            code = normalize_lang(part)
            if code is None:
                raise DataError(
                    f"not a language code: {part.strip()!r}",
                    hint="use a BCP 47 code such as en, de-DE, pt-BR or zh-Hant",
                )
            out.append(code)
    return out
