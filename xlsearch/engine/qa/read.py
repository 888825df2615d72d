"""Read the units a check looks at: XLIFF 1.2/2.x (SDLXLIFF, mqxliff), PO, TMX and TSV."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from xlsearch.engine.errors import DataError
from xlsearch.engine.qa.units import QaUnit

CHECK_FORMATS = ("xliff", "po", "tmx", "tsv", "csv")


@dataclass
class ReadUnits:
    """The units of one file and what the file says of its languages."""

    path: Path
    fmt: str
    src: str
    tgt: str
    units: list[QaUnit] = field(default_factory=list)
    skipped: int = 0
    """Units not checked: no target, or a draft another tool left (PO ``fuzzy``)."""
    drafts: int = 0
    """Drafts checked (``QaUnit.draft``): xlsearch's own fills, every one with ``fuzzy``."""
    drafts_skipped: int = 0
    """Drafts of the ``skipped``: PO ``fuzzy`` entries another tool (msgmerge) left."""
    warnings: list[str] = field(default_factory=list)
    """Rows the reader skipped, each with its line and why (``file:line: …``)."""
    forms: int = 0
    """Units that are further plural forms of an entry (PO ``msgstr[1]``, …)."""


def _target_tags(ref: Any) -> int:
    """Inline codes in an XLIFF segment's target (-1 when it cannot be found)."""
    from xlsearch.engine.tm.documents.tags import local_name
    from xlsearch.engine.tm.documents.xliff_text import child_element, element_text

    try:
        if isinstance(ref, tuple):
            tu, mid = ref
            target = child_element(tu, "target")
            if target is not None and mid is not None:
                target = next(
                    (
                        m
                        for m in target.iter()
                        if local_name(m.tag) == "mrk" and m.get("mid") == mid
                    ),
                    None,
                )
        else:
            target = child_element(ref, "target")
        return element_text(target)[1] if target is not None else -1
    except Exception:  # noqa: BLE001 - an odd element: the tag check is skipped
        return -1


def read_units(
    path: str | Path,
    src: str | None = None,
    tgt: str | None = None,
    fmt: str | None = None,
    *,
    fuzzy: bool = False,
) -> ReadUnits:
    """The units of ``path`` that have a target to check (``DataError`` when unreadable):
    a PO ``fuzzy`` entry's msgstr when xlsearch wrote it (a fill awaiting review: its
    ``# xlsearch:`` comment says so), every ``fuzzy`` one with ``fuzzy`` (msgmerge's
    drafts too), each marked ``draft``."""
    from xlsearch.engine.importers.base import detect_format, normalize_lang

    p = Path(path).expanduser()
    from xlsearch.engine.runtime.pathcheck import require_file

    require_file(p, "name a file to check (.xlf, .sdlxliff, .mqxliff, .po, .tmx, .tsv)")
    kind = fmt or detect_format(p)
    if kind not in CHECK_FORMATS:
        raise DataError(
            f"{p}: a {kind} file has no targets to check",
            hint="check an XLIFF, PO, TMX or TSV file (source and target side by side)",
        )
    if kind in ("xliff", "po"):
        return _read_document(p, kind, normalize_lang(src), normalize_lang(tgt), fuzzy)
    return _read_parallel(p, kind, normalize_lang(src), normalize_lang(tgt))


def filled_by_xlsearch(entry: Any) -> bool:
    """Whether a PO entry's msgstr is a fill xlsearch wrote for review (its translator
    comment starts ``xlsearch:``, as ``analyze --out`` writes it; a confirmation drops it)."""
    from xlsearch.engine.importers.base import marked_own

    comment = getattr(entry, "tcomment", "") or ""
    return any(marked_own(line) for line in comment.splitlines())


def _read_document(
    p: Path, kind: str, src: str | None, tgt: str | None, fuzzy: bool = False
) -> ReadUnits:
    """``read_units`` of an XLIFF or PO file, unsegmented: one unit per trans-unit or entry
    (and per further PO plural form); ``fuzzy``: every PO draft, not only xlsearch's."""
    from xlsearch.engine.tm.documents import open_document

    doc = open_document(p, src=src, tgt=tgt, fmt=kind, segment="never")
    out = ReadUnits(p, kind, doc.src, doc.tgt or (tgt or ""))
    meta = getattr(doc.handle, "metadata", None) if kind == "po" else None
    usage = _plural_usage(meta.get("Plural-Forms", "")) if meta else None
    one_value = frozenset(form for form, count in (usage or {}).items() if count == 1)
    # A language whose first form serves many numbers (Japanese, Chinese: one form only)
    # writes it after msgid_plural, as msgfmt --check compares it.
    first_many = usage is not None and usage.get(0, 0) > 1
    for seg in doc.segments:
        draft = bool(seg.target) and seg.state == "fuzzy"
        if not seg.target or (draft and not (fuzzy or filled_by_xlsearch(seg.ref))):
            out.skipped += 1
            out.drafts_skipped += draft
            continue
        out.drafts += draft
        if kind == "po":
            line = getattr(seg.ref, "linenum", None)
        else:  # the trans-unit's line (lxml), its resname beside the id
            element = seg.ref[0] if isinstance(seg.ref, tuple) else seg.ref
            line = getattr(element, "sourceline", None)
        out.units.append(
            QaUnit(
                str(p),
                _xliff_key(seg) if kind == "xliff" else _po_key(seg),
                seg.source,
                seg.target,
                line=line if isinstance(line, int) else None,
                source_tags=seg.tags,
                target_tags=_target_tags(seg.ref) if kind == "xliff" else -1,
                draft=draft,
            )
        )
        if kind == "po" and bool(getattr(seg.ref, "msgid_plural", None)):
            if first_many:
                out.units[-1] = replace(out.units[-1], source=seg.ref.msgid_plural)
            forms = _plural_forms(p, seg, out.units[-1], one_value)
            out.units.extend(forms)
            out.forms += len(forms)
    return out


