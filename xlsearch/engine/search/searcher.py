"""Cross-lingual search over the store: semantic (FAISS), lexical (FTS5), hybrid (RRF); STS.

Filters (languages, collection, documents) are applied *before* ranking: small allowed sets
are searched exactly, larger ones through a FAISS ``IDSelector`` (IVF probes widened by the
filter's selectivity, then an exhaustive pass if fewer than k hits came back), so a rare
language still gets k hits when k exist.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from xlsearch.engine.errors import ConfigError, IndexMismatchError
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback
from xlsearch.engine.store.units import UnitFilter

MODES = ("semantic", "lexical", "hybrid", "phrase", "regex")
EXACT_SUBSET = 20_000
"""Filtered searches over at most this many allowed segments are exact (brute force)."""
POST_FILTER_SHARE = 0.05
"""A language filter keeping at least this share of a collection ranks first, filters after."""
RRF_K = 60
"""Reciprocal-rank-fusion constant (Cormack et al. 2009)."""


@dataclass
class SearchHit:
    """One result: a stored segment, where it comes from and its aligned translations."""

    id: int
    score: float
    lang: str
    text: str
    path: str = ""
    collection: str = ""
    document_id: int = 0
    tu_id: str = ""
    translations: list[dict[str, Any]] = field(default_factory=list)
    """Other segments of the same translation unit: ``{"id", "lang", "text"}``."""
    unit: dict[str, Any] = field(default_factory=dict)
    """The unit's metadata (tuid, created/changed date and user, props, notes), if any."""
    copies: int = 1
    """Units with the same text and the same translations this hit stands for (the same
    unit imported twice, or held by two memories)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion: ``score(d) = Σ 1 / (k + rank_d)`` (ranks from 1), best first."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


class Searcher:
    """Search one store; keeps opened indexes and re-checks them against the store each call.

    ``encoder`` (or ``model``, default the active model) is loaded lazily: lexical search
    needs none. One search uses one model for every collection. With ``repair`` (default) a
    stale index is brought up to date and a collection without an index for the model is
    indexed on the spot (progress reported, and a ``notice`` event plus an entry in
    ``notices``); ``repair=False`` refuses both instead.
    """

    def __init__(
        self,
        store: Any,
        encoder: Any = None,
        *,
        model: str | None = None,
        repair: bool = True,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
        indexes: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self._encoder = encoder
        self.model = model
        self.repair = repair
        self.on_progress = on_progress
        self.cancel = cancel
        self._indexes: dict[str, Any] = {} if indexes is None else indexes
        """Opened indexes by collection (``indexes``: shared between searchers; each is
        re-checked against the store before use)."""
        self._allowed: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self.notices: list[str] = []
        """What searching had to do that the user did not ask for (indexing on the spot)."""

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from xlsearch.engine.models.catalog import active_model
            from xlsearch.engine.models.encoder import load_encoder

            self._encoder = load_encoder(self.model or active_model())
        return self._encoder

    # -- indexes -----------------------------------------------------------------------------
    def index(self, collection: str) -> Any:
        """The up-to-date ``OpenIndex`` of ``collection`` (reopened when the store changed)."""
        from xlsearch.engine.index.manager import open_index, read_sidecar

        cached = self._indexes.get(collection)
        gen = self.store.generation()
        if cached is not None and cached.meta.get("checked") == gen:
            side = read_sidecar(cached.folder)
            if side is not None and side.get("file") == cached.meta.get("file"):
                return cached
        try:
            oi = open_index(
                self.store,
                self.encoder,
                collection,
                repair=self.repair,
                on_progress=self.on_progress,
                cancel=self.cancel,
            )
        except IndexMismatchError:
            if not self.repair:
                raise
            oi = self._index_now(collection)
        oi.meta["checked"] = gen
        self._indexes[collection] = oi
        return oi

    def _index_now(self, collection: str) -> Any:
        """Index ``collection`` for this search's model (none yet, or one from other weights)."""
        from xlsearch.engine.index.manager import build_index, index_status, open_index

        try:
            state = index_status(self.store, self.encoder, collection)["state"]
        except IndexMismatchError:
            state = "unreadable"
        why = {
            "missing": "no index",
            "mismatch": "an index from other weights",
        }.get(state, "an unreadable index")
        segments = self.store.count_segments(collection=collection)
        notice = (
            f"collection {collection!r} had {why} for model {model_label(self.encoder)}: "
            f"indexing its {segments:,} segments now (once; cached vectors are reused)"
        )
        self.notices.append(notice)
        if self.on_progress:
            self.on_progress(Progress("notice", 0, None, notice))
        build_index(
            self.store,
            self.encoder,
            collection,
            rebuild=state != "missing",
            on_progress=self.on_progress,
            cancel=self.cancel,
        )
        return open_index(self.store, self.encoder, collection, repair=True)

    def _collections(self, collection: str | None) -> list[str]:
        if collection is not None:
            self.store.require_collection(collection)
            return [collection]
        return self.store.nonempty_collections()

    def _allowed_ids(
        self,
        collection: str,
        langs: Sequence[str] | None,
        documents: Sequence[int] | None,
        units: UnitFilter | None = None,
    ) -> np.ndarray | None:
        if not langs and documents is None and not units:
            return None
        key = (
            collection,
            tuple(langs or ()),
            tuple(documents or ()),
            units or None,
            self.store.generation(),
        )
        if key not in self._allowed:
            ids = self.store.segment_ids(
                collection=collection, langs=langs, documents=documents, units=units
            )
            self._allowed[key] = ids
            while len(self._allowed) > 32:
                self._allowed.popitem(last=False)
        self._allowed.move_to_end(key)
        return self._allowed[key]

    # -- semantic ----------------------------------------------------------------------------
    def semantic(
        self,
        qvec: np.ndarray,
        k: int,
        *,
        langs: Sequence[str] | None = None,
        collection: str | None = None,
        documents: Sequence[int] | None = None,
        units: UnitFilter | None = None,
    ) -> list[tuple[int, float]]:
        """Top-``k`` ``(segment id, cosine)`` for an embedded query, filters before ranking."""
        found: list[tuple[int, float]] = []
        for name in self._collections(collection):
            if langs and documents is None and not units:
                post = self._post_filtered(name, qvec, k, langs)
                if post is not None:
                    found.extend(post)
                    continue
            allowed = self._allowed_ids(name, langs, documents, units)
            if allowed is not None and len(allowed) == 0:
                continue
            found.extend(_search_one(self.index(name).vi, qvec, k, allowed))
        found.sort(key=lambda t: (-t[1], t[0]))
        return found[:k]

    def _post_filtered(
        self, name: str, qvec: np.ndarray, k: int, langs: Sequence[str]
    ) -> list[tuple[int, float]] | None:
        """Top-``k`` in ``langs`` by ranking first and filtering after, when those languages
        hold at least ``POST_FILTER_SHARE`` of the collection: then listing their ids (a
        second per million segments) costs more than the search. The same hits as the
        filtered search: the index visits as many lists, and when fewer than ``k`` of the
        deeper ranking pass the filter, None sends the caller to the filtered search."""
        from xlsearch.engine.lang.tags import matching

        counts = self.store.recorded_languages(name)
        total = sum(counts.values())
        keep = set(matching(list(langs), counts))
        wanted = sum(counts[t] for t in keep)
        if not total or wanted / total < POST_FILTER_SHARE:
            return None
        vi = self.index(name).vi
        if vi.ntotal == 0:
            return []
        share = wanted / total
        depth = min(vi.ntotal, int(np.ceil(2 * k / share)) + 8)
        nprobe = vi.filtered_nprobe(share) if vi.ivf is not None else None
        scores, labels = vi.search(qvec, depth, nprobe=nprobe)
        ids = [int(i) for i in labels[0] if i >= 0]
        lang_of = self.store.segment_langs(ids)
        hits = [
            (i, float(s))
            for i, s in zip(labels[0].tolist(), scores[0].tolist(), strict=True)
            if lang_of.get(i) in keep
        ]
        if len(hits) < min(k, wanted) and depth < vi.ntotal:
            return None
        return hits[:k]

    # -- all modes ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        *,
        mode: str = "semantic",
        langs: Sequence[str] | None = None,
        collection: str | None = None,
        documents: Sequence[int] | None = None,
        case_sensitive: bool = False,
        translations: bool = True,
        units: UnitFilter | None = None,
        variants: bool = False,
    ) -> list[SearchHit]:
        """Top-``k`` hits for ``query`` in ``mode`` (semantic, lexical, hybrid, phrase, regex).

        ``langs``: BCP 47 prefixes (``en`` finds ``en-GB``); ``units``: translation-unit
        metadata filters (``UnitFilter``: props, notes, users, dates), applied before ranking.
        One hit per translation unit (its best-scoring segment) unless ``variants``: then
        every matching segment, so one unit may fill several ranks (e.g. its en and de side).
        """
        if mode not in MODES:
            raise ConfigError(f"unknown search mode {mode!r}; choose from {', '.join(MODES)}")
        if not query.strip():
            raise ConfigError("the query is empty")
        if k < 1:
            raise ConfigError("k must be at least 1")
        if collection is not None:
            self.store.require_collection(collection)
        langs = list(langs) if langs else None
        qvec = None
        if mode in ("semantic", "hybrid"):
            qvec = np.asarray(self.encoder.encode([query]), dtype=np.float32)
        for _attempt in range(3):  # a concurrent import/delete: redo on the new snapshot
            gen = self.store.generation()
            depth = k if variants else 3 * k
            while True:
                ranked = self._rank(
                    query, qvec, depth, mode, langs, collection, documents, case_sensitive, units
                )
                hits = self.hits(ranked, translations=translations)
                if not variants:
                    hits = best_per_unit(hits)
                # fewer than asked after merging variants: look deeper (the store may have more)
                if variants or len(hits) >= k or len(ranked) < depth or depth >= 64 * k:
                    break
                depth *= 4
            if self.store.generation() == gen:
                break
        return hits[:k]

    def _rank(
        self,
        query: str,
        qvec: np.ndarray | None,
        k: int,
        mode: str,
        langs: list[str] | None,
        collection: str | None,
        documents: Sequence[int] | None,
        case_sensitive: bool,
        units: UnitFilter | None = None,
    ) -> list[tuple[int, float]]:
        if qvec is None:
            fts = {"lexical": "match", "phrase": "phrase", "regex": "regex"}[mode]
            return self.store.fts_search(
                query,
                k,
                collection=collection,
                langs=langs,
                mode=fts,
                case_sensitive=case_sensitive,
                documents=documents,
                units=units,
            )
        if mode == "semantic":
            return self.semantic(
                qvec, k, langs=langs, collection=collection, documents=documents, units=units
            )
        deep = max(50, 3 * k)
        sem = self.semantic(
            qvec, deep, langs=langs, collection=collection, documents=documents, units=units
        )
        lex = self.store.fts_search(
            query,
            deep,
            collection=collection,
            langs=langs,
            mode="match",
            case_sensitive=case_sensitive,
            documents=documents,
            units=units,
        )
        return rrf([[i for i, _ in sem], [i for i, _ in lex]])[:k]

    def hits(
        self, ranked: Sequence[tuple[int, float]], *, translations: bool = True
    ) -> list[SearchHit]:
        """Turn ``(id, score)`` pairs into ``SearchHit``s (ids deleted meanwhile are dropped)."""
        rows = {r["id"]: r for r in self.store.segments([i for i, _ in ranked])}
        tu_ids = {r["tu_id"] for r in rows.values()}
        units = self.store.translations(tu_ids) if translations else {}
        metas = self.store.unit_meta(tu_ids)
        out = []
        for sid, score in ranked:
            r = rows.get(int(sid))
            if r is None:
                continue
            aligned = [
                {"id": t["id"], "lang": t["lang"], "text": t["text"]}
                for t in units.get(r["tu_id"], [])
                if t["id"] != r["id"] and t["document_id"] == r["document_id"]
            ]
            out.append(
                SearchHit(
                    int(sid),
                    float(score),
                    r["lang"],
                    r["text"],
                    r.get("path", ""),
                    r.get("collection", ""),
                    r["document_id"],
                    r["tu_id"],
                    aligned,
                    metas.get(r["tu_id"], {}),
                )
            )
        return out


