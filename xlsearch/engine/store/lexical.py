"""Lexical search over the store: FTS5/BM25 match and phrase, regex and case-sensitive
concordance (FTS prefilter where the pattern allows it, then Python ``re``)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from xlsearch.engine.errors import ConfigError

if TYPE_CHECKING:
    from xlsearch.engine.store.units import UnitFilter


class FilteredSegments(Protocol):
    """What a lexical search needs of the store (``store.queries.SegmentQueries`` is one)."""

    conn: sqlite3.Connection

    def _filters(
        self,
        collection: str | None = None,
        langs: Sequence[str] | None = None,
        documents: Sequence[int] | None = None,
        units: UnitFilter | None = None,
    ) -> tuple[str, list[Any]]: ...


MODES = ("match", "phrase", "regex")
_WORD = re.compile(r"[^\W_]+(?:\*)?", re.UNICODE)
# Scripts written without spaces: unicode61 makes a whole run one token, so FTS cannot find
# a word inside it; such queries are answered by a substring scan instead.
_NOSPACE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f]")


def _quote(token: str) -> str:
    prefix = token.endswith("*")
    token = token.rstrip("*")
    return f'"{token}"' + ("*" if prefix else "")


def fts_search(
    store: FilteredSegments,
    query: str,
    k: int = 10,
    collection: str | None = None,
    langs: Sequence[str] | None = None,
    mode: str = "match",
    case_sensitive: bool = False,
    documents: Sequence[int] | None = None,
    units: UnitFilter | None = None,
) -> list[tuple[int, float]]:
    """[(segment id, score)], best first, at most ``k``; filters apply before ranking.

    ``match``: all words (a trailing ``*`` = prefix), BM25-ranked, topped up with segments
    having only some words; ``phrase``: the exact word sequence (BM25); ``regex``: Python
    regular expression, results in corpus order, score = number of matches.
    ``case_sensitive`` keeps only hits whose words/phrase/pattern match with exact case.
    """
    if mode not in MODES:
        raise ConfigError(f"unknown lexical mode {mode!r}; choose one of {', '.join(MODES)}")
    query = query.strip()
    if not query or k <= 0:
        return []
    where, params = store._filters(collection, langs, documents, units)
    if mode == "regex":
        try:
            pattern = re.compile(query, 0 if case_sensitive else re.IGNORECASE)
        except re.error as exc:
            raise ConfigError(
                f"invalid regular expression {query!r}: {exc}",
                hint=r"escape the characters meant literally (\[ \( \. \? \*), or search "
                "the words with --mode phrase",
            ) from exc
        return _regex(store, pattern, k, where, params)
    words = _WORD.findall(query)
    if not words:
        return []
    if _NOSPACE.search(query):
        return _substring(store, query, words, k, where, params, mode, case_sensitive)
    exact = _exact_case(words, mode) if case_sensitive else []
    if mode == "phrase":
        fts_queries = ['"' + " ".join(w.rstrip("*") for w in words) + '"']
    else:
        quoted = [_chunk(c) for c in query.split() if _WORD.search(c)]
        fts_queries = [" AND ".join(quoted)] + ([" OR ".join(quoted)] if len(quoted) > 1 else [])
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for stage, fts_query in enumerate(fts_queries):
        need = all if stage == 0 else any  # the OR top-up needs some of the words only
        for sid, text, score in _fts(store, fts_query, where, params):
            if sid in seen or (exact and not need(p.search(text) for p in exact)):
                continue
            seen.add(sid)
            out.append((sid, score))
            if len(out) >= k:
                return out
    return out


def _chunk(chunk: str) -> str:
    """One whitespace-separated query chunk as FTS5: a word, or a phrase when punctuation
    joins several words (``e-mail`` → ``"e mail"``); a trailing ``*`` makes a prefix."""
    tokens = _WORD.findall(chunk)
    if len(tokens) == 1:
        return _quote(tokens[0])
    prefix = tokens[-1].endswith("*")
    return '"' + " ".join(t.rstrip("*") for t in tokens) + '"' + ("*" if prefix else "")


def _fts(
    store: FilteredSegments, fts_query: str, where: str, params: list[Any]
) -> Iterator[tuple[int, str, float]]:
    extra = where.replace(" WHERE ", " AND ", 1)
    cur = store.conn.execute(
        "SELECT s.id, s.text, -bm25(segments_fts) AS score FROM segments_fts "
        "JOIN segments s ON s.id = segments_fts.rowid "
        f"WHERE segments_fts MATCH ?{extra} ORDER BY bm25(segments_fts)",
        [fts_query, *params],
    )
    for sid, text, score in cur:
        yield int(sid), text, float(score)


def _exact_case(words: list[str], mode: str) -> list[re.Pattern[str]]:
    """Exact-case patterns for case-sensitive match (one per word) or phrase (one)."""
    if mode == "phrase":
        body = r"[\W_]+".join(re.escape(w.rstrip("*")) for w in words)
        return [re.compile(r"(?<![^\W_])" + body + r"(?![^\W_])")]
    return [
        re.compile(
            r"(?<![^\W_])" + re.escape(w.rstrip("*")) + ("" if w.endswith("*") else r"(?![^\W_])")
        )
        for w in words
    ]


def _substring(
    store: FilteredSegments,
    query: str,
    words: list[str],
    k: int,
    where: str,
    params: list[Any],
    mode: str,
    case_sensitive: bool,
) -> list[tuple[int, float]]:
    """For scripts without spaces: every word (phrase: the whole query) as a substring."""
    needles = (
        [" ".join(w.rstrip("*") for w in words)]
        if mode == "phrase"
        else [w.rstrip("*") for w in words]
    )
    flags = 0 if case_sensitive else re.IGNORECASE
    pats = [re.compile(re.escape(n), flags) for n in needles]
    like = " AND ".join("s.text LIKE ?" for _ in needles)
    extra = where.replace(" WHERE ", " AND ", 1)
    scored = []
    for sid, text in store.conn.execute(
        f"SELECT s.id, s.text FROM segments s WHERE {like}{extra} ORDER BY s.id",
        [*(f"%{n}%" for n in needles), *params],
    ):
        if all(p.search(text) for p in pats):
            hits = sum(len(p.findall(text)) for p in pats)
            scored.append((int(sid), hits / (1.0 + len(text) / 40.0)))
    scored.sort(key=lambda item: -item[1])
    return scored[:k]


def _regex(
    store: FilteredSegments, pattern: re.Pattern[str], k: int, where: str, params: list[Any]
) -> list[tuple[int, float]]:
    """Concordance: segments matching ``pattern`` in corpus order (FTS prefilter if possible)."""
    words = required_words(pattern.pattern)
    if words:
        fts_query = " AND ".join(_quote(w) for w in words)
        extra = where.replace(" WHERE ", " AND ", 1)
        cur = store.conn.execute(
            "SELECT s.id, s.text FROM segments_fts JOIN segments s ON s.id = segments_fts.rowid "
            f"WHERE segments_fts MATCH ?{extra} ORDER BY s.id",
            [fts_query, *params],
        )
    else:
        cur = store.conn.execute(
            f"SELECT s.id, s.text FROM segments s{where} ORDER BY s.id", params
        )
    out: list[tuple[int, float]] = []
    for sid, text in cur:
        n = sum(1 for _ in pattern.finditer(text))
        if n:
            out.append((int(sid), float(n)))
            if len(out) >= k:
                break
    return out


def required_words(pattern: str) -> list[str]:
    """FTS tokens every match of ``pattern`` must contain (``word`` or prefix ``word*``).

    Only literal runs at the top level of the pattern count, and a run only when the pattern
    pins its start to a token start (``\\b``, ``^`` or a literal separator before it); it is
    a prefix unless a separator, ``\\b`` or ``$`` follows. When in doubt (alternation,
    classes, scripts without spaces) no words are returned and the caller scans.
    """
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    try:
        parsed = list(sre_parse.parse(pattern))
    except Exception:
        return []
    edges = {
        sre_parse.AT_BOUNDARY,
        sre_parse.AT_BEGINNING,
        sre_parse.AT_BEGINNING_STRING,
        sre_parse.AT_END,
        sre_parse.AT_END_STRING,
    }
    # one item per top-level node: a literal char, "" (a token edge) or None (unknown)
    items: list[str | None] = [None]
    for op, arg in parsed:
        if op is sre_parse.LITERAL:
            items.append(chr(arg))
        elif op is sre_parse.AT and arg in edges:
            items.append("")
        else:
            items.append(None)
    items.append(None)
    words: list[str] = []
    i = 1
    while i < len(items) - 1:
        if not _token_char(items[i]):
            i += 1
            continue
        j = i
        while _token_char(items[j]):
            j += 1
        word = "".join(c for c in items[i:j] if c)
        if _edge(items[i - 1]) and not _NOSPACE.search(word):
            words.append(word.lower() + ("" if _edge(items[j]) else "*"))
        i = j
    return words


def _token_char(item: str | None) -> bool:
    return bool(item) and item.isalnum()  # type: ignore[union-attr]


def _edge(item: str | None) -> bool:
    """A certain token boundary for FTS5 unicode61: an anchor, space or ASCII punctuation."""
    return item == "" or (
        item is not None and (item.isspace() or (item.isascii() and not item.isalnum()))
    )
