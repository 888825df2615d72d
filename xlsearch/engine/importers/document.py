"""Documents translators hold — plain text, Markdown, DOCX, HTML — as paragraphs of sentences.

One well-kept library per format: markdown-it-py (CommonMark tokens), python-docx (body
paragraphs and table cells in reading order), BeautifulSoup over lxml (block elements of a
lenient HTML parse). Paragraphs are kept as structure: every sentence carries the index of
its paragraph, which the aligner uses as anchors and ``xlsearch import`` stores as metadata.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers.base import (
    MAX_SEGMENT_CHARS,
    ReadContext,
    Record,
    check_text,
    iter_lines,
    normalize,
)
from xlsearch.engine.importers.limits import SEGMENT, check_file, check_lines
from xlsearch.engine.runtime.pathcheck import require_file

DOCUMENT_FORMATS = ("text", "markdown", "docx", "html")
_HTML_BLOCKS = (
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "td",
    "th",
    "dt",
    "dd",
    "blockquote",
    "pre",
    "caption",
    "figcaption",
    "div",
    "section",
    "article",
)


@dataclass
class SentenceDocument:
    """A document split into sentences; ``paragraphs[k]`` is the paragraph of sentence k."""

    path: str
    lang: str
    sentences: list[str] = field(default_factory=list)
    paragraphs: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.sentences)

    @classmethod
    def from_sentences(
        cls,
        sentences: list[str],
        lang: str = "en",
        path: str = "",
        paragraphs: list[int] | None = None,
    ) -> SentenceDocument:
        """A document from ready sentences (one paragraph unless ``paragraphs`` is given)."""
        return cls(path, lang, list(sentences), list(paragraphs or [0] * len(sentences)))


def document_format(path: Path, fmt: str | None = None) -> str:
    """``fmt`` or the document format implied by the file's extension."""
    from xlsearch.engine.importers.base import named_format, suffix_format

    if fmt:
        return named_format(fmt, DOCUMENT_FORMATS, "document format")
    found = suffix_format(path, gz=False)
    if found not in DOCUMENT_FORMATS:
        raise DataError(
            f"{path}: not a document format xlsearch reads",
            hint="use .txt, .md, .docx or .html (or --presplit for one sentence per line)",
        )
    return found


DOCUMENT_HINT = "name one document in it (.txt, .md, .docx or .html)"


def read_paragraphs(path: Path, fmt: str | None = None, encoding: str | None = None) -> list[str]:
    """The paragraphs (normalised text blocks: headings, list items, cells …) of a document."""
    path = Path(path)
    require_file(path, DOCUMENT_HINT)
    check_file(path)
    fmt = document_format(path, fmt)
    if fmt == "docx":
        blocks = _docx_blocks(path)
        check_lines(path, blocks, unit="paragraph")
    else:
        text = _read_text(path, encoding)
        if fmt == "markdown":
            blocks = _markdown_blocks(text)
        elif fmt == "html":
            blocks = _html_blocks(text)
        else:
            blocks = _text_blocks(text)
    return [b for b in (normalize(x) for x in blocks) if b]


def read_document(
    path: Path | str,
    lang: str | None = None,
    *,
    fmt: str | None = None,
    presplit: bool = False,
    encoding: str | None = None,
) -> SentenceDocument:
    """Read and sentence-split a document; ``presplit``: one sentence per line as given
    (blank lines separate paragraphs). ``lang`` picks the splitting rules; without it the
    language is identified from the text."""
    path = Path(path).expanduser()
    require_file(path, DOCUMENT_HINT)
    if presplit:
        sentences, paras = _presplit(path, encoding)
        return SentenceDocument(str(path), lang or _guess_lang(sentences), sentences, paras)
    blocks = read_paragraphs(path, fmt, encoding)
    if not lang:
        from xlsearch.engine.lang.doclang import filename_lang

        declared = _html_lang(path, encoding) if document_format(path, fmt) == "html" else None
        lang = _guess_lang(blocks, declared or filename_lang(path))
    doc = SentenceDocument(str(path), lang)
    from xlsearch.engine.lang.sentences import split_sentences

    for k, block in enumerate(blocks):
        for sentence in split_sentences(block, lang):
            doc.sentences.append(sentence)
            doc.paragraphs.append(k)
    return doc


