"""Checking translations (``xlsearch check``, the Translate screen's Check panel)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from xlsearch.engine.progress import CancelToken, ProgressCallback

if TYPE_CHECKING:
    from xlsearch.engine.qa.check import CheckResult
    from xlsearch.engine.qa.units import Flag
    from xlsearch.engine.tm.documents import Document
    from xlsearch.service.types import LoadedEncoder


@dataclass(frozen=True, slots=True)
class CheckFlag:
    """One problem in one unit: where, what, how bad, why."""

    file: str
    unit: str
    """The unit id as people read it (PO: ``msgctxt | msgid``, ``| msgstr[1]`` for a
    plural form; XLIFF: ``id resname``)."""
    source: str
    target: str
    kind: str
    severity: str
    explanation: str
    line: int | None = None
    score: float | None = None
    segment: int | None = None
    """The segment's index in an open document (the Translate screen jumps to it)."""
    context: str | None = None
    """PO: the entry's ``msgctxt`` (None: none)."""
    ident: str = ""
    """The id without its context: PO ``msgid``, XLIFF ``id``, a TMX/TSV line."""
    draft: bool = False
    """The target is a draft no translator confirmed (a fill xlsearch wrote for review, a PO
    ``fuzzy`` entry)."""


@dataclass(frozen=True, slots=True)
class CheckCalibration:
    """What the semantic checks measured for one file and language pair."""

    pair: str
    units: int
    supported: bool
    note: str
    thresholds: tuple[tuple[str, float], ...]
    shuffled_caught: float
    own_below: float


@dataclass(frozen=True, slots=True)
class CheckReport:
    """A check run: how many units were checked, the flags, the semantic calibrations."""

    checked: int
    skipped: int
    flags: tuple[CheckFlag, ...]
    calibrations: tuple[CheckCalibration, ...]
    notes: tuple[str, ...]
    model: str
    drafts: int = 0
    """Of the ``checked``: drafts no translator confirmed (xlsearch's fills for review)."""
    drafts_skipped: int = 0
    """Of the ``skipped``: drafts another tool left (PO ``fuzzy``), checked on request."""

    def counts(self) -> dict[str, int]:
        """Flags by severity."""
        out = {"error": 0, "warning": 0, "info": 0}
        for f in self.flags:
            out[f.severity] = out.get(f.severity, 0) + 1
        return out


