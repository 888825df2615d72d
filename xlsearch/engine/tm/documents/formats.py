"""Each document format's reader and writer, for ``Document`` (split, merge, save)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xlsearch.engine.tm.documents import html, simple, xliff


def load(kind: str, path: Path, src: str | None, encoding: str | None = None) -> Any:
    """Read ``path`` as ``kind`` (XLIFF units stay whole; an analysis splits them);
    ``encoding`` (``--encoding``) overrides what a PO, text or HTML file declares or seems
    to be in."""
    import sys

    if encoding and kind in ("xliff", "docx"):
        from xlsearch.engine.errors import ConfigError

        raise ConfigError(
            f"{path}: --encoding is for PO, text and HTML files ({kind} says its own encoding)",
            hint="leave --encoding out",
        )
    if kind == "xliff":
        doc = xliff.load(path, split=False)
    elif kind == "po":
        doc = simple.load_po(path, encoding)
    elif kind == "docx":
        doc = simple.load_docx(path, src)
    elif kind == "html":
        doc = html.load_html(path, src, encoding)
    else:
        doc = simple.load_text(path, src, encoding)
    doc.codec = sys.modules[__name__]
    return doc


def dump(doc: Any, as_xliff: bool) -> bytes:
    """The document's bytes in its own format, or as XLIFF 2.0 when ``as_xliff``."""
    if as_xliff:
        return xliff.as_xliff2(doc)
    if doc.fmt == "xliff":
        return xliff.dump(doc)
    if doc.fmt == "po":
        return simple.dump_po(doc)
    if doc.fmt == "docx":
        return simple.dump_docx(doc)
    if doc.fmt == "html":
        return html.dump_html(doc)
    return simple.dump_text(doc)


def split_segment(doc: Any, index: int) -> Any:
    """An XLIFF unit or a PO entry of several sentences as one segment a sentence."""
    if doc.fmt == "po":
        return simple.split_po(doc, index)
    return xliff.split_segment(doc, index)


def merge_segments(doc: Any, first: int, last: int) -> Any:
    """A paragraph's sentences as one segment again (``simple``)."""
    return simple.merge_segments(doc, first, last)
