"""Translation-memory lookup: a source segment → the memory's best matches, CAT style.

Candidates come from three cheap sources, so a lookup costs the same at 1M units as at 1k:
the exact text (hash index), the vector index (one FAISS search, split by language) and
FTS5 over the segment's rarest words. Each candidate gets its CAT fuzzy % (``fuzzy``), its
cosine with the segment (vectors from the store's cache, computed only when missing) and a
combined score (``Weights``), then a word diff against the new segment and a check of
numbers, tags and placeholders. Matches whose source side is in another language than the
segment form a separate, labelled cross-language group (ranked mostly by cosine).
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from xlsearch.engine import fuzzy as fz
from xlsearch.engine.errors import ConfigError, IndexMismatchError, ModelError
from xlsearch.engine.langtags import primary
from xlsearch.engine.matches import (
    COSINE_FLOOR,
    DEFAULT_WEIGHTS,
    FUZZY_FLOOR,
    SEMANTIC_THRESHOLD,
    LookupResult,
    Match,
    Weights,
)
from xlsearch.engine.progress import CancelToken, Progress, ProgressCallback, no_progress

_DF_CACHE: dict[tuple[str, int], dict[str, int]] = {}


def _first(seen: set[str], key: str) -> bool:
    """True the first time ``key`` is seen (one cross-language match per unit)."""
    if key in seen:
        return False
    seen.add(key)
    return True


def _fold(word: str) -> str:
    """A word as FTS5's ``unicode61 remove_diacritics 2`` tokenizer stores it."""
    nfkd = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in nfkd if not unicodedata.combining(c))


