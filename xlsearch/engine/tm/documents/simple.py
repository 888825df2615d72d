"""PO (polib), plain text and DOCX (python-docx) documents to translate.

PO: one segment per entry (obsolete entries and the header skipped), the source language
from ``X-Source-Language`` or identified from the msgids (English when unclear); a target set by
xlsearch is written with the ``fuzzy`` flag, ``#| msgid`` = the memory's source (gettext's
own way to show what changed) and a translator comment with the match quality. An
untranslated entry of several sentences can be split into one segment a sentence
(``split_po``, as Trados and memoQ segment PO entries; plural entries stay whole): its
msgstr is then the sentences' targets joined as the msgid joins its sentences. Text and
DOCX: every paragraph split into sentences; saving writes the paragraph with each sentence
replaced by its target (sentences without one stay in the source language).
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers.base import marked_own
from xlsearch.engine.importers.limits import check_lines


def _note(seg: Any) -> str:
    if seg.quality is None:
        return "xlsearch: edited, needs review"
    what = "semantic match" if seg.origin == "semantic" else "fuzzy match"
    quality = f"{seg.quality:.0f}"
    context = getattr(seg, "context_match", "")
    if context and seg.origin == "fuzzy" and seg.quality >= 100:
        quality = "101"  # as the report says: the file's own fields stop at 100
    repairs = getattr(seg, "repairs", None) or []
    done = "".join(f"; {r}" for r in [*([context] if context else []), *repairs])
    return f"xlsearch: {what} {quality}%, needs review{done}"


# -- PO ------------------------------------------------------------------------------------
def load_po(path: Path, encoding: str | None = None) -> Any:
    """A PO job, read as ``xlsearch import`` reads a catalogue (``importers.po.read_catalogue``:
    the same decoding, ``--encoding``, and the same refusals, in the same words)."""
    from xlsearch.engine.importers.base import ReadContext, normalize_lang
    from xlsearch.engine.importers.po import catalogue_project, parse_catalogue, read_catalogue
    from xlsearch.engine.tm.documents.document import DocSegment, Document

    original = read_catalogue(ReadContext(path, encoding=encoding or None, whole=True))
    try:
        po = parse_catalogue(original, wrapwidth=78)
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: not a readable PO file: {exc}") from exc
    segs: list[DocSegment] = []
    nplurals = _nplurals(po.metadata.get("Plural-Forms", ""))
    for entry in po:
        if entry.obsolete or not entry.msgid:
            continue
        target = entry.msgstr or (entry.msgstr_plural.get(0, "") if entry.msgid_plural else "")
        key = (f"{entry.msgctxt}\x04" if entry.msgctxt else "") + entry.msgid
        segs.append(
            DocSegment(
                len(segs),
                key[:80],
                entry.msgid,
                target,
                "fuzzy" if entry.fuzzy else ("translated" if target else ""),
                note="; ".join(x for x in (entry.comment, entry.msgctxt or "") if x),
                confirmed=bool(target.strip()) and not entry.fuzzy,
                ref=entry,
                context=entry.msgctxt or "",
                plurals=(nplurals or max(2, len(entry.msgstr_plural))) if entry.msgid_plural else 0,
                plural_source=entry.msgid_plural or "",
            )
        )
    from xlsearch.engine.lang.doclang import filename_lang

    # the header's Language, else the one the name carries (pt_BR.po), as import reads it
    lang = normalize_lang(po.metadata.get("Language", "")) or filename_lang(path) or ""
    src = normalize_lang(po.metadata.get("X-Source-Language", "")) or _msgid_lang(segs)
    po.original_text = original  # written back line for line (``po_text``)
    po.bom = _starts_with_bom(path)  # and a BOM kept (Windows editors write one)
    po.changed_entries = set()
    doc = Document(path, "po", src, lang, segs, po)
    doc.project = catalogue_project(po.metadata)
    return doc


def _starts_with_bom(path: Path) -> bool:
    """Whether the file starts with a byte-order mark (UTF-8, 16 or 32)."""
    from xlsearch.engine.importers.encoding import from_bom

    with open(path, "rb") as fh:
        return from_bom(fh.read(4)) is not None


def _nplurals(header: str) -> int:
    """``nplurals`` of a ``Plural-Forms`` header (0: none or unreadable)."""
    m = re.search(r"nplurals\s*=\s*(\d+)", header)
    return int(m.group(1)) if m else 0


def _msgid_lang(segs: list[Any]) -> str:
    """The msgids' language when clearly identified (a German→English PO), else gettext's
    convention, English."""
    from xlsearch.engine.lang.identify import classify

    lang, prob = classify("\n".join(s.source for s in segs[:200]))
    return lang if prob >= 0.9 else "en"


def po_sentences(doc: Any, seg: Any) -> list[str]:
    """The sentences a whole, untranslated PO entry splits into (``split_po``), or ``[]``
    when it stays one segment: one sentence, a plural entry (its forms are written whole),
    a target, or a msgid whose sentences the splitter does not give back word for word."""
    entry = seg.ref
    if (
        entry is None
        or entry.msgid_plural
        or seg.source != entry.msgid
        or seg.target.strip()
        or seg.locked
    ):
        return []
    from xlsearch.engine.lang.sentences import split_sentences
    from xlsearch.engine.tm.documents.xliff_segment import sentence_spans

    found = split_sentences(entry.msgid, doc.src or "en")
    if len(found) < 2 or sentence_spans(entry.msgid, found) is None:
        return []
    return found


def split_po(doc: Any, index: int) -> list[Any] | None:
    """Segment ``index`` of a PO document (a whole entry of several sentences, no target) as
    one segment a sentence, keyed ``<entry>/1``, ``<entry>/2`` …, each with the entry as its
    ``ref``; None when it stays whole (``po_sentences``)."""
    from xlsearch.engine.tm.documents.document import DocSegment

    seg = doc.segments[index]
    found = po_sentences(doc, seg)
    if not found:
        return None
    return [
        DocSegment(index + k, f"{seg.key}/{k + 1}", text, note=seg.note, ref=seg.ref)
        for k, text in enumerate(found)
    ]


def _po_groups(doc: Any) -> list[list[Any]]:
    """The segments of each entry, in order: one for a whole entry, its sentences for a
    split one."""
    groups: list[list[Any]] = []
    for seg in doc.segments:
        if groups and groups[-1][0].ref is seg.ref:
            groups[-1].append(seg)
        else:
            groups.append([seg])
    return groups


def _join_po(doc: Any, entry: Any, segs: list[Any], texts: list[str | None]) -> str:
    """``texts`` (one per sentence of ``entry``; None: the sentence as the msgid has it) as
    one text: what lies between and around the msgid's sentences (a space, a line break)
    between and around them (``join_sentences``: no space after a Chinese or Japanese
    sentence)."""
    from xlsearch.engine.lang.sentences import join_sentences
    from xlsearch.engine.tm.documents.xliff_segment import sentence_spans

    spans = sentence_spans(entry.msgid, [s.source for s in segs])
    if spans is None:  # cannot happen for a split made by ``split_po``
        return join_sentences([t or s.source for t, s in zip(texts, segs, strict=True)])
    raw = entry.msgid
    pieces = [t if t is not None else raw[a:b] for t, (a, b) in zip(texts, spans, strict=True)]
    between = [raw[a[1] : b[0]] for a, b in zip(spans, spans[1:], strict=False)]
    inner = join_sentences(pieces, doc.tgt, between)
    return raw[: spans[0][0]] + inner + raw[spans[-1][1] :]


def _write_split_po(doc: Any, entry: Any, segs: list[Any]) -> None:
    """Write the sentences of a split entry as its msgstr: each sentence's target, a
    sentence without one left in the source language (the entry then stays ``fuzzy``, and
    the comment says which); ``fuzzy`` unless every sentence is confirmed; ``#| msgid``
    the memory's sources joined the same way, where they differ from the msgid."""
    from xlsearch.engine.tm.documents.confirmation import confirm_po, unconfirm_po

    entry.msgstr = _join_po(doc, entry, segs, [s.target.strip() or None for s in segs])
    for seg in segs:
        seg.changed = False
    if all(s.confirmed for s in segs):
        confirm_po(entry)
        return
    unconfirm_po(entry)
    sources = [  # a sentence's own words (a 100 % match): as the msgid has them
        s.match_source
        if s.target.strip() and s.match_source and s.match_source.split() != s.source.split()
        else None
        for s in segs
    ]
    previous = _join_po(doc, entry, segs, sources)
    entry.previous_msgid = previous if previous != entry.msgid else None
    what = [
        ("confirmed" if s.confirmed else _note(s).removeprefix("xlsearch: ").split(",")[0])
        if s.target.strip()
        else "no target (source text kept)"
        for s in segs
    ]
    if len(set(what)) == 1:
        note = f"{len(segs)} sentences, each {what[0]}"
    else:
        note = "sentences: " + " · ".join(what)
    lines = [x for x in (entry.tcomment or "").splitlines() if not marked_own(x)]
    entry.tcomment = "\n".join([*lines, f"xlsearch: {note}, needs review"])


