"""Where an alignment goes: TMX (languages, document names, scores), TSV (distillation
input), Vecalign beads, or straight into a collection of the store."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from xlsearch.engine.align.beads import write_beads
from xlsearch.engine.align.core import Alignment
from xlsearch.engine.errors import ConfigError, DataError
from xlsearch.engine.export.writer import ExportUnit, write_units

if TYPE_CHECKING:
    from xlsearch.engine.store.ingest import ImportReport

OUTPUT_FORMATS = ("tmx", "tsv", "beads")


def output_format(path: Path | str, fmt: str | None = None) -> str:
    """``fmt`` or the format implied by the extension (.tmx, .tsv, .beads/.align)."""
    if fmt:
        if fmt not in OUTPUT_FORMATS:
            raise ConfigError(f"unknown output format {fmt!r}; choose {', '.join(OUTPUT_FORMATS)}")
        return fmt
    suffix = Path(path).suffix.lower()
    found = {".tmx": "tmx", ".tsv": "tsv", ".tab": "tsv", ".beads": "beads", ".align": "beads"}
    if suffix not in found:
        raise ConfigError(f"{path}: cannot tell the output format", hint="use .tmx, .tsv or .beads")
    return found[suffix]


def alignment_units(alignment: Alignment, include_flagged: bool = True) -> Iterator[ExportUnit]:
    """One translation unit per bead with both sides (score and flag as properties)."""
    src_lang, tgt_lang = alignment.src.lang, alignment.tgt.lang
    for bead in alignment.beads:
        if not (bead.src and bead.tgt) or (bead.flagged and not include_flagged):
            continue
        src, tgt = alignment.texts(bead)
        props = {"x-bead": bead.line(with_cost=False)}
        if bead.score:
            props["x-score"] = f"{bead.score:.4f}"
        if bead.flagged:
            props["x-flagged"] = "low-confidence"
        yield ExportUnit([(src_lang, src), (tgt_lang, tgt)], props)


def require_pairs(alignment: Alignment, include_flagged: bool = True) -> None:
    """A ``DataError`` naming both documents when no bead pairs sentences of both (a memory
    of it would be empty)."""
    if next(alignment_units(alignment, include_flagged), None) is None:
        why = "not one unflagged bead" if not include_flagged else "every bead is one-sided"
        raise DataError(
            f"{alignment.src.path} ↔ {alignment.tgt.path}: no sentence pair aligned ({why})",
            hint="check that the second document translates the first; without --lengths, "
            "with a model that knows both languages (--model), or without --skip-flagged",
        )


def write_alignment(
    alignment: Alignment,
    path: Path | str,
    fmt: str | None = None,
    include_flagged: bool = True,
) -> int:
    """Write the alignment as TMX, TSV or Vecalign beads; returns units/beads written.

    TSV columns: English first when one side is English (the teacher's language for
    distillation), else source then target. TMX: the header names both documents.
    """
    fmt = output_format(path, fmt)
    if fmt == "beads":
        return write_beads(path, alignment.beads)
    langs = [alignment.src.lang, alignment.tgt.lang]
    if fmt == "tsv":
        if langs[0] == langs[1]:
            raise ConfigError(
                f"both documents are {langs[0]!r}: a TSV needs two languages",
                hint="pass --src-lang and --tgt-lang",
            )
        if langs[1] == "en":
            langs.reverse()
    header = {
        "x-source-document": Path(alignment.src.path).name,
        "x-target-document": Path(alignment.tgt.path).name,
        "x-aligner": f"xlsearch align ({Path(str(alignment.model)).name or alignment.model})",
    }
    return write_units(
        path,
        alignment_units(alignment, include_flagged),
        fmt,
        langs if fmt == "tsv" else None,
        header_props=header if fmt == "tmx" else None,
        srclang=alignment.src.lang,
    )


def default_tmx_path(alignment: Alignment) -> Path:
    """Where an alignment saved into a collection is kept (the store imports this TMX): one
    file per pair of documents, so that ``job1/de.docx`` and ``job2/de.docx`` are two."""
    from xlsearch.engine.runtime.locations import data_dir

    def stem(p: str) -> str:
        return re.sub(r"[^\w.-]+", "_", Path(p).stem)[:60] or "doc"

    pair = "\n".join(
        str(Path(p).expanduser().resolve()) for p in (alignment.src.path, alignment.tgt.path)
    )
    digest = hashlib.sha1(pair.encode("utf-8")).hexdigest()[:8]
    folder = data_dir() / "aligned"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{stem(alignment.src.path)}__{stem(alignment.tgt.path)}-{digest}.tmx"


def save_to_collection(
    alignment: Alignment,
    collection: str,
    tmx_path: Path | str | None = None,
    include_flagged: bool = True,
) -> ImportReport:
    """Write the alignment as TMX (``tmx_path`` or under the data folder) and import it into
    ``collection``; re-saving an edited alignment updates the same document."""
    from xlsearch.engine.store import Store

    target = Path(tmx_path) if tmx_path else default_tmx_path(alignment)
    write_alignment(alignment, target, "tmx", include_flagged)
    with Store() as store:
        return store.import_file(target, collection, "tmx")


def save_alignment(
    alignment: Alignment, collection: str = "", path: Path | str = "", include_flagged: bool = True
) -> str:
    """Write ``path`` (.tmx, .tsv, .beads) and/or import into ``collection``; one-line
    summary of what was saved."""
    if collection or (path and output_format(path) != "beads"):
        require_pairs(alignment, include_flagged)
    parts = []
    if path:
        n = write_alignment(alignment, path, include_flagged=include_flagged)
        parts.append(f"{n:,} written to {path}")
    if collection:
        tmx = path if path and output_format(path) == "tmx" else None
        report = save_to_collection(alignment, collection, tmx, include_flagged)
        parts.append(f"{report.segments:,} segments in collection {collection!r} ({report.status})")
    if not parts:
        raise ConfigError("nowhere to save the alignment", hint="give a collection or a file")
    return "; ".join(parts)