class Lookup:
    """Look segments up in the store (one collection or all) with the active model.

    ``semantic=False`` (or no model) gives the CAT tools' ranking by fuzzy % alone.
    """

    def __init__(
        self,
        store: Any,
        encoder: Any = None,
        *,
        model: str | None = None,
        collection: str | None = None,
        semantic: bool = True,
        weights: Weights = DEFAULT_WEIGHTS,
        depth: int = 40,
        repair: bool = True,
        searcher: Any = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> None:
        from xlsearch.engine.search import Searcher

        self.store = store
        self.collection = collection
        self.semantic = semantic
        self.weights = weights
        self.depth = depth
        if collection is not None and store.collection_id(collection) is None:
            raise ConfigError(f"no collection named {collection!r}")
        self.searcher = searcher or Searcher(
            store, encoder, model=model, repair=repair, on_progress=on_progress, cancel=cancel
        )
        self._df_ready = False
        self._total: tuple[int, int] | None = None
        self.note = ""

    # -- public ------------------------------------------------------------------------------
    def lookup(
        self,
        segment: str,
        src: str,
        tgt: str = "",
        k: int = 5,
        cross_k: int = 3,
        *,
        require_target: bool = False,
        min_fuzzy: int = 0,
        all_matches: bool = False,
    ) -> LookupResult:
        """The best ``k`` same-language matches and ``cross_k`` cross-language ones."""
        qvec = self._encode_or_fallback([segment])
        qvec = qvec[0] if qvec is not None else None
        return self._one(
            segment, qvec, src, tgt, k, cross_k, require_target, min_fuzzy, all_matches
        )

    def lookup_many(
        self,
        segments: Sequence[str],
        src: str,
        tgt: str = "",
        k: int = 1,
        cross_k: int = 1,
        *,
        require_target: bool = False,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[LookupResult]:
        """``lookup`` for many segments (the embeddings computed in one batch)."""
        on_progress = on_progress or no_progress
        qvecs = self._encode_or_fallback(list(segments)) if segments else None
        out = []
        for i, seg in enumerate(segments):
            if cancel is not None:
                cancel.raise_if_cancelled()
            qv = qvecs[i] if qvecs is not None else None
            out.append(self._one(seg, qv, src, tgt, k, cross_k, require_target, 0, False))
            if i % 20 == 0 or i + 1 == len(segments):
                on_progress(Progress("lookup", i + 1, len(segments), "matching segments"))
        return out

    def _encode_or_fallback(self, texts: list[str]) -> np.ndarray | None:
        """Embeddings of ``texts``; a missing model or index turns semantic matching off
        (``note`` says why) so the translator still gets the CAT fuzzy matches."""
        if not self.semantic:
            return None
        try:
            vecs = self.encode(texts)
            for name in self.searcher._collections(self.collection):
                self.searcher.index(name)
            return vecs
        except (ModelError, IndexMismatchError) as exc:
            self.semantic = False
            self.note = f"fuzzy matches only: {exc}"
            return None

    def encode(self, texts: list[str]) -> np.ndarray:
        vecs = np.asarray(self.searcher.encoder.encode(texts), dtype=np.float32)
        return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)

    # -- one segment -------------------------------------------------------------------------
    def _one(
        self,
        segment: str,
        qvec: np.ndarray | None,
        src: str,
        tgt: str,
        k: int,
        cross_k: int,
        require_target: bool,
        min_fuzzy: int,
        all_matches: bool,
    ) -> LookupResult:
        start = time.perf_counter()
        segment = " ".join(segment.split())
        if not segment:
            raise ConfigError("the segment to look up is empty")
        cands: dict[int, float | None] = {}
        for sid in self._exact(segment, src):
            cands[sid] = None
        for sid in self._lexical(segment, src):
            cands.setdefault(sid, None)
        cross_ids: dict[int, float] = {}
        if qvec is not None:
            same, other = self._semantic(qvec, src)
            for sid, cos in same:
                cands[sid] = cos
            cross_ids = dict(other)
        rows = {r["id"]: r for r in self.store.segments([*cands, *cross_ids])}
        units = self.store.translations({r["tu_id"] for r in rows.values()})
        if qvec is not None:
            self._fill_cosines(qvec, cands, rows)
        matches = []
        for sid, cos in cands.items():
            row = rows.get(sid)
            if row is None:
                continue
            m = self._match(segment, row, units, tgt, cos)
            if (require_target and not m.target) or m.fuzzy < min_fuzzy:
                continue
            if not all_matches and m.fuzzy < FUZZY_FLOOR and (cos or 0.0) < COSINE_FLOOR:
                continue
            matches.append(m)
        matches.sort(key=lambda m: (-m.score, -m.fuzzy, m.segment_id))
        matches = matches[:k]
        for m in matches:
            m.diff = fz.diff(segment, m.source)
            m.flags = fz.flags(segment, m.source)
        seen_units = {rows[m.segment_id]["tu_id"] for m in matches}
        cross = []
        for sid, cos in cross_ids.items():
            row = rows.get(sid)
            if row is None or row["tu_id"] in seen_units:
                continue
            if any(primary(t["lang"]) == primary(src) for t in units.get(row["tu_id"], [])):
                continue  # the unit has a source-language side: a same-language candidate
            if not all_matches and cos < COSINE_FLOOR:
                continue
            m = self._match(segment, row, units, tgt, cos, cross=True)
            if require_target and not m.target:
                continue
            cross.append(m)
        cross.sort(key=lambda m: (-m.score, m.segment_id))
        cross = [m for m in cross if _first(seen_units, rows[m.segment_id]["tu_id"])][:cross_k]
        for m in cross:
            m.flags = fz.flags(segment, m.source)
        ms = (time.perf_counter() - start) * 1000
        return LookupResult(segment, src, tgt, matches, cross, ms, self.note)

    def _match(
        self,
        segment: str,
        row: dict[str, Any],
        units: dict[str, list[dict[str, Any]]],
        tgt: str,
        cos: float | None,
        cross: bool = False,
    ) -> Match:
        aligned = {
            t["lang"]: t["text"]
            for t in reversed(units.get(row["tu_id"], []))
            if t["id"] != row["id"] and t["document_id"] == row["document_id"]
        }
        target = aligned.get(tgt, "") or next(
            (t for lang, t in aligned.items() if tgt and primary(lang) == primary(tgt)), ""
        )
        if cross and tgt and primary(row["lang"]) == primary(tgt):
            target = row["text"]
        f = fz.fuzzy(segment, row["text"])
        if cross:  # shared names, numbers and cognates still say something
            score = self.weights.cross(f, cos or 0.0)
        else:
            score = self.weights.score(f, cos, fz.char_similarity(segment, row["text"]))
        return Match(
            row["id"],
            row["text"],
            row["lang"],
            target,
            tgt,
            f,
            None if cos is None else round(float(cos), 4),
            round(score, 2),
            cross_language=cross,
            translations=aligned,
            collection=row.get("collection", ""),
            document=str(row.get("path", "")).rsplit("/", 1)[-1],
        )

    # -- candidates --------------------------------------------------------------------------
    def _where(self, src: str) -> tuple[str, list[Any]]:
        # the language, not the exact tag: an en-US document matches an en or en-GB memory
        where, params = self.store._filters(self.collection, [primary(src)] if src else None)
        return where.replace(" WHERE ", " AND ", 1), params

    def _exact(self, segment: str, src: str) -> list[int]:
        from xlsearch.engine.store.ingest import text_hash

        extra, params = self._where(src)
        cur = self.store.conn.execute(
            # without the hint SQLite may walk the language index (half the store)
            f"SELECT s.id FROM segments s INDEXED BY segments_text_hash "
            f"WHERE s.text_hash = ?{extra} LIMIT 20",
            [text_hash(segment), *params],
        )
        return [int(r[0]) for r in cur]

    def _doc_freqs(self, terms: list[str]) -> dict[str, int]:
        """Document frequencies of FTS terms (``fts5vocab`` reads a term's whole posting
        list, so counts are cached per store and generation: common words cost once)."""
        conn = self.store.conn
        key = (str(getattr(self.store, "path", "")), self.store.generation())
        cache = _DF_CACHE.get(key)
        if cache is None or len(cache) > 200_000:
            _DF_CACHE.clear()
            cache = _DF_CACHE[key] = {}
        todo = [t for t in terms if t not in cache]
        if todo and not self._df_ready:
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.xl_lookup_vocab "
                "USING fts5vocab(main, segments_fts, row)"
            )
            self._df_ready = True
        for term in todo:
            hit = conn.execute(
                "SELECT doc FROM temp.xl_lookup_vocab WHERE term = ?", (term,)
            ).fetchone()
            cache[term] = int(hit[0]) if hit else 0
        return {t: cache[t] for t in terms if cache[t]}

    def _segment_total(self) -> int:
        gen = self.store.generation()
        if self._total is None or self._total[0] != gen:
            n = self.store.conn.execute("SELECT MAX(id) FROM segments").fetchone()[0]
            self._total = (gen, int(n or 0))
        return self._total[1]

    def _lexical(self, segment: str, src: str) -> list[int]:
        """FTS5 candidates: an OR of the segment's rarest words, BM25-ranked (common words
        such as "the" would make the OR query visit half the store)."""
        terms = list(
            dict.fromkeys(
                _fold(t.text)
                for t in fz.tokenize(segment)
                if t.kind in ("word", "num") and (len(t.text) > 1 or t.text.isdigit())
            )
        )[:40]
        if not terms:
            return []
        df = self._doc_freqs(terms)
        cap = max(2000, self._segment_total() // 20)
        rare = sorted((t for t in df if df[t] <= cap), key=lambda t: df[t])[:8]
        if not rare:
            rare = sorted(df, key=lambda t: df[t])[:2]
        if not rare:
            return []
        query = " OR ".join('"' + t.replace('"', '""') + '"' for t in rare)
        extra, params = self._where(src)
        cur = self.store.conn.execute(
            "SELECT s.id FROM segments_fts JOIN segments s ON s.id = segments_fts.rowid "
            f"WHERE segments_fts MATCH ?{extra} ORDER BY bm25(segments_fts) LIMIT ?",
            [query, *params, self.depth],
        )
        return [int(r[0]) for r in cur]

    def _semantic(
        self, qvec: np.ndarray, src: str
    ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        """(same-language, other-language) nearest neighbours from one unfiltered search;
        a filtered search tops up the same-language side when the memory is mostly in
        other languages."""
        hits = self.searcher.semantic(qvec[None, :], 2 * self.depth, collection=self.collection)
        if not hits:
            return [], []
        langs = dict(
            self.store.conn.execute(
                f"SELECT id, lang FROM segments WHERE id IN ({','.join('?' * len(hits))})",
                [i for i, _ in hits],
            ).fetchall()
        )
        lang = primary(src)
        same = [(i, c) for i, c in hits if i in langs and primary(langs[i]) == lang]
        other = [(i, c) for i, c in hits if i in langs and primary(langs[i]) != lang]
        if len(same) < min(10, self.depth):  # a filtered search is dearer: only when needed
            same = self.searcher.semantic(
                qvec[None, :], self.depth, langs=[lang], collection=self.collection
            )
        return same, other

    def _fill_cosines(
        self, qvec: np.ndarray, cands: dict[int, float | None], rows: dict[int, dict[str, Any]]
    ) -> None:
        """Cosines for lexical-only candidates: cached vectors, else encoded now."""
        from xlsearch.engine.index.cache import model_key

        todo = [sid for sid, cos in cands.items() if cos is None and sid in rows]
        if not todo:
            return
        enc = self.searcher.encoder
        hashes = [rows[sid]["text_hash"] for sid in todo]
        vecs, found = self.store.get_embeddings(model_key(enc), hashes, int(enc.dim))
        if not found.all():
            missing = [i for i, ok in enumerate(found) if not ok]
            vecs[missing] = np.asarray(
                enc.encode([rows[todo[i]]["text"] for i in missing]), dtype=np.float32
            )
        vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        for sid, cos in zip(todo, vecs @ qvec, strict=True):
            cands[sid] = float(cos)


def lookup(
    segment: str,
    src: str,
    tgt: str = "",
    k: int = 5,
    *,
    collection: str | None = None,
    model: str | None = None,
    semantic: bool = True,
    store_path: str | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> LookupResult:
    """One-shot lookup over the default store (opens and closes it)."""
    from xlsearch.engine.store import Store

    with Store(store_path) as store:
        return Lookup(
            store, model=model, collection=collection, semantic=semantic, on_progress=on_progress
        ).lookup(segment, src, tgt, k)


__all__ = ["DEFAULT_WEIGHTS", "SEMANTIC_THRESHOLD", "Lookup", "LookupResult", "Match", "Weights"]