def po_layout(msgid: str, target: str, breaks: Mapping[str, Any] | None) -> str | None:
    """``target`` with the line breaks its memory unit had (``breaks``:
    ``Match.target_breaks``), for a ``msgid`` of several lines; None when the msgid is one
    line, the unit had none, or ``target`` is no longer the text they were recorded on."""
    if "\n" not in msgid.strip("\n") or "\n" in target.strip("\n"):
        return None
    from xlsearch.engine.importers.base import restore_breaks

    return restore_breaks(target, breaks)


def po_lines(msgid: str, target: str, src: str, tgt: str) -> str:
    """A memory's ``target`` broken into lines as ``msgid`` is: a msgid of N lines, each a
    sentence (a dialog's message), whose translation has N sentences gets one a line, with
    the msgid's own breaks between them (the memory keeps a line break as a space). Anything
    else — a target with breaks of its own, lines that are not sentences, another count —
    stays as it is."""
    core = msgid.strip("\n")
    if "\n" not in core or "\n" in target.strip("\n"):
        return target
    lines, breaks = re.split(r"\n+", core), re.findall(r"\n+", core)
    if any(not line.strip() for line in lines):
        return target
    from xlsearch.engine.lang.sentences import split_sentences

    if len(split_sentences(" ".join(lines), src or "en")) != len(lines):
        return target
    pieces = split_sentences(target, tgt or "en")
    if len(pieces) != len(lines):
        return target
    return pieces[0] + "".join(gap + piece for gap, piece in zip(breaks, pieces[1:], strict=True))


