"""Writing translation units as TMX 1.4, XLIFF 1.2/2.0 or TSV (the TSV is valid distillation
input)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from xlsearch.engine import export_xliff as xliff
from xlsearch.engine.errors import ConfigError
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, ensure_token

if TYPE_CHECKING:
    from xlsearch.engine.store import Store

EXPORT_FORMATS = ("tmx", "xliff", "tsv")


@dataclass
class ExportUnit:
    """One translation unit: (lang, text) segments plus optional properties (e.g. score)."""

    segments: list[tuple[str, str]]
    props: dict[str, str] = field(default_factory=dict)

    def text(self, lang: str) -> str | None:
        """The first segment in ``lang``, or None."""
        return next((t for lg, t in self.segments if lg == lang), None)


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
    """(source, target) or (source, target, score) tuples → units (score as ``x-score``)."""
    for item in pairs:
        props = {"x-score": f"{float(item[2]):.4f}"} if len(item) > 2 else {}
        yield ExportUnit([(src_lang, str(item[0])), (tgt_lang, str(item[1]))], props)


def store_units(
    store: Store, segment_ids: Iterable[int], langs: Sequence[str] | None = None
) -> list[ExportUnit]:
    """The translation unit of each segment (e.g. selected search hits), in the order given,
    each unit once; ``langs`` keeps only those languages (in that column order)."""
    segs = store.segments(segment_ids)
    tu_ids = list(dict.fromkeys(s["tu_id"] for s in segs))
    units = store.translations(tu_ids)
    out = []
    for tu in tu_ids:
        pairs = [(s["lang"], s["text"]) for s in units[tu]]
        if langs:
            pairs = [p for lang in langs for p in pairs if p[0] == lang]
        if pairs:
            out.append(ExportUnit(pairs, {"x-tu": tu}))
    return out


def iter_store_units(
    store: Store, collection: str | None = None, langs: Sequence[str] | None = None
) -> Iterator[ExportUnit]:
    """Every translation unit of a collection in document order (streamed)."""
    where, params = store._filters(collection, langs)
    cur = store.conn.execute(
        f"SELECT s.tu_id, s.lang, s.text FROM segments s{where} ORDER BY s.document_id, s.position",
        params,
    )
    current: str | None = None
    segs: list[tuple[str, str]] = []
    for tu, lang, text in cur:
        if tu != current and segs:
            yield ExportUnit(_ordered(segs, langs), {"x-tu": current or ""})
            segs = []
        current = tu
        segs.append((lang, text))
    if segs:
        yield ExportUnit(_ordered(segs, langs), {"x-tu": current or ""})


def _ordered(segs: list[tuple[str, str]], langs: Sequence[str] | None) -> list[tuple[str, str]]:
    return [p for lang in langs for p in segs if p[0] == lang] if langs else segs


def write_units(
    path: Path | str,
    units: Iterable[ExportUnit],
    fmt: str | None = None,
    langs: Sequence[str] | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    xliff_version: str = "1.2",
) -> int:
    """Write units atomically (temp file + rename) as TMX, XLIFF or TSV; return units written.

    TSV: one row per unit with one column per language of ``langs`` (required; the first is
    the teacher's language for distillation), no header; units missing a language are left
    out and tabs/newlines inside texts become spaces. TMX: all segments of each unit.
    XLIFF (``xliff_version`` 1.2 or 2.0): ``langs`` is source,target; units with both.
    """
    path = Path(path)
    fmt = export_format(path, fmt)
    if fmt == "tsv" and not langs:
        raise ConfigError("TSV export needs the column languages (e.g. en,de)")
    if fmt == "xliff":
        _check_xliff(langs, xliff_version)
    cancel = ensure_token(cancel)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; exports are ordinary user files
    written = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            if fmt == "tmx":
                srclang = (langs or [None])[0]
                _tmx_header(fh, srclang)
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
                if written % 1000 == 0:
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
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if on_progress:
        on_progress(Progress("export", written, written, path.name))
    return written


def write_pairs(
    path: Path | str,
    pairs: Iterable[Sequence[Any]],
    src_lang: str,
    tgt_lang: str,
    fmt: str | None = None,
    xliff_version: str = "1.2",
) -> int:
    """Mined or selected pairs ((src, tgt[, score]) tuples) → TMX, XLIFF or TSV (src<TAB>tgt)."""
    units = pairs_to_units(pairs, src_lang, tgt_lang)
    return write_units(path, units, fmt, [src_lang, tgt_lang], xliff_version=xliff_version)


def _tmx_header(fh: Any, srclang: str | None) -> None:
    from xlsearch import __version__

    fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n')
    fh.write(
        f'<header creationtool="xlsearch" creationtoolversion="{__version__}" '
        f'datatype="plaintext" segtype="sentence" adminlang="en" '
        f'srclang={quoteattr(srclang or "*all*")} o-tmf="xlsearch"/>\n<body>\n'
    )


def _clean(text: str) -> str:
    """Drop characters XML 1.0 cannot carry."""
    return "".join(
        ch
        for ch in text
        if ch in "\t\n\r"
        or ("\x20" <= ch <= "\ud7ff")
        or ("\ue000" <= ch <= "\ufffd")
        or ch > "\uffff"
    )


def _tmx_unit(fh: Any, unit: ExportUnit, langs: Sequence[str] | None) -> bool:
    segs = [p for p in unit.segments if not langs or p[0] in langs]
    if not segs:
        return False
    fh.write("<tu>")
    for key, value in unit.props.items():
        fh.write(f"<prop type={quoteattr(key)}>{escape(_clean(str(value)))}</prop>")
    for lang, text in segs:
        fh.write(f"<tuv xml:lang={quoteattr(lang)}><seg>{escape(_clean(text))}</seg></tuv>")
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
    xliff.unit(fh, version, number, source, target, unit.props)
    return True


def _tsv_row(fh: Any, unit: ExportUnit, langs: Sequence[str]) -> bool:
    cells = [unit.text(lang) for lang in langs]
    if any(not c for c in cells):
        return False
    fh.write("\t".join(" ".join(c.split()) for c in cells if c) + "\n")
    return True
