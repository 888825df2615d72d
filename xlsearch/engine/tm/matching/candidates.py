"""Where a lookup's candidates come from, with bounded work at any memory size.

Three sources: the exact text (hash index), the vector index (one FAISS search for a batch
of segments, all languages, ``nprobe`` capped by ``VECTOR_BUDGET``) and FTS5 posting lists
of the segment's rarest words (``LEXICAL_BUDGET`` postings at most), scored by IDF-weighted
word overlap. Candidate rows come back by rowid in one query, their units only for the
candidates a lookup shows or checks; cosines of full-text-only candidates come from the
index's own vectors. ``Candidates`` is mixed into ``Lookup``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from xlsearch.engine.lang.tags import primary
from xlsearch.engine.tm.matching import fuzzy as fz

POSTINGS_CACHED = 4_000_000
"""Segment ids (8 bytes each) the posting-list cache may hold before it starts afresh."""


class _LexicalCache:
    """Document frequencies and rare words' posting lists of one store generation (process
    wide: every ``Lookup`` on the same store shares them); a new generation, or more than
    ``POSTINGS_CACHED`` ids or 200k words, starts afresh."""

    def __init__(self) -> None:
        self.key: tuple[str, int] | None = None
        self.df: dict[str, int] = {}
        self.lists: dict[str, np.ndarray] = {}
        self.size = 0

    def of(self, key: tuple[str, int]) -> _LexicalCache:
        if key != self.key or len(self.df) > 200_000 or self.size > POSTINGS_CACHED:
            self.key, self.df, self.lists, self.size = key, {}, {}, 0
        return self


_LEXICAL = _LexicalCache()
TWIN_LETTERS = 120
"""Strings up to this length are looked up by their normalised form too (``_twins``)."""
TWIN_ROWS = 500_000
"""Short source strings the normalised-form map of one language holds at most."""


_NOT_LETTERS = re.compile(r"[\W\d_]+")


def letters_key(text: str) -> str:
    """The letters of ``text``, lower-cased (a map key a million strings fill in seconds)."""
    return _NOT_LETTERS.sub("", text).lower()


class _TwinCache:
    """``{normalised form: segment ids}`` of the short strings of one store generation,
    collection and language (process wide)."""

    def __init__(self) -> None:
        self.maps: dict[tuple[str, int, str | None, str], dict[str, list[int]]] = {}


_TWINS = _TwinCache()
LEXICAL_BUDGET = 3000
"""Postings (segments) one lookup's full-text query may visit, whatever the memory size."""
LEXICAL_EXTRA = 40
"""Full-text candidates the vector search did not find that a lookup scores (their cosines
are read from the vector cache)."""
FEW_TO_ENCODE = 64
"""Candidates a cold IVF index leaves to the vector cache (or the encoder) rather than build
its id map for them (0.2 s at 2M vectors, more than a lookup)."""
VECTOR_BUDGET = 30_000
"""Vectors one lookup's IVF search may scan: ``nprobe`` is the index's tuned value, capped
so that a 1M-unit memory costs about what a 100k one does. Measured at 1M units (2M
segments, nlist 1,414, tuned nprobe 344): 30k/50k/100k vectors give the same top-1 as an
exhaustive scan for 90 % of queries (top-10 overlap 0.86/0.88/0.90) at 0.45/0.58/1.0× the
lookup time; lexical and exact candidates cover what the narrower search misses.
``Lookup(nprobe=…)`` overrides."""


@lru_cache(maxsize=1 << 16)
def _fold(word: str) -> str:
    """A word as FTS5's ``unicode61 remove_diacritics 2`` tokenizer stores it."""
    nfkd = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in nfkd if not unicodedata.combining(c))


cached_primary = lru_cache(maxsize=4096)(primary)


def _terms(text: str) -> list[str]:
    """The distinct words and numbers of ``text`` as FTS5 stores them (one-letter words
    left out), in order."""
    return list(dict.fromkeys(_fold(k) for k in fz.word_keys(text) if len(k) > 1 or k.isdigit()))


