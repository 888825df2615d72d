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

import math
import time
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
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
LEXICAL_BUDGET = 3000
"""Postings (segments) one lookup's full-text query may visit, whatever the memory size."""
LEXICAL_EXTRA = 20
"""Full-text candidates the vector search did not find that a lookup scores (their cosines
are read from the vector cache)."""
VECTOR_BUDGET = 100_000
"""Vectors one lookup's IVF search may scan: ``nprobe`` is the index's tuned value, capped
so that a 1M-unit memory costs what a 100k one does (lexical and exact candidates cover
what the narrower vector search may miss; ``Lookup(nprobe=…)`` overrides)."""


def _first(seen: set[str], key: str) -> bool:
    """True the first time ``key`` is seen (one cross-language match per unit)."""
    if key in seen:
        return False
    seen.add(key)
    return True


@lru_cache(maxsize=1 << 16)
def _fold(word: str) -> str:
    """A word as FTS5's ``unicode61 remove_diacritics 2`` tokenizer stores it."""
    nfkd = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in nfkd if not unicodedata.combining(c))


_primary = lru_cache(maxsize=4096)(primary)


def _terms(text: str) -> list[str]:
    """The distinct words and numbers of ``text`` as FTS5 stores them (one-letter words
    left out), in order."""
    return list(dict.fromkeys(_fold(k) for k in fz.word_keys(text) if len(k) > 1 or k.isdigit()))


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
        nprobe: int | None = None,
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
        self._key: str | None = None
        self._total: tuple[int, int] | None = None
        self.nprobe = nprobe
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
        start = time.perf_counter()
        qvecs = self._encode_or_fallback([segment])
        hits = self._semantic_many(qvecs)[0] if qvecs is not None else None
        qvec = qvecs[0] if qvecs is not None else None
        res = self._one(
            segment, qvec, hits, src, tgt, k, cross_k, require_target, min_fuzzy, all_matches, k
        )
        res.ms = (time.perf_counter() - start) * 1000
        return res

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
        batch: int = 256,
    ) -> list[LookupResult]:
        """``lookup`` for many segments: embeddings in one batch, vector searches in batches
        of ``batch`` queries (one FAISS call each), the rest per segment; only the best
        match of each gets its diff and flags (what an analysis reports)."""
        on_progress = on_progress or no_progress
        qvecs = self._encode_or_fallback(list(segments)) if segments else None
        out: list[LookupResult] = []
        for lo in range(0, len(segments), batch):
            hits = self._semantic_many(qvecs[lo : lo + batch]) if qvecs is not None else None
            for j, seg in enumerate(segments[lo : lo + batch]):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                i = lo + j
                qv = qvecs[i] if qvecs is not None else None
                h = hits[j] if hits is not None else None
                res = self._one(seg, qv, h, src, tgt, k, cross_k, require_target, 0, False, 1)
                out.append(res)
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
        hits: list[tuple[int, float]] | None,
        src: str,
        tgt: str,
        k: int,
        cross_k: int,
        require_target: bool,
        min_fuzzy: int,
        all_matches: bool,
        details: int,
    ) -> LookupResult:
        """The lookup of one segment; ``details``: how many of the best matches get their
        diff and number/tag flags (all for a lookup, the best one in an analysis)."""
        start = time.perf_counter()
        segment = " ".join(segment.split())
        if not segment:
            raise ConfigError("the segment to look up is empty")
        lang = primary(src)
        cos_of: dict[int, float] = dict(hits or [])
        lexical = dict.fromkeys([*self._exact(segment, src), *self._lexical(segment, src)])
        rows, units = self._fetch([*lexical, *cos_of])  # one round trip
        sem_same = [i for i in cos_of if i in rows and _primary(rows[i]["lang"]) == lang]
        if qvec is not None and lang and len(sem_same) < min(10, self.depth):
            # a memory mostly in other languages: a filtered search (dearer) tops it up
            more = self.searcher.semantic(
                qvec[None, :], self.depth, langs=[lang], collection=self.collection
            )
            cos_of.update(more)
            more_rows, more_units = self._fetch([i for i, _ in more])
            rows.update(more_rows)
            units.update(more_units)
        same = [
            i
            for i in dict.fromkeys([*lexical, *cos_of])
            if self._wanted(rows.get(i)) and (not lang or _primary(rows[i]["lang"]) == lang)
        ]
        # lexical-only candidates need their cosine from the cache: the best LEXICAL_EXTRA
        extra = [i for i in same if i not in cos_of][:LEXICAL_EXTRA]
        cands: dict[int, float | None] = {i: cos_of.get(i) for i in same if i in cos_of}
        cands.update(dict.fromkeys(extra))
        cross_ids = {
            i: c for i, c in cos_of.items() if i not in cands and self._wanted(rows.get(i))
        }
        if qvec is not None:
            self._fill_cosines(qvec, cands, rows)
        matches = self._rank_same(
            segment,
            list(cands.items()),
            rows,
            units,
            tgt,
            k,
            require_target,
            min_fuzzy,
            all_matches,
            details,
        )
        seen_units = {rows[m.segment_id]["tu_id"] for m in matches}
        cross = []
        for sid, cos in cross_ids.items():
            row = rows[sid]
            if row["tu_id"] in seen_units:
                continue
            if any(_primary(t["lang"]) == lang for t in units.get(row["tu_id"], [])):
                continue  # the unit has a source-language side: a same-language candidate
            if not all_matches and cos < COSINE_FLOOR:
                continue
            m = self._match(
                segment, row, units, tgt, cos, fz.fuzzy(segment, row["text"]), 0.0, cross=True
            )
            if require_target and not m.target:
                continue
            cross.append(m)
        cross.sort(key=lambda m: (-m.score, m.segment_id))
        cross = [m for m in cross if _first(seen_units, rows[m.segment_id]["tu_id"])][:cross_k]
        for m in cross:
            m.flags = fz.flags(segment, m.source)
        ms = (time.perf_counter() - start) * 1000
        return LookupResult(segment, src, tgt, matches, cross, ms, self.note)

    def overlap(self, segment: str, texts: Sequence[str]) -> list[float]:
        """IDF-weighted share of the segment's words that each text contains (0–1): rare
        shared words (names, terms, numbers) count most, "the" next to nothing."""
        q = _terms(segment)
        if not q:
            return [0.0] * len(texts)
        df = self._doc_freqs(q)
        total = max(self._segment_total(), 1)
        idf = {t: math.log(1.0 + total / (df.get(t, 0) + 1)) for t in q}
        norm = sum(idf.values()) or 1.0
        out = []
        for text in texts:
            have = set(_terms(text))
            out.append(sum(w for t, w in idf.items() if t in have) / norm)
        return out

    def _rank_same(
        self,
        segment: str,
        cands: list[tuple[int, float | None]],
        rows: dict[int, dict[str, Any]],
        units: dict[str, list[dict[str, Any]]],
        tgt: str,
        k: int,
        require_target: bool,
        min_fuzzy: int,
        all_matches: bool,
        details: int,
    ) -> list[Match]:
        """Score every same-language candidate (fuzzy % and character similarity in one
        rapidfuzz call each); ``Match`` objects, diffs and flags only for the best ``k``."""
        texts = [rows[sid]["text"] for sid, _ in cands]
        fuzzies = fz.fuzzy_many(segment, texts)
        chars = fz.char_similarity_many(segment, texts)
        overlaps = self.overlap(segment, texts) if self.weights.overlap else [0.0] * len(texts)
        scored = []
        for (sid, cos), f, c, o in zip(cands, fuzzies, chars, overlaps, strict=True):
            if f < min_fuzzy:
                continue
            if not all_matches and f < FUZZY_FLOOR and (cos or 0.0) < COSINE_FLOOR:
                continue
            if require_target and not self._target(rows[sid], units, tgt)[1]:
                continue
            scored.append((-self.weights.score(f, cos, c, o), -f, sid, cos, f, c, o))
        scored.sort()
        out = []
        for n, (*_, sid, cos, f, c, o) in enumerate(scored[:k]):
            m = self._match(segment, rows[sid], units, tgt, cos, f, c, o)
            if n < details:
                m.diff = fz.diff(segment, m.source)
                m.flags = fz.flags(segment, m.source)
            out.append(m)
        return out

    def _fetch(
        self, ids: Sequence[int]
    ) -> tuple[dict[int, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
        """(rows of ``ids``, every segment of their units by tu id in document order), from
        one query: the candidates' units hold the candidates themselves."""
        wanted = list(dict.fromkeys(int(i) for i in ids))
        rows: dict[int, dict[str, Any]] = {}
        units: dict[str, list[dict[str, Any]]] = {}
        keys = "id document_id position lang text text_hash tu_id path collection".split()
        for lo in range(0, len(wanted), 900):
            chunk = wanted[lo : lo + 900]
            for r in self.store.conn.execute(
                "SELECT s.id, s.document_id, s.position, s.lang, s.text, s.text_hash, s.tu_id, "
                "d.path, c.name FROM segments s JOIN documents d ON d.id = s.document_id "
                "JOIN collections c ON c.id = d.collection_id WHERE s.tu_id IN "
                f"(SELECT tu_id FROM segments WHERE id IN ({','.join('?' * len(chunk))})) "
                "ORDER BY s.tu_id, s.position",
                chunk,
            ):
                item = dict(zip(keys, r, strict=True))
                units.setdefault(item["tu_id"], []).append(item)
                rows[item["id"]] = item
        picked = set(wanted)
        return {i: r for i, r in rows.items() if i in picked}, units

    def _wanted(self, row: dict[str, Any] | None) -> bool:
        return row is not None and (self.collection is None or row["collection"] == self.collection)

    @staticmethod
    def _target(
        row: dict[str, Any], units: dict[str, list[dict[str, Any]]], tgt: str
    ) -> tuple[dict[str, str], str]:
        """(the unit's other sides by language, the side in ``tgt`` or '')."""
        aligned = {
            t["lang"]: t["text"]
            for t in reversed(units.get(row["tu_id"], []))
            if t["id"] != row["id"] and t["document_id"] == row["document_id"]
        }
        target = aligned.get(tgt, "") or next(
            (t for lang, t in aligned.items() if tgt and _primary(lang) == _primary(tgt)), ""
        )
        return aligned, target

    def _match(
        self,
        segment: str,
        row: dict[str, Any],
        units: dict[str, list[dict[str, Any]]],
        tgt: str,
        cos: float | None,
        f: int,
        c: float,
        o: float = 0.0,
        cross: bool = False,
    ) -> Match:
        aligned, target = self._target(row, units, tgt)
        if cross and tgt and _primary(row["lang"]) == _primary(tgt):
            target = row["text"]
        if cross:  # shared names, numbers and cognates still say something
            score = self.weights.cross(f, cos or 0.0)
        else:
            score = self.weights.score(f, cos, c, o)
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

    def _lexical(self, segment: str, src: str) -> list[int]:
        """Full-text candidates (any language; ``_one`` filters): the segments sharing the
        most of the segment's rarest words, IDF-weighted. The words are taken rarest first
        while their postings stay within ``LEXICAL_BUDGET``, so the work does not grow with
        the memory (common words such as "the" would visit half of it)."""
        terms = _terms(segment)[:40]
        if not terms:
            return []
        df = self._doc_freqs(terms)
        rare, visited = [], 0
        for t in sorted(df, key=lambda t: (df[t], t)):
            if len(rare) == 8 or visited + df[t] > LEXICAL_BUDGET:
                break
            rare.append(t)
            visited += df[t]
        if not rare:  # only common words: the vector index and the exact hash cover it
            return []
        # each rare word's posting list alone (no ranking function, no join: the cheapest
        # FTS5 read), scored by IDF-weighted word overlap; languages and collections are
        # checked on the rows the lookup fetches anyway
        total = self._segment_total()
        ids, weights = [], []
        for t in rare:
            got = self.store.conn.execute(
                "SELECT rowid FROM segments_fts WHERE segments_fts MATCH ?",
                ('"' + t.replace('"', '""') + '"',),
            ).fetchall()
            ids.append(np.array(got, dtype=np.int64).reshape(-1))
            weights.append(np.full(len(got), math.log(1.0 + total / df[t])))
        if not ids or not sum(len(a) for a in ids):
            return []
        uniq, inv = np.unique(np.concatenate(ids), return_inverse=True)
        score = np.bincount(inv, weights=np.concatenate(weights))
        top = min(2 * self.depth, len(uniq))
        best = np.argpartition(-score, top - 1)[:top]
        best = best[np.lexsort((uniq[best], -score[best]))]
        return [int(i) for i in uniq[best]]

    def _segment_total(self) -> int:
        gen = self.store.generation()
        if self._total is None or self._total[0] != gen:
            n = self.store.conn.execute("SELECT MAX(id) FROM segments").fetchone()[0]
            self._total = (gen, int(n or 0))
        return self._total[1]

    def _semantic_many(self, qvecs: np.ndarray) -> list[list[tuple[int, float]]]:
        """Top ``2 × depth`` ``(segment id, cosine)`` of each query row, all languages: one
        FAISS call per collection for the whole batch (languages are split afterwards)."""
        from xlsearch.engine.index.vectors import ivf_search_by_list

        k = 2 * self.depth
        per: list[list[tuple[int, float]]] = [[] for _ in range(len(qvecs))]
        for name in self.searcher._collections(self.collection):
            vi = self.searcher.index(name).vi
            if vi.ntotal == 0:
                continue
            nprobe = self.nprobe
            if nprobe is None and vi.ivf is not None:  # bounded work at any memory size
                per_list = max(vi.ntotal / max(int(vi.index.nlist), 1), 1.0)
                tuned = int(vi.params.get("nprobe", vi.index.nprobe))
                nprobe = max(1, min(tuned, int(VECTOR_BUDGET / per_list)))
            if vi.kind == "ivf" and len(qvecs) >= 32:  # analysis: each list read once
                scores, labels = ivf_search_by_list(vi, qvecs, k, nprobe or vi.index.nprobe)
            else:
                scores, labels = vi.search(qvecs, k, nprobe=nprobe)
            for i in range(len(qvecs)):
                keep = labels[i] >= 0
                per[i].extend(zip(labels[i][keep].tolist(), scores[i][keep].tolist(), strict=True))
        for hits in per:
            hits.sort(key=lambda t: (-t[1], t[0]))
            del hits[k:]
        return per

    def _fill_cosines(
        self, qvec: np.ndarray, cands: dict[int, float | None], rows: dict[int, dict[str, Any]]
    ) -> None:
        """Cosines for lexical-only candidates: their vectors from the collection's index
        (exact kinds: an in-memory copy, no disk read), else the vector cache, else encoded
        now."""
        from xlsearch.engine.index.cache import model_key

        todo = [sid for sid, cos in cands.items() if cos is None and sid in rows]
        if not todo:
            return
        enc = self.searcher.encoder
        dim = int(enc.dim)
        vecs = np.zeros((len(todo), dim), dtype=np.float32)
        found = np.zeros(len(todo), dtype=bool)
        by_coll: dict[str, list[int]] = {}
        for n, sid in enumerate(todo):
            by_coll.setdefault(rows[sid]["collection"], []).append(n)
        for name, pos in by_coll.items():
            vi = self.searcher.index(name).vi
            if vi.kind not in ("flat", "ivf", "hnsw"):
                continue  # compressed codes: approximate vectors, use the cache
            try:
                vecs[pos] = vi.reconstruct(np.asarray([todo[n] for n in pos], dtype=np.int64))
                found[pos] = True
            except RuntimeError:  # an id the index lacks (stale): the cache has it
                pass
        if not found.all():
            if self._key is None:  # hashes the weight files' stats: once, not per lookup
                self._key = model_key(enc)
            rest = [n for n in range(len(todo)) if not found[n]]
            got, ok = self.store.get_embeddings(
                self._key, [rows[todo[n]]["text_hash"] for n in rest], dim
            )
            vecs[rest] = got
            found[rest] = ok
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