def po_edges(msgid: str, target: str) -> str:
    """``target`` beginning and ending with a line break where ``msgid`` does, and only there
    (``msgfmt --check`` refuses a catalogue otherwise; the memory's texts have no edge
    breaks). An empty target stays empty."""
    if not target:
        return target
    core = target.strip("\n")
    if not core:
        return target
    return ("\n" if msgid.startswith("\n") else "") + core + ("\n" if msgid.endswith("\n") else "")


def po_fit(
    doc: Any, seg: Any, msgid: str, text: str, breaks: Mapping[str, Any] | None = None
) -> str:
    """A PO fill ``text`` for ``msgid`` laid out as a catalogue has it: the memory's text
    gets its line breaks back (``po_layout``, else ``po_lines``), a text the translator
    edited keeps its own; both get the msgid's edge breaks (``po_edges``)."""
    if seg.origin != "edited":  # the memory's text: its line breaks were spaces
        text = po_layout(msgid, text, breaks) or po_lines(msgid, text, doc.src, doc.tgt)
    return po_edges(msgid, text)


def dump_po(doc: Any) -> bytes:
    from xlsearch.engine.tm.documents.confirmation import confirm_po, unconfirm_po

    changed: set[int] = getattr(doc.handle, "changed_entries", set())
    for segs in _po_groups(doc):
        seg = segs[0]
        if not any(s.changed for s in segs):
            continue
        entry = seg.ref
        changed.add(id(entry))
        if len(segs) > 1:
            _write_split_po(doc, entry, segs)
            continue

        if entry.msgid_plural:
            entry.msgstr_plural[0] = po_fit(doc, seg, entry.msgid, seg.target, seg.line_breaks)
            for k, form in enumerate(seg.plural_targets, 1):
                entry.msgstr_plural[k] = po_fit(doc, seg, entry.msgid_plural, form)
        else:
            entry.msgstr = po_fit(doc, seg, entry.msgid, seg.target, seg.line_breaks)
        if seg.confirmed:
            confirm_po(entry)
            seg.changed = False
            continue
        unconfirm_po(entry)
        if seg.match_source and seg.match_source.split() != entry.msgid.split():
            entry.previous_msgid = seg.match_source  # (not for a line break the memory lost)
        lines = [x for x in (entry.tcomment or "").splitlines() if not marked_own(x)]
        entry.tcomment = "\n".join([*lines, _note(seg)])
        seg.changed = False
    original = getattr(doc.handle, "original_text", None)
    if original is not None:
        from xlsearch.engine.tm.documents.po_text import splice

        language = doc.tgt if not doc.handle.metadata.get("Language") else None
        kept = splice(original, doc.handle, changed, language)
        if kept is not None:
            return _po_bytes(doc, kept)
    if doc.tgt and not doc.handle.metadata.get("Language"):
        doc.handle.metadata["Language"] = doc.tgt
    if "Content-Type" in doc.handle.metadata:  # written as UTF-8: the header must say so
        doc.handle.metadata["Content-Type"] = "text/plain; charset=UTF-8"
    text = str(doc.handle)
    if not doc.handle.header and text.startswith("#\n"):
        text = text[2:]  # polib writes an empty header comment as a lone "#" line
    return _po_bytes(doc, text)


