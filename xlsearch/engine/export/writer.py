"""Writing translation units as TMX 1.4, XLIFF 1.2/2.0 or TSV (the TSV is valid distillation
input)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import quoteattr

from xlsearch.engine.errors import ConfigError, DataError
from xlsearch.engine.export import xliff as xliff
from xlsearch.engine.lang.tags import tag_matches
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, ensure_token
from xlsearch.engine.runtime.atomic import atomic_write
from xlsearch.engine.runtime.faults import output_disk_full

if TYPE_CHECKING:
    from xlsearch.engine.store import Store
    from xlsearch.engine.store.units import UnitFilter

EXPORT_FORMATS = ("tmx", "xliff", "tsv")


@dataclass
class ExportUnit:
    """One translation unit: (lang, text) segments plus optional properties (e.g. score)."""

    segments: list[tuple[str, str]]
    props: dict[str, str] = field(default_factory=dict)
    meta: dict[str, Any] | None = None
    """The unit's own metadata as imported (``attrs``, ``props``, ``notes``; see
    ``store.units``): TMX writes it back exactly."""
    segment_meta: list[dict[str, Any] | None] | None = None
    """Per segment (aligned with ``segments``): its TMX ``tuv`` attributes, props, notes."""

    def text(self, lang: str) -> str | None:
        """The first segment whose tag ``lang`` selects (``en`` → an ``en-GB`` one), or None."""
        exact = next((t for lg, t in self.segments if lg == lang), None)
        if exact is not None:
            return exact
        return next((t for lg, t in self.segments if tag_matches(lang, lg)), None)

    def pick(self, langs: Sequence[str] | None) -> list[int]:
        """Indexes of the segments ``langs`` selects, in the order of ``langs`` (all if None)."""
        if not langs:
            return list(range(len(self.segments)))
        out: list[int] = []
        for want in langs:
            out += [
                i
                for i, (lg, _) in enumerate(self.segments)
                if i not in out and tag_matches(want, lg)
            ]
        return out


def export_format(path: Path | str, fmt: str | None = None) -> str:
    """``fmt``, or the format implied by the file name (``.tmx``, ``.xlf``/``.xliff``,
    ``.tsv``/``.txt``)."""
    if fmt:
        fmt = "xliff" if fmt == "xlf" else fmt
        if fmt not in EXPORT_FORMATS:
            raise ConfigError(f"unknown export format {fmt!r}; choose tmx, xliff or tsv")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix == ".tmx":
        return "tmx"
    if suffix in (".xlf", ".xliff"):
        return "xliff"
    if suffix in (".tsv", ".tab", ".txt"):
        return "tsv"
    raise ConfigError(
        f"{path}: cannot tell the export format", hint="use .tmx, .xlf/.xliff or .tsv"
    )


def pairs_to_units(
    pairs: Iterable[Sequence[Any]], src_lang: str, tgt_lang: str
) -> Iterator[ExportUnit]:
    """(source, target[, score[, source tag, target tag]]) tuples → units (score as
    ``x-score``; the tags, when given, are the segments' own, e.g. ``en-GB``)."""
    for item in pairs:
        props = {"x-score": f"{float(item[2]):.4f}"} if len(item) > 2 else {}
        src, tgt = (item[3], item[4]) if len(item) > 4 else (src_lang, tgt_lang)
        yield ExportUnit([(src, str(item[0])), (tgt, str(item[1]))], props)


def store_units(
    store: Store, segment_ids: Iterable[int], langs: Sequence[str] | None = None
) -> list[ExportUnit]:
    """The translation unit of each segment (e.g. selected search hits), in the order given,
    each unit once; ``langs`` keeps only those languages (in that column order)."""
    segs = store.segments(segment_ids)
    tu_ids = list(dict.fromkeys(s["tu_id"] for s in segs))
    units = store.translations(tu_ids)
    metas = store.unit_meta(tu_ids)
    out = []
    for tu in tu_ids:
        unit = ExportUnit([(s["lang"], s["text"]) for s in units[tu]], {"x-tu": tu})
        unit.meta = _kept(metas.get(tu))
        keep = unit.pick(langs)
        if keep:
            out.append(ExportUnit([unit.segments[i] for i in keep], unit.props, unit.meta))
    return out


def _kept(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """The verbatim part of unit metadata (what a TMX export writes back)."""
    if not meta:
        return None
    return {k: meta[k] for k in ("attrs", "props", "notes") if meta.get(k)} or None


def iter_store_units(
    store: Store,
    collection: str | None = None,
    langs: Sequence[str] | None = None,
    units: UnitFilter | None = None,
) -> Iterator[ExportUnit]:
    """Every translation unit of a collection in document order (streamed), with its
    metadata; ``langs`` are BCP 47 prefixes, ``units`` a metadata filter."""
    where, params = store._filters(collection, langs, units=units)
    cur = store.conn.execute(
        "SELECT s.tu_id, s.lang, s.text, s.meta, u.meta FROM segments s "
        f"LEFT JOIN units u ON u.tu_id = s.tu_id{where} ORDER BY s.document_id, s.position",
        params,
    )
    current: tuple[int, str] | None = None
    segs: list[tuple[str, str]] = []
    seg_meta: list[dict[str, Any] | None] = []
    unit_meta: str | None = None
    context = ""
    for tu, lang, text, smeta, umeta in cur:
        if tu != current and segs:
            yield _unit(segs, seg_meta, unit_meta, langs, context)
            segs, seg_meta, context = [], [], ""
        current, unit_meta = tu, umeta
        segs.append((lang, text))
        seg_meta.append(_tuv_meta(smeta))
        context = context or _context(smeta)
    if segs:
        yield _unit(segs, seg_meta, unit_meta, langs, context)


CONTEXT_PROP = "x-context"
"""The TMX ``<prop>`` of a unit's context (PO ``msgctxt``, XLIFF ``resname``): a TMX import
reads it back as the unit's context."""


def _context(raw: str | None) -> str:
    """A segment's context (PO ``msgctxt``, XLIFF ``resname``) from its meta, '' if none."""
    if not raw or '"context"' not in raw:
        return ""
    try:
        found = json.loads(raw).get("context")
    except (ValueError, AttributeError):
        return ""
    return found if isinstance(found, str) else ""


@dataclass
class ExportReport:
    """What ``export_store`` wrote and what it left out (reason → units)."""

    path: Path
    written: int
    columns: list[str] = field(default_factory=list)
    """TSV: the language columns written (requested languages present in the units)."""
    left_out: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        """``wrote N units to PATH (columns …); left out …`` in one line."""
        cols = f" (columns {', '.join(self.columns)})" if self.columns else ""
        noun = "unit" if self.written == 1 else "units"
        out = f"wrote {self.written:,} {noun} to {self.path}{cols}"
        if self.left_out:
            out += "; left out " + ", ".join(f"{n:,} {why}" for why, n in self.left_out.items())
        return out


def export_store(
    store: Store,
    path: Path | str,
    collection: str | None = None,
    langs: Sequence[str] | None = None,
    fmt: str | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    xliff_version: str = "1.2",
    units: UnitFilter | None = None,
) -> ExportReport:
    """Export a collection's units; with ``langs`` = (first, others…):

    TSV (distillation input): units that have ``first`` and any of the others, one column per
    requested language that occurs in them (empty cells where a unit lacks one). TMX: units
    with at least two of the requested languages (one language asked for: units having it).
    XLIFF: units with both the source and the target language (``langs`` = source,target).
    The report counts what was left out and why.
    """
    path = Path(path)
    fmt = export_format(path, fmt)
    langs = list(langs or [])
    if fmt == "xliff":
        _check_xliff(langs, xliff_version)
    if fmt == "tsv" and len(langs) < 2:
        raise ConfigError(
            "TSV export needs at least two languages, English (the teacher's) first",
            hint="--lang en,de[,fr…]",
        )
    if collection is not None:
        store.require_collection(collection)
    columns = langs
    left: dict[str, int] = {}
    if not langs and not store.count_segments(collection=collection):
        where = f"collection {collection!r}" if collection else "the store"
        raise DataError(f"{where} holds no segments; nothing written to {path}")
    if langs:
        present: set[str] = set()
        for unit in iter_store_units(store, collection, units=units):  # count what is left
            have = {want for want in langs for lg, _ in unit.segments if tag_matches(want, lg)}
            reason = _left_out_reason(have, langs, fmt)
            if reason:
                left[reason] = left.get(reason, 0) + 1
            else:
                present |= have
        if not present:
            where = f"collection {collection!r}" if collection else "the store"
            need = {
                "tsv": f"{langs[0]} and any of {','.join(langs[1:])}",
                "xliff": f"text in both {langs[0]} and {langs[-1]}",
            }.get(fmt, f"at least two of {','.join(langs)}")
            raise DataError(
                f"no unit has {need}; nothing written to {path} (searched {where})",
                hint="see the languages stored with: xlsearch collections",
            )
        columns = [lg for lg in langs if lg in present] if fmt == "tsv" else langs
    selected = (
        u
        for u in iter_store_units(store, collection, langs or None, units)
        if not langs
        or not _left_out_reason(
            {want for want in langs for lg, _ in u.segments if tag_matches(want, lg)}, langs, fmt
        )
    )
    n = write_units(
        path,
        selected,
        fmt,
        columns or None,
        on_progress=on_progress,
        cancel=cancel,
        xliff_version=xliff_version,
    )
    return ExportReport(path, n, list(columns) if fmt == "tsv" else [], left)


def _left_out_reason(have: set[str], langs: Sequence[str], fmt: str) -> str:
    others = set(langs[1:])
    if fmt == "tsv":
        if langs[0] not in have:
            return f"without {langs[0]}"
        if not have & others:
            return f"with only {langs[0]}"
        return ""
    if len(langs) >= 2 and len(have) < 2:
        return f"with fewer than 2 of {','.join(langs)}"
    if not have:
        return f"without {langs[0]}"
    return ""


def _tuv_meta(raw: str | None) -> dict[str, Any] | None:
    """The TMX ``tuv`` annotations kept in a segment's meta (other formats' meta: None)."""
    if not raw:
        return None
    meta = json.loads(raw)
    keys = ("attrs", "props", "notes", "tags", "codes")
    kept = {k: meta[k] for k in keys if isinstance(meta, dict) and k in meta}
    return kept or None


def _seg_xml(text: str, tags: Any, codes: Any = None) -> str:
    """A TMX ``<seg>``'s content: the text with the inline codes put back where they stood
    (when every code was kept as written), else the plain text. ``codes``: the codes that
    stood for a placeholder of the text (``[offset, "text", placeholder, spaced, xml]``),
    each written in place of its placeholder where the text still holds it there."""
    body = xliff.xml_text(text)
    tags = tags if isinstance(tags, list) else []
    if not all(isinstance(t, list) and len(t) >= 5 and isinstance(t[4], str) for t in tags):
        return body
    if any("<sub" in t[4] for t in tags):  # its text is a unit of its own, exported as such
        return body
    kept = [
        c
        for c in (codes if isinstance(codes, list) else [])
        if isinstance(c, list)
        and len(c) >= 5
        and isinstance(c[0], int)
        and isinstance(c[2], str)
        and isinstance(c[4], str)
        and c[2]
        and text[c[0] : c[0] + len(c[2])] == c[2]
    ]
    if not tags and not kept:
        return body
    merged = sorted([(t, 0) for t in tags] + [(c, len(c[2])) for c in kept], key=lambda e: e[0][0])
    out, at = [], 0
    for (offset, _kind, _ident, spaced, xml, *_), length in merged:
        if not isinstance(offset, int) or not at <= offset <= len(text):
            return body
        out.append(xliff.xml_text(text[at:offset]))
        out.append(xml + (" " if spaced and not length else ""))
        at = offset + length
    out.append(xliff.xml_text(text[at:]))
    return "".join(out)


def _unit(
    segs: list[tuple[str, str]],
    seg_meta: list[dict[str, Any] | None],
    unit_meta: str | None,
    langs: Sequence[str] | None,
    context: str = "",
) -> ExportUnit:
    """A unit with its segments in the order of ``langs``, its metadata and its context (an
    ``x-context`` prop, unless the unit's own props already carry one)."""
    unit = ExportUnit(segs)
    keep = unit.pick(langs)
    meta = _kept(json.loads(unit_meta)) if unit_meta else None
    own = any(p.get("type") == CONTEXT_PROP for p in (meta or {}).get("props") or ())
    return ExportUnit(
        [segs[i] for i in keep],
        {CONTEXT_PROP: context} if context and not own else {},
        meta,
        [seg_meta[i] for i in keep],
    )


def write_units(
    path: Path | str,
    units: Iterable[ExportUnit],
    fmt: str | None = None,
    langs: Sequence[str] | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    xliff_version: str = "1.2",
    *,
    header_props: dict[str, str] | None = None,
    srclang: str | None = None,
) -> int:
    """Write units atomically (temp file + rename) as TMX, XLIFF or TSV; return units written.

    TSV: one row per unit with one column per language of ``langs`` (required; the first is
    the teacher's language for distillation), no header; a unit lacking the first language or
    all the others is left out, a missing other language is an empty cell; tabs/newlines
    inside texts become spaces. TMX: all segments of each unit (of ``langs`` if given);
    ``header_props`` become ``<prop>``s of the header, ``srclang`` its source language.
    XLIFF (``xliff_version`` 1.2 or 2.0): ``langs`` is source,target; units with both.
    """
    path = Path(path)
    fmt = export_format(path, fmt)
    if fmt == "tsv" and not langs:
        raise ConfigError("TSV export needs the column languages (e.g. en,de)")
    if fmt == "xliff":
        _check_xliff(langs, xliff_version)
    cancel = ensure_token(cancel)
    with output_disk_full(path):
        written = _write_units(
            path, units, fmt, langs, on_progress, cancel, xliff_version, header_props, srclang
        )
    if on_progress:
        on_progress(Progress("export", written, written, path.name))
    return written


def _write_units(
    path: Path,
    units: Iterable[ExportUnit],
    fmt: str,
    langs: Sequence[str] | None,
    on_progress: ProgressCallback | None,
    cancel: CancelToken,
    xliff_version: str,
    header_props: dict[str, str] | None,
    srclang: str | None,
) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with atomic_write(path, newline="\n") as fh:
        if fmt == "tmx":
            _tmx_header(fh, srclang or next(iter(langs or ()), None), header_props)
        elif fmt == "xliff":
            xliff.header(fh, xliff_version, langs[0], langs[1], path.name)  # type: ignore[index]
        for unit in units:
            if fmt == "tmx":
                ok = _tmx_unit(fh, unit, langs)
            elif fmt == "xliff":
                ok = _xliff_unit(fh, unit, langs, xliff_version, written + 1)  # type: ignore[arg-type]
            else:
                ok = _tsv_row(fh, unit, langs)  # type: ignore[arg-type]
            written += ok
            if ok and written % 1000 == 0:
                cancel.raise_if_cancelled()
                if on_progress:
                    on_progress(Progress("export", written, None, path.name))
        if fmt == "tmx":
            fh.write("</body>\n</tmx>\n")
        elif fmt == "xliff":
            if not written:  # XLIFF 2.0 requires a unit; an empty 1.2 file helps nobody
                raise ConfigError(
                    f"no unit has text in both {langs[0]} and {langs[1]}; nothing written",  # type: ignore[index]
                    hint="check --lang (source,target) and --collection",
                )
            xliff.footer(fh, xliff_version)
    return written


def write_tsv(path: Path | str, header: Sequence[str], rows: Iterable[Sequence[str]]) -> int:
    """A TSV with a header row, written atomically; tabs/newlines in cells become spaces."""
    path = Path(path)
    with output_disk_full(path):
        return _write_tsv(path, header, rows)


def _write_tsv(path: Path, header: Sequence[str], rows: Iterable[Sequence[str]]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with atomic_write(path, newline="\n") as fh:
        fh.write("\t".join(header) + "\n")
        for row in rows:
            fh.write("\t".join(" ".join(str(c).split()) for c in row) + "\n")
            n += 1
    return n


def write_pairs(
    path: Path | str,
    pairs: Iterable[Sequence[Any]],
    src_lang: str,
    tgt_lang: str,
    fmt: str | None = None,
    xliff_version: str = "1.2",
) -> int:
    """Mined or selected pairs ((src, tgt[, score]) tuples) → TMX, XLIFF or TSV (src<TAB>tgt).

    Scored pairs go into a TSV with the header ``src<TAB>tgt<TAB>score`` (``en  de  score``):
    ``import``, ``check`` and ``distill`` read the header's languages and skip its score
    column (a third column without one would be read as a second translation)."""
    if export_format(path, fmt) == "tsv":
        from xlsearch.engine.importers.tabular import SCORE_COLUMN

        rows = [tuple(p) for p in pairs]
        if rows and all(len(r) > 2 for r in rows):
            return write_tsv(
                path,
                [src_lang, tgt_lang, SCORE_COLUMN],
                ((str(r[0]), str(r[1]), f"{float(r[2]):.4f}") for r in rows),
            )
        pairs = rows
    units = pairs_to_units(pairs, src_lang, tgt_lang)
    return write_units(path, units, fmt, [src_lang, tgt_lang], xliff_version=xliff_version)


def _tmx_header(fh: Any, srclang: str | None, props: dict[str, str] | None = None) -> None:
    from xlsearch import __version__

    fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n')
    fh.write(
        f'<header creationtool="xlsearch" creationtoolversion="{__version__}" '
        f'datatype="plaintext" segtype="sentence" adminlang="en" '
        f'srclang={quoteattr(srclang or "*all*")} o-tmf="xlsearch"'
    )
    if props:
        fh.write(">")
        for key, value in props.items():
            fh.write(f"<prop type={quoteattr(key)}>{xliff.xml_text(value)}</prop>")
        fh.write("</header>\n<body>\n")
    else:
        fh.write("/>\n<body>\n")


def _tmx_unit(fh: Any, unit: ExportUnit, langs: Sequence[str] | None) -> bool:
    keep = unit.pick(langs)
    if not keep:
        return False
    meta = unit.meta or {}
    fh.write(f"<tu{_xml_attrs(meta.get('attrs'))}>")
    _annotations(fh, meta)
    for key, value in unit.props.items():
        fh.write(f"<prop type={quoteattr(key)}>{xliff.xml_text(str(value))}</prop>")
    seg_meta = unit.segment_meta or [None] * len(unit.segments)
    for i in keep:
        lang, text = unit.segments[i]
        smeta = seg_meta[i] or {}
        attrs = {"xml:lang": lang, **(smeta.get("attrs") or {})}
        fh.write(f"<tuv{_xml_attrs(attrs)}>")
        _annotations(fh, smeta)
        fh.write(f"<seg>{_seg_xml(text, smeta.get('tags'), smeta.get('codes'))}</seg></tuv>")
    fh.write("</tu>\n")
    return True


def _check_xliff(langs: Sequence[str] | None, version: str) -> None:
    if version not in xliff.XLIFF_VERSIONS:
        raise ConfigError(f"unknown XLIFF version {version!r}; choose 1.2 or 2.0")
    if not langs or len(langs) != 2:
        raise ConfigError(
            "XLIFF is bilingual: it needs exactly two languages, source then target",
            hint="e.g. --lang en,de (export once per target language)",
        )


def _xliff_unit(fh: Any, unit: ExportUnit, langs: Sequence[str], version: str, number: int) -> bool:
    source, target = unit.text(langs[0]), unit.text(langs[1])
    if not source or not target:
        return False
    props = unit.props
    attrs = (unit.meta or {}).get("attrs") or {}
    tuid = attrs.get("tuid") or attrs.get("id")
    if tuid and "x-tu" not in props:  # the memory's own unit id names the XLIFF unit
        props = {"x-tu": str(tuid), **props}
    elif props.get(CONTEXT_PROP) and "x-tu" not in props:  # else its context: the resname
        props = {"x-tu": props[CONTEXT_PROP]} | {
            k: v for k, v in props.items() if k != CONTEXT_PROP
        }
    xliff.unit(fh, version, number, source, target, props)
    return True


def _xml_attrs(attrs: dict[str, Any] | None) -> str:
    return "".join(f" {k}={quoteattr(xliff.xml_chars(str(v)))}" for k, v in (attrs or {}).items())


def _annotations(fh: Any, meta: dict[str, Any]) -> None:
    """TMX ``<note>``s then ``<prop>``s (the DTD's order), each with its own attributes."""
    for note in meta.get("notes") or ():
        attrs = {k: v for k, v in note.items() if k != "text"}
        fh.write(f"<note{_xml_attrs(attrs)}>{xliff.xml_text(str(note.get('text', '')))}</note>")
    for prop in meta.get("props") or ():
        attrs = {k: v for k, v in prop.items() if k != "text"}
        fh.write(f"<prop{_xml_attrs(attrs)}>{xliff.xml_text(str(prop.get('text', '')))}</prop>")


def _tsv_row(fh: Any, unit: ExportUnit, langs: Sequence[str]) -> bool:
    """One row: the first language is required, then at least one other; missing → empty."""
    cells = [unit.text(lang) or "" for lang in langs]
    if not cells[0] or (len(cells) > 1 and not any(cells[1:])):
        return False
    fh.write("\t".join(" ".join(c.split()) for c in cells) + "\n")
    return True
