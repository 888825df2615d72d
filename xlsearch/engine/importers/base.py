"""What every importer shares: records, format detection, decoding, warnings, normalisation."""

from __future__ import annotations

import codecs
import gzip
import io
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from xlsearch.engine.errors import DataError

MAX_SEGMENT_CHARS = 100_000
MAX_WARNINGS = 200

FORMATS = ("tmx", "xliff", "tsv", "csv", "text", "jsonl")
_SUFFIXES = {
    ".tmx": "tmx",
    ".xlf": "xliff",
    ".xliff": "xliff",
    ".sdlxliff": "xliff",
    ".mqxliff": "xliff",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".csv": "csv",
    ".txt": "text",
    ".text": "text",
    ".md": "text",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
_LANG_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
# ISO 639-3/-2 codes seen in corpora (Tatoeba, OPUS) mapped to the 639-1 codes langid uses.
_THREE = {
    "eng": "en",
    "deu": "de",
    "ger": "de",
    "fra": "fr",
    "fre": "fr",
    "spa": "es",
    "ita": "it",
    "por": "pt",
    "nld": "nl",
    "dut": "nl",
    "rus": "ru",
    "pol": "pl",
    "ces": "cs",
    "cze": "cs",
    "tur": "tr",
    "ara": "ar",
    "zho": "zh",
    "chi": "zh",
    "cmn": "zh",
    "jpn": "ja",
    "kor": "ko",
    "isl": "is",
    "ice": "is",
    "swe": "sv",
    "dan": "da",
    "nor": "no",
    "nob": "nb",
    "fin": "fi",
    "ell": "el",
    "gre": "el",
    "heb": "he",
    "hin": "hi",
    "ukr": "uk",
    "hun": "hu",
    "ron": "ro",
    "rum": "ro",
    "bul": "bg",
    "hrv": "hr",
    "srp": "sr",
    "slk": "sk",
    "slv": "sl",
    "est": "et",
    "lav": "lv",
    "lit": "lt",
    "vie": "vi",
    "tha": "th",
    "ind": "id",
    "msa": "ms",
    "fas": "fa",
    "per": "fa",
    "cat": "ca",
    "eus": "eu",
    "glg": "gl",
    "epo": "eo",
    "lat": "la",
}


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
    """Records sharing a group (e.g. a TSV column) probably share a language: an unsure
    identification of a short text falls back to its group's majority."""


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

    def error(self, message: str, line: int | None = None, element: str | None = None) -> DataError:
        """A fatal ``DataError`` naming the file and line/element."""
        return DataError(f"{self.where(line, element)}: {message}")

    def bytes_read(self) -> int:
        """Position in the (compressed) file, for progress."""
        try:
            return self.raw.tell() if self.raw is not None else 0
        except (OSError, ValueError):
            return 0


_WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Strip and collapse whitespace (incl. Unicode spaces); drop NULs and other C0 controls."""
    if not text:
        return ""
    text = text.translate(_CONTROL)
    return _WS.sub(" ", text).strip()


_CONTROL = {c: None for c in range(32) if chr(c) not in "\t\n\r\x0b\x0c"}


def normalize_lang(tag: str | None) -> str | None:
    """``en-US``/``EN_us`` → ``en``; ``deu`` → ``de``; anything unparseable → None."""
    if not tag:
        return None
    tag = tag.strip()
    if not _LANG_RE.match(tag):
        return None
    primary = tag.replace("_", "-").split("-")[0].lower()
    return _THREE.get(primary, primary)


def is_lang_code(value: str) -> bool:
    """Whether a header cell looks like a language tag (``en``, ``pt-BR``, ``deu``)."""
    return bool(_LANG_RE.match(value.strip()))


def detect_format(path: Path, fmt: str | None = None) -> str:
    """The importer for ``path``: ``fmt`` if given, else by extension (``.gz`` looked through)."""
    if fmt:
        fmt = {"txt": "text", "xlf": "xliff", "json": "jsonl", "tab": "tsv"}.get(fmt, fmt)
        if fmt not in FORMATS:
            raise DataError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        return fmt
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".gzip"):
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _SUFFIXES:
        return _SUFFIXES[suffixes[-1]]
    raise DataError(
        f"{path}: cannot tell the format from the file name",
        hint=f"pass --format ({', '.join(FORMATS)})",
    )


def open_binary(ctx: ReadContext) -> IO[bytes]:
    """The file's bytes, gunzipped when it is gzip (by magic number); sets ``ctx.raw``."""
    raw = open(ctx.path, "rb")  # noqa: SIM115 - closed by the caller via the returned stream
    ctx.raw = raw
    if raw.read(2) == b"\x1f\x8b":
        raw.seek(0)
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    raw.seek(0)
    return raw


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def sniff(stream: IO[bytes], ctx: ReadContext) -> tuple[str | None, bytes]:
    """(encoding from a BOM or None, first bytes); refuses binary files (NUL bytes)."""
    try:
        head = stream.peek(4096)[:4096] if hasattr(stream, "peek") else b""
    except (OSError, EOFError) as exc:
        raise ctx.error(f"cannot read: {exc}") from exc
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc, head
    if b"\x00" in head:
        raise ctx.error("looks like a binary file (NUL bytes), not text", line=1)
    return None, head


def iter_lines(ctx: ReadContext) -> Iterator[tuple[int, str]]:
    """(line number from 1, decoded line without its newline), streaming.

    UTF-8 (with or without BOM) and UTF-16/32 with BOM are recognised; other encodings only
    with ``ctx.encoding``. Undecodable bytes raise ``DataError`` naming line and column.
    """
    with open_binary(ctx) as stream:
        stream = stream if hasattr(stream, "peek") else io.BufferedReader(stream)  # type: ignore[arg-type]
        bom_enc, _ = sniff(stream, ctx)
        try:
            if bom_enc in ("utf-16", "utf-32"):
                text = io.TextIOWrapper(stream, encoding=bom_enc, newline="")
                number = 0
                try:
                    for number, line in enumerate(text, 1):  # noqa: B007
                        yield number, line.rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    raise ctx.error(f"not valid {bom_enc}: {exc.reason}", line=number + 1) from exc
                return
            encoding = ctx.encoding or "utf-8"
            first = True
            for number, raw in enumerate(stream, 1):
                if first and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[3:]
                first = False
                try:
                    line = raw.decode(encoding)
                except UnicodeDecodeError as exc:
                    raise ctx.error(
                        f"not valid {encoding} (byte 0x{raw[exc.start]:02x} at column "
                        f"{exc.start + 1})",
                        line=number,
                    ) from exc
                except LookupError as exc:
                    raise DataError(f"unknown encoding {encoding!r}") from exc
                if "\x00" in line:
                    raise ctx.error("NUL byte: a binary file or a wrong encoding", line=number)
                yield number, line.rstrip("\r\n")
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise ctx.error(f"cannot read (corrupt or truncated file?): {exc}") from exc


def check_text(ctx: ReadContext, text: str, line: int | None, element: str | None = None) -> bool:
    """False (with a warning) for empty or oversized segments."""
    if not text:
        ctx.warn("empty segment skipped", line=line, element=element)
        return False
    if len(text) > MAX_SEGMENT_CHARS:
        ctx.warn(
            f"segment of {len(text):,} characters skipped (limit {MAX_SEGMENT_CHARS:,})",
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
                raise DataError(f"not a language code: {part.strip()!r}")
            out.append(code)
    return out