def _po_bytes(doc: Any, text: str) -> bytes:
    """The catalogue as UTF-8, with a UTF-8 BOM where the file read had a BOM."""
    data = text.lstrip("\ufeff").encode("utf-8")
    return b"\xef\xbb\xbf" + data if getattr(doc.handle, "bom", False) else data


# -- plain text ----------------------------------------------------------------------------
def _detect(texts: list[str], hint: str | None = None) -> str:
    """The document's one language (``doclang``): ``hint`` (the file name's tag) unless the
    text is plainly another language."""
    from xlsearch.engine.lang.doclang import hinted

    sample = " \n".join(texts[:200])[:20000]
    return hinted(sample, hint) if sample.strip() else (hint or "")


def _split(
    paragraphs: list[str], src: str | None, path: Path | None = None
) -> tuple[str, list[tuple[int, str]]]:
    from xlsearch.engine.lang.doclang import filename_lang
    from xlsearch.engine.lang.sentences import split_sentences

    hint = filename_lang(path) if path is not None else None
    lang = src or _detect([p for p in paragraphs if p.strip()], hint)
    out: list[tuple[int, str]] = []
    for i, para in enumerate(paragraphs):
        if para.strip():
            out.extend((i, s) for s in split_sentences(para, lang))
    return lang, out


