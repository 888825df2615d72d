"""Translation-memory lookup: a source segment → the memory's best matches, CAT style.

Candidates (``lookup_candidates``) come from three sources whose work does not grow with
the memory: the exact text (hash index), the vector index (one FAISS search, split by
language afterwards) and the posting lists of the segment's rarest words. Each candidate
gets its CAT fuzzy % (``fuzzy``), its cosine with the segment, its character similarity
(both batched through rapidfuzz) and a combined score (``Weights``); the best get a word
diff against the new segment and a check of numbers, tags and placeholders. Matches whose
source side is in another language than the segment form a separate, labelled
cross-language group (ranked mostly by cosine)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from xlsearch.engine.errors import ConfigError, IndexMismatchError, ModelError
from xlsearch.engine.lang.tags import primary
from xlsearch.engine.progress import (
    CancelToken,
    Progress,
    ProgressCallback,
    ensure_token,
    no_progress,
)
from xlsearch.engine.runtime.cpu import one_blas_thread
from xlsearch.engine.tm.matching import fuzzy as fz
from xlsearch.engine.tm.matching import inside
from xlsearch.engine.tm.matching import repair as rp
from xlsearch.engine.tm.matching import substitute as sub
from xlsearch.engine.tm.matching.candidates import (
    LEXICAL_EXTRA,
    Candidates,
    cached_primary,
)
from xlsearch.engine.tm.matching.context import never_leveraged
from xlsearch.engine.tm.matching.matches import (
    COSINE_FLOOR,
    DEFAULT_WEIGHTS,
    FUZZY_FLOOR,
    SEMANTIC_THRESHOLD,
    LookupResult,
    Match,
    Weights,
)

SUBSTITUTION_TRIES = 3
"""Fuzzy matches (best first) tried for a phrase swap (``substitute``)."""
CAT_FILL = 75
"""A sentence inside a paragraph unit is offered from this fuzzy % (what a CAT tool fills)."""


def _first(seen: set[str], key: str) -> bool:
    """True the first time ``key`` is seen (one cross-language match per unit)."""
    if key in seen:
        return False
    seen.add(key)
    return True


def _meta_field(row: dict[str, Any] | None, key: str) -> object:
    """One field of the segment's metadata (a JSON object), None when it has none."""
    meta = (row or {}).get("meta")
    if not meta or f'"{key}"' not in meta:
        return None
    try:
        return json.loads(meta).get(key)
    except (ValueError, AttributeError):
        return None


def _tags(row: dict[str, Any] | None) -> list[list[Any]] | None:
    """Where the segment's inline codes stood (``[[offset, kind, id], …]``), from its
    metadata (TMX imports keep them), else None."""
    tags = _meta_field(row, "tags")
    return tags if isinstance(tags, list) else None