def require_text(doc: SentenceDocument) -> SentenceDocument:
    """``doc`` itself, or a ``DataError`` naming it when it has no sentence (nothing to align)."""
    if not doc.sentences:
        raise DataError(
            f"{doc.path}: no text to align (the document is empty or has no readable text)",
            hint="check that you gave the right file; a scanned PDF or an image has no text",
        )
    return doc


def read_document_records(ctx: ReadContext, fmt: str) -> Iterator[Record]:
    """``xlsearch import`` of a Markdown/DOCX/HTML file: one record per sentence, its
    paragraph in ``meta``; language from ``--lang``, else an HTML page's ``lang`` where the
    text agrees with it (as ``align`` reads it), else the document's, decided once for all
    its sentences (``doclang``)."""
    from xlsearch.engine.lang.doclang import DOCUMENT_GROUP

    lang = ctx.langs[0] if ctx.langs else None
    doc = read_document(ctx.path, lang, fmt=fmt, encoding=ctx.encoding)
    if lang is None and fmt == "html" and doc.lang == _html_lang(ctx.path, ctx.encoding):
        lang = doc.lang
    for tu, (sentence, para) in enumerate(zip(doc.sentences, doc.paragraphs, strict=True)):
        if check_text(ctx, sentence, None, element=f"paragraph {para + 1}"):
            yield Record(tu, lang, sentence, None, {"paragraph": para}, group=DOCUMENT_GROUP)


def _guess_lang(texts: list[str], declared: str | None = None) -> str:
    """The texts' identified language; the ``declared`` tag (``<html lang="en-GB">``) where
    identification agrees with it or is unsure, so a region is kept and a stale label is not;
    a short unsure text without one is ``lang.identify.settle``d (English over Kikuyu)."""
    from xlsearch.engine.lang.doclang import GROUP_SHORT
    from xlsearch.engine.lang.identify import UNDETERMINED, classify, settle
    from xlsearch.engine.lang.tags import primary

    sample = " ".join(texts[:50])[:5000]
    lang, prob = classify(sample) if sample else (UNDETERMINED, 0.0)
    if declared and (lang == UNDETERMINED or prob < 0.5 or primary(declared) == lang):
        return declared
    lang = settle(sample, lang, prob, short=GROUP_SHORT)
    return "en" if lang == UNDETERMINED else lang


def _html_lang(path: Path, encoding: str | None) -> str | None:
    """The language an HTML page declares (``<html lang>`` or ``xml:lang``), normalised."""
    from bs4 import BeautifulSoup

    from xlsearch.engine.importers.base import normalize_lang

    root = BeautifulSoup(_read_text(path, encoding), "lxml").find("html")
    if root is None:
        return None
    return normalize_lang(str(root.get("lang") or root.get("xml:lang") or "")) or None


def _read_text(path: Path, encoding: str | None) -> str:
    ctx = ReadContext(path, encoding=encoding, whole=True)
    return "\n".join(line for _, line in iter_lines(ctx))


def _presplit(path: Path, encoding: str | None) -> tuple[list[str], list[int]]:
    ctx = ReadContext(path, encoding=encoding, whole=True)
    sentences: list[str] = []
    paras: list[int] = []
    para, blank = 0, False
    for number, line in iter_lines(ctx):
        text = normalize(line)
        if not text:
            blank = bool(sentences)
            continue
        if len(text) > MAX_SEGMENT_CHARS:
            raise SEGMENT.exceeded(ctx.where(number), len(text))
        if blank:
            para, blank = para + 1, False
        sentences.append(text)
        paras.append(para)
    return sentences, paras


def _text_blocks(text: str) -> list[str]:
    blocks, buf = [], []
    for line in text.splitlines():
        if line.strip():
            buf.append(line)
        elif buf:
            blocks.append(" ".join(buf))
            buf = []
    if buf:
        blocks.append(" ".join(buf))
    return blocks