def best_per_unit(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Keep the first (best-ranked) hit of each translation unit (same document and unit),
    and one of units that say the same (same segment, same translations): it counts the
    others in ``copies``, as a lookup shows ``[tm, 2 copies]``."""
    seen: set[tuple[int, str]] = set()
    same: dict[tuple[Any, ...], SearchHit] = {}
    out = []
    for h in hits:
        key = (h.document_id, h.tu_id)
        if h.tu_id and key in seen:
            continue
        seen.add(key)
        text = (h.lang, h.text, tuple(sorted((t["lang"], t["text"]) for t in h.translations)))
        if text in same:
            same[text].copies += 1
            continue
        same[text] = h
        out.append(h)
    return out


def model_label(encoder: Any) -> str:
    """A short name of the encoder's model (folder name, or ``bundled:teacher``)."""
    from pathlib import Path

    ident = str(getattr(encoder, "id", "") or "model")
    return ident if ident.startswith("bundled:") else Path(ident).name or ident


def _search_one(
    vi: Any, qvec: np.ndarray, k: int, allowed: np.ndarray | None
) -> list[tuple[int, float]]:
    """Top-``k`` of one index; ``allowed`` restricts ids before ranking (see module doc)."""
    from xlsearch.engine.index.vectors import exact_topk

    if vi.ntotal == 0:
        return []
    want = min(k, vi.ntotal if allowed is None else len(allowed))
    if allowed is not None and len(allowed) <= EXACT_SUBSET:
        if vi.ivf is None:
            vecs = _reconstruct_present(vi, allowed)
            if vecs is not None:
                ids, mat = vecs
                scores, labels = exact_topk(qvec, mat, ids, k)
                return list(zip(labels[0].tolist(), scores[0].tolist(), strict=True))
        scores, labels = vi.search(qvec, k, allowed=allowed, exhaustive=True)
    else:
        scores, labels = vi.search(qvec, k, allowed=allowed)
        if int((labels[0] >= 0).sum()) < want:
            scores, labels = vi.search(qvec, k, allowed=allowed, exhaustive=True)
    keep = labels[0] >= 0
    return list(zip(labels[0][keep].tolist(), scores[0][keep].tolist(), strict=True))


def _reconstruct_present(vi: Any, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids, vectors) of the allowed ids the (flat/HNSW) index holds."""
    import faiss

    rev = faiss.vector_to_array(vi.index.id_map)
    ids = np.intersect1d(allowed, rev)
    if len(ids) == 0:
        return ids, np.zeros((0, vi.dim), np.float32)
    try:
        return ids, vi.reconstruct(ids)
    except RuntimeError:  # pragma: no cover - index without reconstruct
        return None


def search(
    query: str,
    k: int = 10,
    *,
    mode: str = "semantic",
    langs: Sequence[str] | None = None,
    collection: str | None = None,
    documents: Sequence[int] | None = None,
    case_sensitive: bool = False,
    model: str | None = None,
    encoder: Any = None,
    store_path: str | None = None,
    units: UnitFilter | None = None,
    variants: bool = False,
) -> list[SearchHit]:
    """One-shot search over the default store (opens and closes it)."""
    from xlsearch.engine.store import Store

    with Store(store_path) as store:
        return Searcher(store, encoder, model=model).search(
            query,
            k,
            mode=mode,
            langs=langs,
            collection=collection,
            documents=documents,
            case_sensitive=case_sensitive,
            units=units,
            variants=variants,
        )


__all__ = [
    "MODES",
    "SearchHit",
    "Searcher",
    "best_per_unit",
    "model_label",
    "rrf",
    "search",
]