def _breaks(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """Where the segment had inner line breaks (PO imports keep them), else None."""
    found = _meta_field(row, "breaks")
    return found if isinstance(found, dict) else None


def _meta_text(row: dict[str, Any], key: str) -> str:
    """A text field of the segment's metadata (``context``: PO ``msgctxt``, XLIFF
    ``resname``; ``project``), '' when none."""
    found = _meta_field(row, key)
    return found if isinstance(found, str) else ""


def _plural(row: dict[str, Any] | None) -> int | None:
    """The unit's plural form (PO ``msgstr[n]``: ``n``) from its metadata, None when it is
    not one."""
    found = _meta_field(row, "plural")
    return found if isinstance(found, int) else None


def _context(row: dict[str, Any]) -> str:
    """The unit's context (PO ``msgctxt``, XLIFF ``resname``), '' when none."""
    return _meta_text(row, "context")


def _form_uses(segment: str, copies: dict[tuple[str, str], int]) -> dict[tuple[str, str], int]:
    """For each (source, target) of ``copies`` whose source is ``segment`` written otherwise
    (``repair.differences``: mnemonic, trailing punctuation, case …) or itself: how many
    candidates of such sources have a target with the same words (``repair.twin_key``)."""
    forms = {
        key: rp.twin_key(key[1])
        for key in copies
        if key[1] and rp.differences(segment, " ".join(key[0].split())) is not None
    }
    uses: dict[str, int] = {}
    for key, words in forms.items():
        uses[words] = uses.get(words, 0) + copies[key]
    return {key: uses[words] for key, words in forms.items()}


def _unique(matches: list[Match]) -> list[Match]:
    """The first match of each (source, target) pair, with ``copies`` counting the rest
    (the same unit imported twice, or in two memories, is one match to a translator)."""
    first: dict[tuple[str, str], Match] = {}
    for m in matches:
        key = (m.source, m.target)
        if key in first:
            first[key].copies += 1
        else:
            first[key] = m
    return list(first.values())


class Lookup(Candidates):
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
        penalties: rp.Penalties | None = rp.DEFAULT_PENALTIES,
        searcher: Any = None,
        on_progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> None:
        from xlsearch.engine.search.searcher import Searcher

        self.store = store
        self.collection = collection
        self.on_progress = on_progress
        """Gets the notice before the memory's fragment index is learnt (seconds, once)."""
        self.semantic = semantic
        self.weights = weights
        self.depth = depth
        if collection is not None:
            store.require_collection(collection)
        self.searcher = searcher or Searcher(
            store, encoder, model=model, repair=repair, on_progress=on_progress, cancel=cancel
        )
        self._key: str | None = None
        self._total: tuple[int, int] | None = None
        self._docs: tuple[int, dict[int, tuple[str, str]]] | None = None
        self.nprobe = nprobe
        self.note = ""
        self.held_out: str | None = None
        """A unit left out of every lookup (the memory calibration looks it up)."""
        self.penalties = penalties
        """Fuzzy points per kind of difference a repaired match loses (None: no repair)."""
        self._conventions: dict[tuple[str, int], rp.Conventions] = {}
        self._phrases: dict[tuple[str, str, str], str | None] = {}

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
        cancel: CancelToken | None = None,
    ) -> LookupResult:
        """The best ``k`` same-language matches and ``cross_k`` cross-language ones;
        ``cancel`` stops it between its stages (a lookup a newer one made stale)."""
        start = time.perf_counter()
        cancel = ensure_token(cancel)
        cancel.raise_if_cancelled()
        qvecs = self._encode_or_fallback([segment])
        cancel.raise_if_cancelled()
        hits = self._semantic_many(qvecs)[0] if qvecs is not None else None
        cancel.raise_if_cancelled()
        qvec = qvecs[0] if qvecs is not None else None
        res = self._one(
            segment, qvec, hits, src, tgt, k, cross_k, require_target, min_fuzzy, all_matches, k
        )
        if tgt and max((m.fuzzy for m in res.matches), default=0) < 75:
            from xlsearch.engine.tm.matching.fragments import index_for

            idx = index_for(self.store, self.collection, src, tgt, self.on_progress)
            res.fragments = idx.find(segment)
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
        batch: int = 1024,
    ) -> list[LookupResult]:
        """``lookup`` for many segments: embeddings in one batch, vector searches in batches
        of ``batch`` queries (one FAISS call each), the rest per segment; only the best
        match of each gets its diff and flags (what an analysis reports)."""
        on_progress = on_progress or no_progress
        qvecs = self._encode_or_fallback(list(segments)) if segments else None
        out: list[LookupResult] = []
        with one_blas_thread():  # small products in a loop: a second BLAS thread only spins
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
        lang = cached_primary(src)
        cos_of: dict[int, float] = dict(hits or [])
        lexical = dict.fromkeys(
            [*self._exact(segment, src), *self._twins(segment, src), *self._lexical(segment, src)]
        )
        rows = self._rows([*lexical, *cos_of])  # one round trip; units when needed
        units: dict[str, list[dict[str, Any]]] = {}
        sem_same = [i for i in cos_of if i in rows and cached_primary(rows[i]["lang"]) == lang]
        if qvec is not None and lang and len(sem_same) < min(10, self.depth):
            # a memory mostly in other languages: a filtered search (dearer) tops it up
            more = self.searcher.semantic(
                qvec[None, :], self.depth, langs=[lang], collection=self.collection
            )
            cos_of.update(more)
            rows.update(self._rows([i for i, _ in more]))
        same = [
            i
            for i in dict.fromkeys([*lexical, *cos_of])
            if self._wanted(rows.get(i)) and (not lang or cached_primary(rows[i]["lang"]) == lang)
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
        if not all_matches:
            cross_ids = {i: c for i, c in cross_ids.items() if c >= COSINE_FLOOR}
        cross_ids = {i: c for i, c in cross_ids.items() if rows[i]["tu_id"] not in seen_units}
        self._load_units(units, [rows[i]["tu_id"] for i in cross_ids])
        cross = []
        for sid, cos in cross_ids.items():
            row = rows[sid]
            if any(cached_primary(t["lang"]) == lang for t in units.get(row["tu_id"], [])):
                continue  # the unit has a source-language side: a same-language candidate
            m = self._match(
                segment, row, units, tgt, cos, fz.fuzzy(segment, row["text"]), 0.0, cross=True
            )
            if require_target and not m.target:
                continue
            cross.append(m)
        cross.sort(key=lambda m: (-m.score, m.segment_id))
        cross = [m for m in cross if _first(seen_units, rows[m.segment_id]["tu_id"])]
        cross = _unique(cross)[:cross_k]
        for m in cross:
            m.flags = fz.flags(segment, m.source)
        ms = (time.perf_counter() - start) * 1000
        return LookupResult(segment, src, tgt, matches, cross, ms, self.note)

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
        twins: dict[int, tuple[int, list[str]]] = {}  # promoted: (fuzzy before, kinds)
        paragraphs: list[int] = []  # units that may hold the segment as one sentence
        for (sid, cos), f, c, o in zip(cands, fuzzies, chars, overlaps, strict=True):
            if never_leveraged(rows[sid]["text"]):
                continue  # another project's translator credits
            if f < CAT_FILL and len(paragraphs) < inside.MOST:
                if inside.worth_splitting(segment, rows[sid]["text"]):
                    paragraphs.append(sid)
            if f < 100 and self.penalties is not None:
                kinds = rp.differences(segment, rows[sid]["text"])
                if kinds:
                    twins[sid] = (f, kinds)  # repaired (or back to ``f`` when it cannot be)
                    f = max(f, min(99, max(rp.FLOOR, 100 - self.penalties.of(kinds))))
            if f < min_fuzzy:
                continue
            if not all_matches and f < FUZZY_FLOOR and (cos or 0.0) < COSINE_FLOOR:
                continue
            ranked_cos = cos
            if sid in twins and cos is not None:  # the same words: a mnemonic or a case
                ranked_cos = max(cos, f / 100.0)  # can throw a model's cosine to ~0
            scored.append((*self.weights.rank_key(f, ranked_cos, c, o), sid, cos, f, c, o))
        scored.sort()
        best: list[tuple] = []
        copies: dict[tuple[str, str], int] = {}  # the same source and target: shown once
        newest: dict[tuple[str, str], int] = {}  # … its most recently stored copy
        contexts: dict[tuple[str, str], dict[str, int]] = {}  # … with each copy's context
        projects: dict[tuple[str, str], list[str]] = {}
        step = max(2 * k, 8)  # units are read for the best candidates only, a few at a time
        wanted = max(k, SUBSTITUTION_TRIES) if tgt and self.penalties is not None else k
        for lo in range(0, len(scored), step):
            if len(best) >= wanted:
                break
            chunk = scored[lo : lo + step]
            self._load_units(units, [rows[item[-5]]["tu_id"] for item in chunk])
            for item in chunk:
                row = rows[item[-5]]
                side = self._target(row, units, tgt)[1]
                if require_target and side is None:
                    continue
                key = (row["text"], side["text"] if side else "")
                newest[key] = max(newest.get(key, 0), int(item[-5]))
                if key in copies:
                    copies[key] += 1
                    projects[key].append(_meta_text(row, "project"))
                elif len(best) < wanted:
                    copies[key] = 1
                    projects[key] = [_meta_text(row, "project")]
                    best.append(item)
                else:
                    continue
                where = contexts.setdefault(key, {})
                where[_context(row)] = where.get(_context(row), 0) + 1
        forms = _form_uses(segment, copies)
        out = []
        for n, (*_, sid, cos, f, c, o) in enumerate(best):
            m = self._match(segment, rows[sid], units, tgt, cos, f, c, o)
            m.copies = copies.get((m.source, m.target), 1)
            m.form_uses = forms.get((m.source, m.target), 0)
            m.newest = newest.get((m.source, m.target), m.segment_id)
            m.contexts = contexts.get((m.source, m.target), {m.context: 1})
            m.projects = sorted({p for p in projects.get((m.source, m.target), []) if p})
            if n < details:
                m.diff = fz.diff(segment, m.source)
                m.flags = fz.flags(segment, m.source)
            if sid in twins:
                self._repair(segment, m, *twins[sid], tgt)
            out.append(m)
        if twins:  # a twin that could not be repaired ranks by its own fuzzy %
            out.sort(key=lambda m: (m.fuzzy < 100, not m.repairs, -m.score))
        if tgt and self.penalties is not None:
            swapped = [self._substitute(segment, m, rows, tgt) for m in out]
            if any(swapped):  # a swapped phrase: ranked by its fuzzy %, ties as they were
                out.sort(key=lambda m: -min(m.fuzzy, 100) if m.fuzzy >= sub.SUBSTITUTED else 0)
            out = out[:k]
        for m in out[:details]:  # a match a repair or a swap moved up: its diff too
            if not m.diff:
                m.diff = fz.diff(segment, m.source)
        if paragraphs:
            out = self._sentences_inside(segment, paragraphs, rows, units, tgt, out, k, min_fuzzy)
        return out

    def _sentences_inside(
        self,
        segment: str,
        paragraphs: list[int],
        rows: dict[int, dict[str, Any]],
        units: dict[str, list[dict[str, Any]]],
        tgt: str,
        out: list[Match],
        k: int,
        min_fuzzy: int,
    ) -> list[Match]:
        """``out`` with the matches of ``segment`` as one sentence of a paragraph unit
        (``inside``), where one beats the paragraph's own match, best first."""
        self._load_units(units, [rows[sid]["tu_id"] for sid in paragraphs])
        found = []
        for sid in paragraphs:
            row = rows[sid]
            side = self._target(row, units, tgt)[1]
            if side is None:
                continue
            hit = inside.sentence_match(segment, row["text"], side["text"], row["lang"], tgt)
            if hit is None or hit.fuzzy < max(min_fuzzy, CAT_FILL):
                continue
            m = self._match(
                segment,
                {**row, "text": hit.source, "meta": None},
                {row["tu_id"]: [{**side, "text": hit.target, "meta": None}]},
                tgt,
                None,
                hit.fuzzy,
                fz.char_similarity(segment, hit.source),
            )
            m.diff = fz.diff(segment, m.source)
            m.flags = [hit.flag, *fz.flags(segment, m.source)]
            found.append(m)
        if not found:
            return out
        merged = list(out)
        for m in sorted(found, key=lambda m: -m.fuzzy):
            if any((m.source, m.target) == (o.source, o.target) for o in merged):
                continue
            at = next((i for i, o in enumerate(merged) if o.fuzzy < m.fuzzy), len(merged))
            merged.insert(at, m)  # before the first weaker match; the ranking stays as it was
        return merged[:k]

    def _substitute(
        self, segment: str, m: Match, rows: dict[int, dict[str, Any]], tgt: str
    ) -> bool:
        """Swap the phrase ``m``'s source differs in for the memory's translation of the
        new one (``substitute``); True when done."""
        if m.fuzzy >= sub.SUBSTITUTED or m.fuzzy < FUZZY_FLOOR or m.repairs or not m.target:
            return False
        src = rows[m.segment_id]["lang"] if m.segment_id in rows else m.source_lang
        got = sub.substitute(
            segment, m.source, m.target, lambda p: self.phrase(p, src, tgt), self._unknown_word
        )
        if got is None:
            return False
        m.original_target, m.target = m.target, got[0]
        m.repairs = [got[1]]
        m.flags.insert(0, got[1])
        m.fuzzy = sub.SUBSTITUTED
        if m.semantic is None:
            m.score = float(sub.SUBSTITUTED)
        return True

    def neighbours(self, segment_id: int) -> tuple[str, str]:
        """The sources of the units before and after a stored segment's, in its document
        ('' at either end)."""
        row = self.store.conn.execute(
            "SELECT document_id, position, lang FROM segments WHERE id = ?", (segment_id,)
        ).fetchone()
        if row is None:
            return "", ""
        doc, pos, lang = row
        near = self.store.conn.execute(
            "SELECT position, text, tu_id FROM segments WHERE document_id = ? AND lang = ? "
            "AND position BETWEEN ? AND ? ORDER BY position",
            (doc, lang, pos - 8, pos + 8),
        ).fetchall()
        before = [t for p, t, _u in near if p < pos]
        after = [t for p, t, _u in near if p > pos]
        return (before[-1] if before else ""), (after[0] if after else "")

    def phrase(self, text: str, src: str, tgt: str) -> str | None:
        """The memory's one translation of a short phrase stored alone (mnemonic and
        trailing punctuation aside): the form at least two thirds of its units give; None
        when none or when they disagree."""
        key = (text.lower(), src, tgt)
        if key in self._phrases:
            return self._phrases[key]
        form_of = rp.twin_key(text)
        rows = {i: r for i, r in self._rows(self._twins(text, src)).items()
                if rp.twin_key(r["text"]) == form_of}  # fmt: skip
        units: dict[str, list[dict[str, Any]]] = {}
        self._load_units(units, [r["tu_id"] for r in rows.values() if self._wanted(r)])
        forms: dict[str, int] = {}
        for r in rows.values():
            if not self._wanted(r):
                continue
            side = self._target(r, units, tgt)[1]
            if side is not None:
                form = rp.bare(side["text"])
                forms[form] = forms.get(form, 0) + 1
        got = None
        if forms:
            form, n = max(forms.items(), key=lambda x: x[1])
            if 3 * n >= 2 * sum(forms.values()) and form:
                got = form
        self._phrases[key] = got
        return got

    def _repair(self, segment: str, m: Match, before: int, kinds: list[str], tgt: str) -> None:
        """Repair a normalised twin's target (``repair``); one that cannot be repaired
        keeps the fuzzy % it had."""
        conv = self.conventions(tgt)
        fixed = rp.repair(segment, m.source, m.target, conv, tgt) if m.target else None
        if fixed is None:
            if m.semantic is None:  # the CAT ranking: the score is the fuzzy %
                m.score = float(before)
            m.fuzzy = before
            return
        m.original_target = m.target
        m.target, m.repairs = fixed[0], fixed[1]
        done = {k for k in ("numbers", "placeholders") if k in kinds}
        m.flags = [f for f in m.flags if f.split(":")[0] not in done]  # repaired: no warning
        m.flags.insert(0, f"{rp.REPAIRED} {', '.join(m.repairs)} (differs in {', '.join(kinds)})")

    def conventions(self, tgt: str) -> rp.Conventions:
        """How the memory's targets in ``tgt`` write mnemonics and trailing punctuation
        (learned from up to 20,000 of them, once per language and store generation)."""
        key = (primary(tgt), self.store.generation())
        got = self._conventions.get(key)
        if got is None:
            where, params = self.store._filters(self.collection, [primary(tgt)] if tgt else None)
            rows = self.store.conn.execute(
                f"SELECT s.text FROM segments s{where} LIMIT 20000", params
            ).fetchall()
            got = self._conventions[key] = rp.Conventions.learn((r[0] for r in rows), tgt)
        return got

    def _wanted(self, row: dict[str, Any] | None) -> bool:
        return (
            row is not None
            and (self.collection is None or row["collection"] == self.collection)
            and (self.held_out is None or row["tu_id"] != self.held_out)
        )

    @staticmethod
    def _target(
        row: dict[str, Any], units: dict[str, list[dict[str, Any]]], tgt: str
    ) -> tuple[dict[str, dict[str, Any]], dict[str, Any] | None]:
        """(the unit's other sides' rows by language, the side in ``tgt`` or None)."""
        aligned = {
            t["lang"]: t
            for t in reversed(units.get(row["tu_id"], []))
            if t["id"] != row["id"] and t["document_id"] == row["document_id"]
        }
        side = aligned.get(tgt) or next(
            (
                t
                for lang, t in aligned.items()
                if tgt and cached_primary(lang) == cached_primary(tgt)
            ),
            None,
        )
        return aligned, side if side and side["text"] else None

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
        aligned, side = self._target(row, units, tgt)
        # the side's own tag: de-DE when the memory says so, not the "de" asked for
        target, target_lang = (side["text"], side["lang"]) if side else ("", tgt)
        if cross and tgt and cached_primary(row["lang"]) == cached_primary(tgt):
            target, target_lang, side = row["text"], row["lang"], None
        if cross:  # shared names, numbers and cognates still say something
            score = self.weights.cross(f, cos or 0.0)
        else:
            score = self.weights.score(f, cos, c, o)
        return Match(
            row["id"],
            row["text"],
            row["lang"],
            target,
            target_lang,
            f,
            None if cos is None else round(float(cos), 4),
            round(score, 2),
            cross_language=cross,
            translations={lang: t["text"] for lang, t in aligned.items()},
            collection=row.get("collection", ""),
            document=str(row.get("path", "")).rsplit("/", 1)[-1],
            source_tags=_tags(row),
            target_tags=_tags(side) if not cross else None,
            target_breaks=_breaks(side) if not cross else None,
            context=_context(row),
            plural_forms=self._plural_forms(row, tgt) if not cross else [],
        )

    def _plural_forms(self, row: dict[str, Any], tgt: str) -> list[tuple[str, str]]:
        """The (source, target) of every form of the PO plural entry ``row`` is a form of,
        in order (``msgid``/``msgstr[0]``, ``msgid_plural``/``msgstr[1]`` …; [] when ``row``
        is no plural form; a form without a target has target '')."""
        form = _plural(row)
        doc, _, number = row["tu_id"].rpartition(":")
        if form is None or not number.isdigit() or int(number) < form:
            return []
        first = int(number) - form
        ids = [f"{doc}:{first + k}" for k in range(7)]  # gettext: at most 6 forms
        units = self._load_units({}, ids)
        forms: list[tuple[str, str]] = []
        for k, tu in enumerate(ids):
            sides = units.get(tu, [])
            source = next((r for r in sides if r["lang"] == row["lang"]), None)
            if source is None or _plural(source) != k:
                break
            side = self._target(source, units, tgt)[1]
            forms.append((source["text"], side["text"] if side else ""))
        return forms


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