def decode_file(path: Path, encoding: str | None = None) -> str:
    """A text or HTML job's text: ``encoding`` (``--encoding``), else UTF-8, else
    charset-normalizer's guess; undecodable bytes and NUL bytes refused in import's words."""
    from xlsearch.engine.importers.encoding import codec_name, decode_error

    raw = path.read_bytes()
    if encoding:
        codec = codec_name(encoding, str(path), "--encoding")
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            sample = raw[max(0, exc.start - 200) : exc.start + 4096]
            raise decode_error(f"{path}:{line}", codec, exc, sample) from exc
        return _refuse_nul(path, text.removeprefix("\ufeff"))
    try:
        return _refuse_nul(path, raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(raw).best()
    if best is None:
        raise DataError(f"{path}: not a text file (cannot detect its encoding)")
    return _refuse_nul(path, str(best))


def _refuse_nul(path: Path, text: str) -> str:
    """``text``, or a ``DataError`` naming the line of its first NUL byte (a binary file)."""
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise DataError(f"{path}:{line}: looks like a binary file (NUL bytes), not text")
    return text


# a Markdown line's block markers: indentation, heading, quote, bullet (task box), number
_MD_PREFIX = re.compile(r"\s*(?:(?:#{1,6}|>|[-*+](?: \[[ xX]\])?|\d{1,9}[.)])(?:\s+|$))*")


def _prefix(line: str, markdown: bool) -> str:
    """What goes back in front of the line's translated text."""
    if markdown:
        return _MD_PREFIX.match(line).group()  # type: ignore[union-attr]  # matches ""
    return line[: len(line) - len(line.lstrip())]


def load_text(path: Path, src: str | None, encoding: str | None = None) -> Any:
    """One paragraph per line; each split into sentences. Markdown's block markers (``#``,
    ``-``, ``1.``, ``>``) are no text: kept in front of the line as its indentation is."""
    from xlsearch.engine.tm.documents.document import Document

    text = decode_file(path, encoding)
    lines = text.splitlines()
    check_lines(path, lines)  # before sentence splitting: a 50 MB line is refused at once
    markdown = path.suffix.lower() in (".md", ".markdown")
    prefixes = [_prefix(line, markdown) for line in lines]
    texts = [line[len(p) :] for line, p in zip(lines, prefixes, strict=True)]
    lang, sents = _split(texts, src, path)
    newline = "\r\n" if "\r\n" in text else "\n"  # written back as it was
    segs = sentence_segments(sents, "line ")
    markup: dict[int, tuple[str, list[Any]]] = {}
    if markdown:  # inline markup is formatting: looked up without it, put back on save
        from xlsearch.engine.tm.documents.markdown import split_markup

        for seg in segs:
            plain, spans = split_markup(seg.source)
            if spans:
                markup[seg.index] = (plain, spans)
                seg.source, seg.tags = plain, len(spans)
    handle = (lines, newline, prefixes, markup)
    return Document(path, "text", lang, "", segs, handle)


def sentence_segments(sents: list[tuple[int, str]], prefix: str) -> list[Any]:
    """DocSegments keyed ``<prefix><paragraph>.<sentence>`` (1-based), ref = paragraph."""
    from xlsearch.engine.tm.documents.document import DocSegment

    out, last, n = [], -1, 0
    for i, (p, s) in enumerate(sents):
        n = n + 1 if p == last else 1
        last = p
        out.append(DocSegment(i, f"{prefix}{p + 1}.{n}", s, ref=p))
    return out


def merge_segments(doc: Any, first: int, last: int) -> Any | None:
    """One segment for the paragraph whose sentences are segments ``first`` … ``last``
    (text, Markdown, DOCX): its whole text, keyed ``<prefix><paragraph>``; the Markdown
    markup re-keyed. None when they are no whole paragraph or one has a target."""
    from xlsearch.engine.tm.documents.document import DocSegment

    segs = doc.segments[first : last + 1]
    p = segs[0].ref
    if (
        len(segs) < 2
        or any(s.ref != p or s.target.strip() or s.locked for s in segs)
        or (first > 0 and doc.segments[first - 1].ref == p)
        or (last + 1 < len(doc.segments) and doc.segments[last + 1].ref == p)
    ):
        return None
    key = segs[0].key.rsplit(".", 1)[0]
    whole = DocSegment(first, key, " ".join(s.source for s in segs), ref=p)
    whole.tags = sum(s.tags for s in segs)
    if doc.fmt == "text" and doc.handle[3]:
        lines, _, prefixes, markup = doc.handle
        moved = {}
        for i, found in markup.items():
            if i > last:
                moved[i - (last - first)] = found
            elif i < first:
                moved[i] = found
        from xlsearch.engine.tm.documents.markdown import split_markup

        plain, spans = split_markup(" ".join(lines[p][len(prefixes[p]) :].split()))
        if spans:
            if " ".join(plain.split()) != whole.source:
                return None  # the markup would not fit the whole text: leave it split
            moved[first] = (plain, spans)
        markup.clear()
        markup.update(moved)
    return whole


def as_written(doc: Any, seg: Any, *, keep_links: bool = True) -> tuple[str, str]:
    """A text segment's source and target as the file writes them: Markdown inline markup
    back in the source, and in the target where its place is clear (``markdown.py``).
    ``keep_links``: a target that cannot hold the source's links is not written (''); an
    XLIFF for a CAT tool takes it all the same (its source shows the link to place)."""
    found = doc.handle[3].get(seg.index) if doc.fmt == "text" else None
    target = seg.target.strip()
    if found is None:
        return seg.source, target
    from xlsearch.engine.tm.documents.markdown import apply_markup, links_fit, rebuild

    plain, spans = found
    source = rebuild(plain, spans)
    written = apply_markup(target, plain, spans) if target else ""
    if keep_links and written and not links_fit(written, spans):
        return source, ""  # a link the translation cannot hold: the sentence stays as it was
    return source, written


def unwritten_text_segments(doc: Any) -> int:
    """Segments of a text or Markdown document with a target that the saved file leaves in
    the source language (a link the translation cannot hold, ``as_written``)."""
    if doc.fmt != "text" or not doc.handle[3]:
        return 0
    return sum(1 for s in doc.segments if s.target.strip() and not as_written(doc, s)[1])


def paragraph_texts(doc: Any) -> dict[int, str]:
    """Paragraph index → its text rebuilt from targets (only paragraphs with a target)."""
    by_para: dict[int, list[Any]] = {}
    for seg in doc.segments:
        by_para.setdefault(seg.ref, []).append(seg)
    from xlsearch.engine.lang.sentences import join_sentences

    out = {}
    for p, segs in by_para.items():
        if any(s.target.strip() for s in segs):
            written = [as_written(doc, s) for s in segs]
            out[p] = join_sentences([target or source for source, target in written], doc.tgt)
    return out


def dump_text(doc: Any) -> bytes:
    original, newline, prefixes, _ = doc.handle
    lines = list(original)
    for p, text in paragraph_texts(doc).items():
        lines[p] = prefixes[p] + text
    return (newline.join(lines) + newline).encode("utf-8")


# -- DOCX ----------------------------------------------------------------------------------
def load_docx(path: Path, src: str | None) -> Any:
    import docx

    from xlsearch.engine.importers.document import docx_paragraph_text, docx_paragraphs
    from xlsearch.engine.tm.documents.document import Document

    try:
        document = docx.Document(str(path))
        paras = docx_paragraphs(document)
    except Exception as exc:  # noqa: BLE001 - python-docx raises many kinds on bad files
        raise DataError(
            f"{path}: not a readable DOCX file: {exc}",
            hint="save it again as .docx (Word 2007+), or export it as .txt",
        ) from exc
    texts = [docx_paragraph_text(p) for p in paras]
    check_lines(path, texts, unit="paragraph")
    lang, sents = _split(texts, src, path)
    return Document(path, "docx", lang, "", sentence_segments(sents, "¶"), (document, paras))


# what python-docx reads as a run's text; pictures, footnote references, fields stay
_DOCX_TEXT = ("t", "tab", "br", "cr", "noBreakHyphen", "ptab")


def _replace_paragraph_text(para: Any, text: str) -> None:
    """Put ``text`` in the paragraph's first text run and take the text out of the others (in
    links and tracked insertions too); runs, links and insertions left empty go. The text
    takes the formatting most of the source's characters had (a bold "Note:" no longer
    makes the whole translation bold), and a differently formatted run of the source (a
    bold UI label, an italic product name) keeps its formatting where the translation holds
    its text exactly once (``_formatted_runs``)."""
    from docx.oxml.ns import qn

    from xlsearch.engine.importers.document import DOCX_RUNS

    for deleted in para._p.findall(qn("w:del")):  # a tracked deletion of source text
        para._p.remove(deleted)
    runs = para._p.xpath(DOCX_RUNS)
    tags = {qn(f"w:{tag}") for tag in _DOCX_TEXT}
    page = ("page", "column")  # a page or column break is layout, not text: it stays

    def is_text(c: Any) -> bool:
        return c.tag in tags and c.get(qn("w:type")) not in page

    first = next((r for r in runs if any(is_text(c) for c in r)), None)
    if first is None:
        para.add_run(text)
        return
    base, spans = _formatted_runs(para, first)
    for run in runs:
        for child in [c for c in run if is_text(c)]:
            run.remove(child)
        if run is first:
            _set_format(run, base)
            run.append(_text_element(run, text))
        elif all(c.tag == qn("w:rPr") for c in run):
            parent = run.getparent()
            parent.remove(run)
            if parent.tag != qn("w:p") and parent.find(qn("w:r")) is None:
                parent.getparent().remove(parent)
    if first.getparent() == para._p:  # not inside a link: its runs stay the link's
        _split_formatted(first, text, spans)


def _text_element(run: Any, text: str) -> Any:
    from docx.oxml.ns import qn

    t = run.makeelement(qn("w:t"), {})
    t.text = text
    t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    return t


def _format_key(run: Any) -> bytes:
    """A run's formatting as comparable bytes (its ``w:rPr``; b"" when it has none)."""
    from docx.oxml.ns import qn
    from lxml import etree

    rpr = run.find(qn("w:rPr"))
    return b"" if rpr is None else etree.tostring(rpr, method="c14n")


def _formatted_runs(para: Any, first: Any) -> tuple[Any, list[tuple[str, Any]]]:
    """(the ``w:rPr`` most of the paragraph's own text has, or None; the runs formatted
    otherwise, adjacent ones with the same formatting joined: ``(text, w:rPr)``)."""
    from collections import Counter

    from docx.oxml.ns import qn

    def words(run: Any) -> str:
        return "".join(t.text or "" for t in run.iter(qn("w:t")))

    runs = [r for r in para._p.findall(qn("w:r")) if words(r).strip()]
    if not runs:
        return first.find(qn("w:rPr")), []
    weight: Counter[bytes] = Counter()
    rpr_of: dict[bytes, Any] = {}
    for r in runs:
        key = _format_key(r)
        weight[key] += len(words(r))
        rpr_of.setdefault(key, r.find(qn("w:rPr")))
    main = weight.most_common(1)[0][0]
    spans: list[tuple[str, Any]] = []
    last_key: bytes | None = None
    for r in runs:
        key = _format_key(r)
        if key == main:
            last_key = None
            continue
        if key == last_key and spans:
            spans[-1] = (spans[-1][0] + words(r), spans[-1][1])
        else:
            spans.append((words(r), rpr_of[key]))
        last_key = key
    return rpr_of[main], [(t.strip(), rpr) for t, rpr in spans if t.strip()]


def _set_format(run: Any, rpr: Any) -> None:
    """Give ``run`` the formatting ``rpr`` (a ``w:rPr`` to copy, or None for none)."""
    import copy

    from docx.oxml.ns import qn

    old = run.find(qn("w:rPr"))
    if old is not None:
        run.remove(old)
    if rpr is not None:
        run.insert(0, copy.deepcopy(rpr))


def _split_formatted(run: Any, text: str, spans: list[tuple[str, Any]]) -> None:
    """Cut ``run`` (holding ``text``) so each span's text that occurs exactly once, as whole
    words, gets a run of its own with the span's formatting; the rest keeps ``run``'s."""
    import copy

    from docx.oxml.ns import qn

    placed: list[tuple[int, int, Any]] = []
    for words, rpr in spans:
        hits = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(words)}(?!\w)", text)]
        if len(hits) == 1:
            start, end = hits[0], hits[0] + len(words)
            if all(end <= s or start >= e for s, e, _ in placed):
                placed.append((start, end, rpr))
    if not placed:
        return
    placed.sort(key=lambda p: p[0])
    pieces: list[tuple[str, Any]] = []
    at = 0
    base = run.find(qn("w:rPr"))
    for start, end, rpr in placed:
        pieces.append((text[at:start], base))
        pieces.append((text[start:end], rpr))
        at = end
    pieces.append((text[at:], base))
    t = run.findall(qn("w:t"))[-1]
    t.text = pieces[0][0]
    anchor = run
    for words, rpr in pieces[1:]:
        if not words:
            continue
        new = run.makeelement(qn("w:r"), {})
        if rpr is not None:
            new.append(copy.deepcopy(rpr))
        new.append(_text_element(new, words))
        anchor.addnext(new)
        anchor = new