def _phrase(term: str) -> str:
    """``term`` as an FTS5 ``MATCH`` string: one quoted phrase (its quotes doubled)."""
    return '"' + term.replace('"', '""') + '"'


def _term_set(text: str) -> set[str]:
    """A set holding ``_terms(text)`` (and, for ASCII text, its punctuation keys too, which no
    query term can equal): membership tests for ``overlap`` without folding word by word —
    ASCII keys are already folded (lower-cased, nothing to strip)."""
    if text.isascii():
        return set(fz.token_keys(text))
    return set(_terms(text))


class Candidates:
    """Candidate generation and features for ``Lookup`` (which sets ``store``, ``searcher``,
    ``collection``, ``depth``, ``nprobe``, ``_key``, ``_total`` and ``_docs``)."""

    store: Any
    searcher: Any
    collection: str | None
    depth: int
    nprobe: int | None
    _key: str | None
    _total: tuple[int, int] | None
    _docs: tuple[int, dict[int, tuple[str, str]]] | None

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
            have = _term_set(text)
            out.append(sum(w for t, w in idf.items() if t in have) / norm)
        return out

    _ROW = "id document_id position lang text text_hash tu_id meta".split()

    def _segments_where(self, column: str, keys: Sequence[Any]) -> Iterator[dict[str, Any]]:
        """Segment rows whose ``column`` (``id`` or ``tu_id``) is one of ``keys``, 900 keys a
        query, with their document path and collection from a per-generation map (no join)."""
        docs = self._documents()
        for lo in range(0, len(keys), 900):
            chunk = list(keys[lo : lo + 900])
            for r in self.store.conn.execute(
                "SELECT id, document_id, position, lang, text, text_hash, tu_id, meta "
                f"FROM segments WHERE {column} IN ({','.join('?' * len(chunk))})",
                chunk,
            ):
                item = dict(zip(self._ROW, r, strict=True))
                item["path"], item["collection"] = docs.get(r[1], ("", ""))
                yield item

    def _rows(self, ids: Sequence[int]) -> dict[int, dict[str, Any]]:
        """The rows of ``ids`` (rowid look-ups)."""
        wanted = list(dict.fromkeys(int(i) for i in ids))
        return {item["id"]: item for item in self._segments_where("id", wanted)}

    def _load_units(
        self, units: dict[str, list[dict[str, Any]]], tu_ids: Sequence[str]
    ) -> dict[str, list[dict[str, Any]]]:
        """Add every segment of the units ``tu_ids`` not loaded yet to ``units`` (by tu id,
        in document order): only the candidates a lookup shows or checks need their unit."""
        todo = [t for t in dict.fromkeys(tu_ids) if t not in units]
        for t in todo:
            units[t] = []
        for item in self._segments_where("tu_id", todo):
            units[item["tu_id"]].append(item)
        for t in todo:
            if len(units[t]) > 1:
                units[t].sort(key=lambda row: row["position"])
        return units

    def _documents(self) -> dict[int, tuple[str, str]]:
        """``{document id: (path, collection name)}``, read once per store generation."""
        gen = self.store.generation()
        cached = self._docs
        if cached is None or cached[0] != gen:
            got = self.store.conn.execute(
                "SELECT d.id, d.path, c.name FROM documents d "
                "JOIN collections c ON c.id = d.collection_id"
            ).fetchall()
            cached = self._docs = (gen, {int(i): (p, n) for i, p, n in got})
        return cached[1]

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

    def _twins(self, segment: str, src: str) -> list[int]:
        """Stored strings with the segment's letters (``letters_key``: no mnemonic,
        punctuation, spacing, case or digits): ``C_reate`` for ``Create``, ``Clear`` for
        ``Clea_r`` — words split by a mnemonic, which neither the full-text index nor a hash
        of the text finds (the lookup then checks what else differs, ``repair``)."""
        if len(segment) > TWIN_LETTERS or not src:
            return []
        lang = primary(src)
        key = (str(getattr(self.store, "path", "")), self.store.generation(), self.collection, lang)
        found = _TWINS.maps.get(key)
        if found is None:
            where, params = self.store._filters(self.collection, [lang])
            cond = " AND " if where else " WHERE "
            rows = self.store.conn.execute(
                f"SELECT s.id, s.text FROM segments s{where}{cond}length(s.text) <= ? LIMIT ?",
                [*params, TWIN_LETTERS, TWIN_ROWS],
            )
            found = {}
            for sid, text in rows:
                ids = found.setdefault(letters_key(text), [])
                if len(ids) < 20:
                    ids.append(int(sid))
            _TWINS.maps = {key: found}  # one language of one store at a time
        return found.get(letters_key(segment), [])

    def _lexical_cache(self) -> _LexicalCache:
        return _LEXICAL.of((str(getattr(self.store, "path", "")), self.store.generation()))

    def _doc_freqs(self, terms: list[str], cache: _LexicalCache | None = None) -> dict[str, int]:
        """Document frequencies of FTS terms, counted up to ``LEXICAL_BUDGET + 1`` (a word
        more common than that is never read, so its exact count is never needed and never
        paid for: the count stops early). Cached per store generation (``_LexicalCache``)."""
        df = (cache or self._lexical_cache()).df
        for term in (t for t in terms if t not in df):
            df[term] = int(
                self.store.conn.execute(
                    "SELECT count(*) FROM (SELECT rowid FROM segments_fts "
                    "WHERE segments_fts MATCH ? LIMIT ?)",
                    (_phrase(term), LEXICAL_BUDGET + 1),
                ).fetchone()[0]
            )
        return {t: df[t] for t in terms if df[t]}

    def _unknown_word(self, word: str) -> bool:
        """Whether no segment of the memory looked up (its collection, any language) holds
        ``word``: a name the job writes in lower case (``substitute``)."""
        terms = _terms(word)
        if not terms:
            return False
        where, params = self.store._filters(self.collection, None)
        extra = where.replace(" WHERE ", " AND ", 1)
        for term in terms:
            found = self.store.conn.execute(
                "SELECT 1 FROM segments_fts JOIN segments s ON s.id = segments_fts.rowid "
                f"WHERE segments_fts MATCH ?{extra} LIMIT 1",
                [_phrase(term), *params],
            ).fetchone()
            if found:
                return False
        return True

    def _postings(self, term: str, cache: _LexicalCache) -> np.ndarray:
        """The segment ids holding ``term`` (a rare one), cached: a document's segments share
        their terms, so an analysis reads each posting list once."""
        ids = cache.lists.get(term)
        if ids is None:
            got = self.store.conn.execute(
                "SELECT rowid FROM segments_fts WHERE segments_fts MATCH ?",
                (_phrase(term),),
            ).fetchall()
            ids = cache.lists[term] = np.array(got, dtype=np.int64).reshape(-1)
            cache.size += len(ids)
        return ids

    def _lexical(self, segment: str, src: str) -> list[int]:
        """Full-text candidates (any language; ``_one`` filters): the segments sharing the
        most of the segment's rarest words, IDF-weighted. The words are taken rarest first
        while their postings stay within ``LEXICAL_BUDGET``, so the work does not grow with
        the memory (common words such as "the" would visit half of it)."""
        terms = _terms(segment)[:40]
        if not terms:
            return []
        cache = self._lexical_cache()
        df = self._doc_freqs(terms, cache)
        rare: list[str] = []
        visited = 0
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
        ids = [self._postings(t, cache) for t in rare]
        weights = [
            np.full(len(a), math.log(1.0 + total / df[t])) for a, t in zip(ids, rare, strict=True)
        ]
        if not sum(len(a) for a in ids):
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
        (exact kinds: an in-memory copy, no disk read; an IVF only once its id map exists),
        else the vector cache, else encoded now."""
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
            if not vi.reconstruct_ready and len(pos) <= FEW_TO_ENCODE:
                continue  # a cold IVF: the cache or encoding a few costs less than its id map
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