def _plural_usage(header: str) -> dict[int, int] | None:
    """How many of the numbers 0–1000 each plural form of a ``Plural-Forms`` header serves
    (a form for one number only, Arabic's ``n==2``, may say it in words, as msgfmt allows);
    None when the header has no rule that reads."""
    import gettext
    import re

    m = re.search(r"plural\s*=\s*([^;]+)", header or "")
    if not m:
        return None
    try:
        rule = gettext.c2py(m.group(1).strip())
        used: dict[int, int] = {}
        for n in range(1001):
            form = int(rule(n))
            used[form] = used.get(form, 0) + 1
    except (ValueError, SyntaxError, RecursionError, ZeroDivisionError):
        return None
    return used


def _plural_forms(p: Path, seg: Any, first: QaUnit, one_value: frozenset[int]) -> list[QaUnit]:
    """The plural forms after the first (``msgstr[1]``, …) as units of their own, checked
    against ``msgid_plural``; a form for one number only is left out (it may say the number
    in words)."""
    entry = seg.ref
    forms = getattr(entry, "msgstr_plural", {}) or {}
    out = []
    for n in sorted(forms):
        text = forms[n]
        if int(n) < 1 or not text or int(n) in one_value:
            continue
        out.append(
            QaUnit(
                str(p),
                f"{first.key}\x04msgstr[{n}]",
                entry.msgid_plural,
                text,
                line=first.line,
                source_tags=first.source_tags,
                draft=first.draft,
            )
        )
    return out


def _xliff_key(seg: Any) -> str:
    """The unit's id, with its ``resname`` when it has one (``1 menu.open``)."""
    context = getattr(seg, "context", "") or ""
    return f"{seg.key} {context[:60]}" if context and context != seg.key else str(seg.key)


def _po_key(seg: Any) -> str:
    entry = seg.ref
    ctx = getattr(entry, "msgctxt", None)
    return f"{ctx}\x04{entry.msgid}" if ctx else str(entry.msgid)


def _read_parallel(p: Path, kind: str, src: str | None, tgt: str | None) -> ReadUnits:
    from xlsearch.engine.importers import ReadContext, read_records

    langs = [x for x in (src, tgt) if x] if kind in ("tsv", "csv") and src and tgt else []
    ctx = ReadContext(p, langs=langs)
    by_tu: dict[int, list[Any]] = {}
    for rec in read_records(ctx, kind):
        by_tu.setdefault(rec.tu, []).append(rec)
    if not by_tu:
        raise DataError(f"{p}: no units to check")
    records = [r for recs in by_tu.values() for r in recs]
    if not langs and any(not r.lang for r in records):
        # No header and no --src/--tgt: each column's language guessed as import does
        # (one guess per column, on a sample of its first texts).
        from xlsearch.engine.lang.doclang import LanguageFiller

        LanguageFiller().fill(records)
    found = [r.lang for recs in by_tu.values() for r in recs if r.lang]
    order: list[str] = list(dict.fromkeys(found))
    src = src or (order[0] if order else "")
    tgt = tgt or next((lang for lang in order if lang != src), "")
    if not src or not tgt:
        raise DataError(f"{p}: the file does not say its languages", hint="pass --src and --tgt")
    out = ReadUnits(p, kind, src, tgt)
    out.warnings = list(ctx.warnings)
    if ctx.warning_count > len(ctx.warnings):
        out.warnings.append(f"{p}: {ctx.warning_count - len(ctx.warnings)} more rows skipped")

    def side(recs: list[Any], lang: str) -> Any:
        prim = lang.split("-")[0]
        return next(
            (r for r in recs if r.lang and (r.lang == lang or r.lang.split("-")[0] == prim)),
            None,
        )

    for tu, recs in by_tu.items():
        s, t = side(recs, src), side(recs, tgt)
        if s is None or t is None or not t.text:
            out.skipped += 1
            continue
        out.units.append(QaUnit(str(p), f"{tu + 1}", s.text, t.text, line=s.line))
    return out