def _markdown_blocks(text: str) -> list[str]:
    """Text of every inline run (paragraph, heading, list item, table cell), markup removed;
    YAML front matter (Jekyll, Hugo) is metadata, not text."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin

    tokens = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).parse(text)
    blocks = []
    for tok in tokens:
        if tok.type == "inline":
            parts = []
            for child in tok.children or []:
                if child.type in ("text", "code_inline"):
                    parts.append(child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    parts.append(" ")
                elif child.type == "image":
                    parts.append(child.content)
            blocks.append("".join(parts))
        elif tok.type in ("fence", "code_block"):
            continue  # code is not translated prose
    return blocks


def _html_blocks(text: str) -> list[str]:
    """Text of the innermost block elements (p, h1–h6, li, td …); script/style dropped."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "lxml")
    title = soup.title.get_text(" ") if soup.title else ""
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    blocks = [title] if title.strip() else []
    for el in soup.find_all(_HTML_BLOCKS):
        if el.find(_HTML_BLOCKS):
            # text directly inside a container (outside its child blocks) is a block too
            loose = " ".join(s for s in el.find_all(string=True, recursive=False) if s.strip())
            if loose.strip():
                blocks.append(loose)
            continue
        for br in el.find_all("br"):
            br.replace_with(" ")
        blocks.append(el.get_text(" "))
    if len(blocks) <= bool(title.strip()) and soup.get_text(strip=True):
        blocks = _text_blocks(soup.get_text("\n"))
    elif (
        len(blocks) > 1 and title.strip() and " ".join(blocks[1].split()) == " ".join(title.split())
    ):
        del blocks[0]  # <title>Help</title> … <h1>Help</h1>: one segment, not two
    return blocks


DOCX_RUNS = "./w:r | ./w:hyperlink/w:r | ./w:ins/w:r | ./w:moveTo/w:r | ./w:smartTag/w:r"
"""A paragraph's runs whose text Word shows: its own, in links, and tracked insertions and
moves (an unaccepted deletion, ``w:del``, is not shown)."""


def docx_paragraph_text(para: object) -> str:
    """The text of a python-docx paragraph as Word shows it (tracked changes accepted);
    python-docx's ``Paragraph.text`` leaves inserted text out."""
    from docx.text.run import Run

    return "".join(Run(r, para).text for r in para._p.xpath(DOCX_RUNS))  # type: ignore[attr-defined,arg-type]


def docx_paragraphs(document: object) -> list[object]:
    """A python-docx document's body paragraphs in reading order: table cells (a merged cell
    once) and content controls (``w:sdt``) included, nested tables too."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    def walk(parent: object, element: object) -> Iterator[object]:
        for child in element.iterchildren():  # type: ignore[attr-defined]
            tag = child.tag.rsplit("}", 1)[-1]
            if tag == "p":
                yield Paragraph(child, parent)  # type: ignore[arg-type]
            elif tag == "tbl":
                seen: list[object] = []
                for row in Table(child, parent).rows:  # type: ignore[arg-type]
                    for cell in row.cells:
                        if any(cell._tc is tc for tc in seen):  # a merged cell repeats
                            continue
                        seen.append(cell._tc)
                        yield from walk(cell, cell._tc)
            elif tag == "sdt":
                content = child.find(child.tag.replace("sdt", "sdtContent"))
                if content is not None:
                    yield from walk(parent, content)

    return list(walk(document, document.element.body))  # type: ignore[attr-defined]


def _docx_blocks(path: Path) -> list[str]:
    """Body paragraphs and table-cell paragraphs of a .docx, in reading order."""
    import docx

    try:
        document = docx.Document(str(path))
        return [docx_paragraph_text(p) for p in docx_paragraphs(document)]
    except Exception as exc:  # a damaged zip raises BadZipFile, zlib.error, KeyError, lxml …
        raise DataError(
            f"{path}: not a readable .docx file ({exc})",
            hint="save it again as .docx (Word 2007+), or export it as .txt or .html",
        ) from exc