REVIEWER = "xlsearch"
"""The author of the Word comments that mark pre-translated sentences."""


def _review_note(doc: Any, segs: list[Any]) -> str:
    """What a Word comment on a paragraph says: which of its sentences xlsearch filled and
    how good each match was ("" when none awaits review: confirmed, or no target)."""
    filled = [(k, s) for k, s in enumerate(segs, 1) if s.target.strip() and not s.confirmed]
    if not filled:
        return ""
    if len(segs) == 1:
        return f"{_note(filled[0][1])}"
    parts = [f"sentence {k}: {_note(s).removeprefix('xlsearch: ')}" for k, s in filled]
    return (
        f"xlsearch: {len(filled)} of {len(segs)} sentences pre-translated · "
        + " · ".join(p.removesuffix(", needs review") for p in parts)
        + " · needs review"
    )


def _mark_for_review(doc: Any, document: Any, paras: list[Any]) -> None:
    """A Word comment (Review ▸ Comments) on every paragraph with sentences xlsearch filled:
    a Word file has no review state, and a translation must not pass for a confirmed one.
    Saved again, a paragraph's comment is rewritten, not repeated."""
    by_para: dict[int, list[Any]] = {}
    for seg in doc.segments:
        by_para.setdefault(seg.ref, []).append(seg)
    marked: dict[int, Any] = doc.review_comments
    for p, segs in by_para.items():
        note = _review_note(doc, segs)
        old = marked.get(p)
        if old is not None:
            for para in old.paragraphs:
                for run in para.runs:
                    run.text = ""
            if old.paragraphs and old.paragraphs[0].runs:
                old.paragraphs[0].runs[0].text = note or "xlsearch: confirmed"
            continue
        runs = paras[p].runs
        if note and runs:
            marked[p] = document.add_comment(runs, note, author=REVIEWER, initials="xl")


def dump_docx(doc: Any) -> bytes:
    document, paras = doc.handle
    for p, text in paragraph_texts(doc).items():
        _replace_paragraph_text(paras[p], text)
    _mark_for_review(doc, document, paras)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()
