"""Which semantic matches of an analysis may be written (``decide_fills``: the user's
own memory decides, ``tm.calibration.memory``; the model's fill calibration,
``calibration.fill``, is the prior), and the demo-model notice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from xlsearch.engine.calibration.fill import (
    TOY_PAIRS,
    FillPolicy,
    judge,
    pair_key,
    small_model_label,
    trained_pairs,
)

if TYPE_CHECKING:
    from xlsearch.engine.tm.calibration.memory import MemoryCalibration


class Fill(NamedTuple):
    """Whether a semantic match may be written, the model's prior and the memory's evidence."""

    fill: bool
    probability: float
    evidence: str


def decide_fills(
    results: Sequence[Any],
    lookup: Any,
    src: str,
    tgt: str,
    threshold: float = 0.8,
    *,
    on_progress: Any = None,
    cancel: Any = None,
) -> tuple[FillPolicy, dict[int, Fill]]:
    """Decide which semantic-band segments of an analysis may be written: the policy, and
    for each result with a semantic match that has a target (by position) its ``Fill``. A
    fill needs the evidence of the user's own memory (``tm.calibration.memory``): the
    dev-split calibration alone never writes."""
    todo = [n for n, r in enumerate(results) if r.semantic is not None and r.semantic.target]
    encoder = lookup.searcher.encoder if getattr(lookup, "semantic", False) else None
    if encoder is None:
        return FillPolicy("", pair_key(src, tgt), None, "no model"), {}
    policy, verdicts = judge(
        encoder,
        src,
        tgt,
        [results[n].source for n in todo],
        [results[n].semantic.target for n in todo],
    )
    seen = trained_pairs(getattr(encoder, "card", None) or {})
    mem = (
        memory_evidence(lookup, src, tgt, threshold, on_progress=on_progress, cancel=cancel)
        if todo
        else None
    )
    policy.memory = mem
    fills: dict[int, Fill] = {}
    for n, (_cos, p, _ok) in zip(todo, verdicts, strict=True):
        r = results[n]
        cos, fuzzy = float(r.semantic.semantic or 0.0), r.semantic.fuzzy
        ev = mem.evidence(r.source, cos, fuzzy) if mem else None
        fills[n] = Fill(ev is not None, p, ev or "")
    if seen is not None and seen < TOY_PAIRS:  # the store is asked only for a toy
        names = searched_collections(lookup)
        langs = _memory_languages(lookup, names, src, tgt)
        store = getattr(lookup, "store", None)
        paired = english_pairs(store, names, langs) if store is not None else None
        exclude = str(getattr(encoder, "id", ""))
        policy.notice = toy_notice(
            encoder, names, langs, paired=paired, covering=covering_model(langs, exclude)
        )
    return policy, fills


def memory_evidence(
    lookup: Any,
    src: str,
    tgt: str,
    threshold: float,
    *,
    on_progress: Any = None,
    cancel: Any = None,
) -> MemoryCalibration | None:
    """The calibration of ``lookup``'s model on the user's own memory for ``src`` → ``tgt``
    (``tm.calibration.memory``): the evidence a semantic match needs to be written. None
    without a model, or for a model that saw fewer than ``TOY_PAIRS`` pairs (none of its
    semantic matches is written)."""
    encoder = lookup.searcher.encoder if getattr(lookup, "semantic", False) else None
    if encoder is None:
        return None
    seen = trained_pairs(getattr(encoder, "card", None) or {})
    if seen is not None and seen < TOY_PAIRS:
        return None
    from xlsearch.engine.tm.calibration.memory import calibrate

    return calibrate(lookup, src, tgt, threshold, on_progress=on_progress, cancel=cancel)


def _memory_languages(lookup: Any, names: Sequence[str], src: str, tgt: str) -> list[str]:
    """The job's languages, then the searched memory's (most segments first)."""
    store = getattr(lookup, "store", None)
    found = memory_languages(store, names) if store is not None else []
    return [x for x in (tgt, src) if x] + found


def memory_languages(store: Any, names: Sequence[str]) -> list[str]:
    """The languages of the collections ``names`` (the demo collection left out), most
    segments first, as each document recorded them at import (no segment is counted)."""
    from xlsearch.engine.models.catalog import DEMO_COLLECTION

    counts: dict[str, int] = {}
    for name in names:
        if name != DEMO_COLLECTION:
            for lang, n in store.recorded_languages(name).items():
                counts[lang] = counts.get(lang, 0) + n
    return sorted(counts, key=lambda x: -counts[x])


def searched_collections(lookup: Any) -> list[str]:
    """The collections a lookup searches: its own, else every one in the store."""
    if getattr(lookup, "collection", None):
        return [lookup.collection]
    try:
        return list(lookup.store.nonempty_collections())
    except (AttributeError, KeyError, TypeError):
        return []


# -- the toy-model notice ------------------------------------------------------------------------
def _export_langs(langs: Sequence[str]) -> str:
    """``--lang`` for exporting distillation data: English first, then up to three other
    languages (most frequent first), each once by its primary subtag (a prefix: ``de``
    exports ``de-DE`` and ``de-AT`` too); ``en,de`` when there are none."""
    from xlsearch.engine.lang.tags import primary

    others: list[str] = []
    for tag in langs:
        lang = primary(tag)
        if lang and lang != "en" and lang not in others:
            others.append(lang)
    return ",".join(["en", *(others[:3] or ["de"])])


def english_pairs(store: Any, names: Sequence[str], langs: Sequence[str]) -> list[str]:
    """The languages among ``langs`` (primary subtags, in order) that share a translation
    unit with English in the collections ``names`` (the demo collection left out): what an
    export can turn into distillation pairs. Monolingual files give none. One indexed look-up
    per language, stopping at the first unit found."""
    from xlsearch.engine.lang.tags import primary
    from xlsearch.engine.models.catalog import DEMO_COLLECTION

    ids = [store.collection_id(n) for n in names if n != DEMO_COLLECTION]
    ids = [i for i in ids if i is not None]
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    sql = (
        "SELECT 1 FROM segments a JOIN documents d ON d.id = a.document_id "
        "JOIN segments b ON b.tu_id = a.tu_id AND b.id != a.id "
        f"WHERE d.collection_id IN ({marks}) AND (a.lang = 'en' OR a.lang LIKE 'en-%') "
        "AND (b.lang = ? OR b.lang LIKE ?) LIMIT 1"
    )
    out: list[str] = []
    for tag in langs:
        lang = primary(tag)
        if not lang or lang == "en" or lang in out:
            continue
        if store.conn.execute(sql, (*ids, lang, f"{lang}-%")).fetchone():
            out.append(lang)
    return out


def covering_model(langs: Sequence[str], exclude: str = "") -> str | None:
    """The name of an installed, finished model that is no toy and whose card covers every
    language of ``langs`` (None: there is none)."""
    from xlsearch.engine.lang.tags import primary
    from xlsearch.engine.models.cards import BUNDLED_TEACHER, trained_languages
    from xlsearch.engine.models.catalog import list_models

    want = {primary(t) for t in langs if primary(t)}
    if not want:
        return None
    for info in list_models():
        seen = trained_pairs(info.card)
        if info.spec == exclude or (seen is not None and seen < TOY_PAIRS):
            continue
        known = trained_languages(info.spec, info.card)
        if known is not None and want <= known:
            return "bundled:teacher" if info.spec == BUNDLED_TEACHER else info.path.name
    return None


def toy_notice(
    encoder_or_card: Any,
    collections: Sequence[str] | None = None,
    languages: Sequence[str] = (),
    *,
    paired: Sequence[str] | None = None,
    covering: str | None = None,
) -> str | None:
    """A one-line notice when a model that saw fewer than ``TOY_PAIRS`` pairs is used on
    anything but the demo collection (it was built for it), with advice that works for the
    memory at hand: ``covering``, an installed model that knows its languages, first; else
    the commands that make a real student from the memory's units with English and another
    language (``paired``: those languages; None: not looked up, the memory's ``languages``
    are used); else, for a memory without such units (monolingual files), where the pairs
    must come from. None when nothing needs saying."""
    from xlsearch.engine.models.catalog import DEMO_COLLECTION as DEMO

    card = (
        encoder_or_card
        if isinstance(encoder_or_card, dict)
        else (getattr(encoder_or_card, "card", None) or {})
    )
    n = trained_pairs(card)
    if n is None or n >= TOY_PAIRS:
        return None
    if collections is not None and list(collections) and set(collections) <= {DEMO}:
        return None
    head = (
        f"this model saw only {n:,} translation pairs ({small_model_label(card)}): "
        "its semantic scores are rough"
    )
    if covering:
        return f"{head}; {covering} knows your memory's languages: xlsearch models --use {covering}"
    langs = list(languages) or [x for x in card.get("languages", []) if isinstance(x, str)]
    own = [c for c in collections or [] if c != DEMO]
    name = own[0] if len(own) == 1 else "YOUR-MEMORY"
    if paired is not None and not paired:
        others = _export_langs(langs).split(",")[1:]
        first = others[0]
        return (
            f"{head}; your memory holds no units with English and {', '.join(others)} to learn "
            f"from (monolingual files): distil a student from English–{first} sentence pairs "
            f"(xlsearch distill --train en-{first}.tsv --name my-student; see "
            f"docs/distill.md), then mine your files for more pairs with it (xlsearch mine "
            f"--src {first} --tgt en --model my-student --out pairs.tsv)"
        )
    lang_arg = _export_langs(list(paired) if paired else langs)
    return (
        f"{head}; make a real student from your own memory: xlsearch export --collection "
        f"{name} --lang {lang_arg} tm.tsv && xlsearch distill --train tm.tsv "
        "--name my-student"
    )


__all__ = [
    "Fill",
    "decide_fills",
    "covering_model",
    "english_pairs",
    "memory_evidence",
    "memory_languages",
    "searched_collections",
    "toy_notice",
]
