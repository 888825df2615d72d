"""HTML pages to translate: their block elements' text as paragraphs of sentences.

Read with BeautifulSoup's ``html.parser`` (it keeps the page as written: doctype, comments,
attribute order), the blocks as ``xlsearch import`` reads them (``p``, ``h1``–``h6``,
``li``, ``td`` … the innermost ones, and the ``title``). Written back, a paragraph with a
translation gets it in place of its text; its inline elements (a link, ``code``, a bold
product name) are kept where the translation holds their text exactly once, as whole
words. A paragraph whose inline elements the translation does not keep stays in the source
language (the page stays valid, and ``analyze`` says how many): an XLIFF output keeps them
for a CAT tool.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

BLOCKS = (
    "title", "p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "dt", "dd",
    "blockquote", "pre", "caption", "figcaption", "div", "section", "article",
)  # fmt: skip
_SKIP = ("script", "style", "noscript", "template")
_META_CHARSET = re.compile(r"charset\s*=\s*[\w.:-]+", re.IGNORECASE)


def _blocks(soup: Any) -> list[Any]:
    """The innermost block elements that hold text, in document order (``title`` first)."""
    out = []
    for el in soup.find_all(BLOCKS):
        if el.name != "title" and el.find(BLOCKS):
            continue  # a container: its blocks are read
        if el.find_parent(_SKIP) or not el.get_text(strip=True):
            continue
        out.append(el)
    return out


def _text(el: Any) -> str:
    return " ".join(el.get_text(" ").split())


def load_html(path: Path, src: str | None, encoding: str | None = None) -> Any:
    """An HTML page as a document: one paragraph per block, split into sentences; the
    language from ``src``, else the page's ``lang`` where its text agrees, else its text."""
    from bs4 import BeautifulSoup

    from xlsearch.engine.importers.base import normalize_lang
    from xlsearch.engine.importers.limits import check_lines
    from xlsearch.engine.lang.doclang import filename_lang, hinted
    from xlsearch.engine.lang.sentences import split_sentences
    from xlsearch.engine.tm.documents.document import Document
    from xlsearch.engine.tm.documents.simple import decode_file, sentence_segments

    soup = BeautifulSoup(decode_file(path, encoding), "html.parser")
    blocks = _blocks(soup)
    texts = [_text(el) for el in blocks]
    check_lines(path, texts, unit="paragraph")
    root = soup.find("html")
    declared = normalize_lang(str(root.get("lang") or "")) if root is not None else None
    sample = " \n".join(texts[:200])[:20000]
    hint = declared or filename_lang(path)
    lang = src or (hinted(sample, hint) if sample.strip() else (hint or ""))
    sents = [(i, s) for i, t in enumerate(texts) for s in split_sentences(t, lang)]
    return Document(path, "html", lang, "", sentence_segments(sents, "¶"), (soup, blocks, []))


def _place(el: Any, text: str, sentences: dict[str, str] | None = None) -> bool:
    """Put ``text`` in block ``el``: its inline elements kept where ``text`` holds their
    text exactly once (as whole words), or — an element around a whole sentence (a bold
    warning) — around that sentence's translation (``sentences``: source → as written);
    in that order; False (nothing changed) when one of them cannot be placed."""
    import copy

    from bs4 import NavigableString, Tag

    inline = [c for c in el.children if isinstance(c, Tag)]
    placed: list[tuple[int, int, Any]] = []
    for tag in inline:
        if tag.name == "br":
            continue  # a line break inside a paragraph: the translation has its own flow
        words = _text(tag)
        hits = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(words)}(?!\w)", text)]
        if words and len(hits) != 1 and sentences and words in sentences:
            words = sentences[words]  # the element holds a whole sentence: its translation
            hits = [m.start() for m in re.finditer(re.escape(words), text)]
        if not words or len(hits) != 1:
            return False
        placed.append((hits[0], hits[0] + len(words), tag))
    placed.sort(key=lambda p: p[0])
    if any(a[1] > b[0] for a, b in zip(placed, placed[1:], strict=False)):
        return False
    pieces: list[Any] = []
    at = 0
    for start, end, tag in placed:
        pieces.append(NavigableString(text[at:start]))
        new = copy.copy(tag)
        new.clear()
        new.append(NavigableString(text[start:end]))
        pieces.append(new)
        at = end
    pieces.append(NavigableString(text[at:]))
    el.clear()
    for piece in pieces:
        if not isinstance(piece, NavigableString) or str(piece):
            el.append(piece)
    return True


def dump_html(doc: Any) -> bytes:
    """The page with each translated paragraph in place (``_place``), ``<html lang>`` the
    target language, written as UTF-8 (a ``meta`` charset says so)."""
    from xlsearch.engine.tm.documents.simple import paragraph_texts

    soup, blocks, unwritten = doc.handle
    unwritten.clear()
    sentences = {" ".join(s.source.split()): s.target.strip() or s.source for s in doc.segments}
    for p, text in paragraph_texts(doc).items():
        if " ".join(text.split()) != _text(blocks[p]) and not _place(blocks[p], text, sentences):
            unwritten.append(p)
    root = soup.find("html")
    if root is not None and doc.tgt:
        root["lang"] = doc.tgt
    for meta in soup.find_all("meta"):
        if meta.get("charset"):
            meta["charset"] = "utf-8"
        elif "charset" in str(meta.get("content", "")).lower():
            meta["content"] = _META_CHARSET.sub("charset=utf-8", meta["content"])
    return str(soup).encode("utf-8")


__all__ = ["BLOCKS", "dump_html", "load_html"]
