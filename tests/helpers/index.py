"""Shared helpers for the index/search/mining tests: a fake encoder and a store filler."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

# words of different languages mapped to one concept, so translations embed alike
CONCEPTS = {
    "hund": "dog", "chien": "dog", "katze": "cat", "chat": "cat", "haus": "house",
    "maison": "house", "baum": "tree", "arbre": "tree", "schläft": "sleeps", "dort": "sleeps",
    "läuft": "runs", "court": "runs", "der": "the", "die": "the", "das": "the", "le": "the",
    "la": "the", "rot": "red", "rouge": "red", "grün": "green", "vert": "green", "groß": "big",
    "grand": "big", "klein": "small", "petit": "small", "ist": "is", "est": "is",
}  # fmt: skip


class FakeEncoder:
    """Deterministic bag-of-concepts encoder: each word → a seeded random vector, averaged."""

    def __init__(self, dim: int = 32, *, delay: float = 0.0, fingerprint: str = "v1") -> None:
        self.dim = dim
        self.id = "fake-encoder"
        self.path = None
        self.card: dict[str, Any] = {}
        self.fingerprint = fingerprint
        self.delay = delay
        self.calls: list[int] = []
        self._words: dict[str, np.ndarray] = {}

    def word(self, w: str) -> np.ndarray:
        w = CONCEPTS.get(w, w)
        if w in self._words:
            return self._words[w]
        seed = int.from_bytes(
            hashlib.blake2b((self.fingerprint + w).encode(), digest_size=8).digest()
        )
        vec = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        self._words[w] = vec
        return vec

    def encode(self, texts: Sequence[str], **_: Any) -> np.ndarray:
        self.calls.append(len(texts))
        if self.delay:
            time.sleep(self.delay)
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            words = t.lower().replace(".", " ").split() or ["<empty>"]
            v = np.mean([self.word(w) for w in words], axis=0)
            out[i] = v / (np.linalg.norm(v) + 1e-12)
        return out


def add_document(
    store: Any,
    collection: str,
    path: str,
    units: Sequence[dict[str, str]],
) -> list[int]:
    """Insert one document whose translation units map lang → text; returns segment ids.

    Written directly in SQL (the importers are tested elsewhere) and bumps the generation.
    """
    conn = store.conn
    now = "2026-11-20T00:00:00"
    with store.transaction():
        cid = store.ensure_collection(collection)
        cur = conn.execute(
            "INSERT INTO documents (collection_id, path, format, sha256, imported_at, "
            "segment_count, languages) VALUES (?,?,?,?,?,?,?)",
            (cid, path, "test", hashlib.sha256(path.encode()).hexdigest(), now, 0, "{}"),
        )
        doc = cur.lastrowid
        ids = []
        for pos, unit in enumerate(units):
            tu = f"{path}#{pos}"
            for lang, text in unit.items():
                th = hashlib.sha256(text.encode()).hexdigest()
                cur = conn.execute(
                    "INSERT INTO segments (document_id, position, lang, text, text_hash, tu_id, "
                    "meta) VALUES (?,?,?,?,?,?,?)",
                    (doc, pos, lang, text, th, tu, json.dumps({})),
                )
                ids.append(int(cur.lastrowid))
        counts: dict[str, int] = {}
        for unit in units:
            for lang in unit:
                counts[lang] = counts.get(lang, 0) + 1
        conn.execute(
            "UPDATE documents SET segment_count=?, languages=? WHERE id=?",
            (len(ids), json.dumps(counts), doc),
        )
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
    return ids


def delete_segments(store: Any, ids: Sequence[int]) -> None:
    """Delete segments by id and bump the generation."""
    with store.transaction() as conn:
        conn.executemany("DELETE FROM segments WHERE id=?", [(int(i),) for i in ids])
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")


def random_units(n: int, seed: int = 0, langs: Sequence[str] = ("en",)) -> list[dict[str, str]]:
    """``n`` units of pseudo-random word strings (distinct texts), one segment per language."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(400)]
    out = []
    for i in range(n):
        words = " ".join(rng.choice(vocab, size=6))
        out.append({lang: f"{words} {lang}{i}" for lang in langs})
    return out