def check_translations(
    paths: Sequence[str],
    *,
    collection: str | None = None,
    memory: str | None = None,
    src: str | None = None,
    tgt: str | None = None,
    encoder: LoadedEncoder | None = None,
    model_name: str = "",
    fuzzy: bool = False,
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CheckReport:
    """Check ``paths`` (and the ``collection``'s pairs, given ``src``/``tgt``); ``memory``: a
    collection whose translations the consistency check compares with; ``encoder``: the
    model (``model_name``) of the calibrated semantic checks, None for none; ``fuzzy``:
    every draft (PO ``fuzzy``) too, not only the fills xlsearch wrote."""
    from xlsearch.engine.errors import DataError
    from xlsearch.engine.qa import check_files, check_units
    from xlsearch.engine.qa.check import CheckResult
    from xlsearch.engine.qa.memory import collection_pairs, memory_of

    memory_map = None
    if (memory or collection) and paths and not (src and tgt):
        from xlsearch.engine.qa.read import read_units

        first = read_units(paths[0], src, tgt)  # the pair the file says it is
        src, tgt = src or first.src, tgt or first.tgt
    if memory or collection:
        from xlsearch.engine.store import Store

        store = Store()
        try:
            if collection and not (src and tgt):
                raise DataError(
                    f"checking collection {collection!r} needs its language pair",
                    hint=f"pass --src and --tgt (e.g. {_pair_example(store, collection)})",
                )
            if memory:
                if not src or not tgt:
                    raise DataError(
                        "comparing with a memory needs the language pair",
                        hint=f"pass --src and --tgt (e.g. {_pair_example(store, memory)})",
                    )
                memory_map = memory_of(collection_pairs(store, memory, src, tgt))
            # (a collection without its language pair was refused above)
            pairs = []
            if collection and src and tgt:
                pairs = collection_pairs(store, collection, src, tgt)
        finally:
            store.close()
    result = check_files(
        list(paths),
        src=src,
        tgt=tgt,
        encoder=encoder,
        memory=memory_map,
        fuzzy=fuzzy,
        on_progress=on_progress,
        cancel=cancel,
    )
    if collection:
        assert src and tgt
        flags, cal = check_units(
            pairs, src, tgt, encoder=encoder, memory=memory_map, on_progress=on_progress,
            cancel=cancel,
        )  # fmt: skip
        more = CheckResult(checked=len(pairs), flags=flags, calibrations=[cal] if cal else [])
        result.checked += more.checked
        result.flags.extend(more.flags)
        result.calibrations.extend(more.calibrations)
        if cal is not None and cal.note:
            result.notes.append(f"{collection}: {cal.note}")
    return _report(result, model_name)


def check_document(
    doc: Document,
    encoder: LoadedEncoder | None = None,
    *,
    model: str = "",
    on_progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> CheckReport:
    """Check the targets of an open document (``Document``, with the translator's edits);
    each flag names its segment's index."""
    from xlsearch.engine.qa import QaUnit, check_units
    from xlsearch.engine.qa.check import CheckResult
    from xlsearch.engine.tm.documents.xliff import written_tags

    xliff = doc.fmt == "xliff"
    units = [  # an XLIFF target's inline codes as the save will write them
        QaUnit(
            str(doc.path),
            str(seg.index),
            seg.source,
            seg.target,
            source_tags=seg.tags if xliff else 0,
            target_tags=written_tags(seg) if xliff else -1,
        )
        for seg in doc.segments
        if seg.target
    ]
    flags, cal = check_units(
        units, doc.src, doc.tgt or "", encoder=encoder, on_progress=on_progress, cancel=cancel
    )
    keys = {str(seg.index): seg.key for seg in doc.segments}
    result = CheckResult(
        checked=len(units),
        skipped=len(doc.segments) - len(units),
        flags=flags,
        calibrations=[cal] if cal else [],
        notes=[cal.note] if cal is not None and cal.note else [],
    )
    return _report(result, model, keys)


class _Languages(Protocol):
    def languages(self, collection: str | None = None) -> dict[str, int]: ...


def _pair_example(store: _Languages, collection: str) -> str:
    """``--src X --tgt Y`` with the collection's two most written languages."""
    try:
        langs = sorted(store.languages(collection).items(), key=lambda kv: -kv[1])
    except Exception:  # noqa: BLE001 - an unknown collection: the generic example
        langs = []
    if len(langs) < 2:
        return "--src en --tgt fr"
    a, b = langs[0][0], langs[1][0]
    if b.split("-")[0] == "en":  # English is the usual source
        a, b = b, a
    return f"--src {a} --tgt {b}"


def _flag(f: Flag, keys: dict[str, str] | None) -> CheckFlag:
    """The typed flag of an engine flag, its unit id readable (no gettext EOT)."""
    from xlsearch.engine.qa.units import key_parts, readable_key

    key = keys.get(f.key, f.key) if keys is not None else f.key
    context, ident, _form = key_parts(key)
    return CheckFlag(
        f.file,
        readable_key(key),
        f.source,
        f.target,
        f.kind,
        f.severity,
        f.message,
        f.line,
        f.score,
        int(f.key) if keys is not None else None,
        context,
        ident,
        f.draft,
    )


def _report(result: CheckResult, model: str, keys: dict[str, str] | None = None) -> CheckReport:
    """The typed report of an engine result (``keys``: segment index → unit key)."""
    return CheckReport(
        checked=result.checked,
        skipped=result.skipped,
        flags=tuple(_flag(f, keys) for f in result.flags),
        calibrations=tuple(
            CheckCalibration(
                c.pair,
                c.units,
                c.supported,
                c.note,
                tuple(c.thresholds.items()),
                c.shuffled_caught,
                c.own_below,
            )
            for c in result.calibrations
        ),  # fmt: skip
        notes=tuple(result.notes),
        model=model,
        drafts=result.drafts,
        drafts_skipped=result.drafts_skipped,
    )
