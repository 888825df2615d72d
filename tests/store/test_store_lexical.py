"""Lexical search: BM25 match and phrase, regex and case-sensitive concordance, filters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.store import Store
from xlsearch.engine.store.lexical import required_words

LINES = [
    ("en", "The Water pump is broken.", "a"),
    ("en", "Drink water every day.", "a"),
    ("en", "Waterproof watches are popular.", "a"),
    ("en", "The pump needs new water seals.", "a"),
    ("de", "Das Wasser ist kalt.", "a"),
    ("de", "Wasser, bitte!", "b"),
    ("fr", "L'eau est froide, l'été.", "b"),
    ("zh", "我喜欢喝水。", "b"),
    ("en", "water", "b"),
]


@pytest.fixture()
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    with Store(tmp_path / "s.db") as s:
        for coll in ("a", "b"):
            path = tmp_path / f"{coll}.jsonl"
            path.write_text(
                "".join(
                    json.dumps({"text": t, "lang": lang}) + "\n"
                    for lang, t, c in LINES
                    if c == coll
                ),
                encoding="utf-8",
            )
            s.import_file(path, collection=coll)
        yield s


def texts(store: Store, hits: list[tuple[int, float]]) -> list[str]:
    return [store.segments([i])[0]["text"] for i, _ in hits]


def test_match_ranks_all_words_first_then_some(store: Store) -> None:
    hits = store.fts_search("water pump", k=10)
    found = texts(store, hits)
    assert set(found[:2]) == {"The Water pump is broken.", "The pump needs new water seals."}
    assert set(found[2:]) == {"Drink water every day.", "water"}
    assert all(a[1] >= b[1] for a, b in zip(hits[:2], hits[1:2], strict=False))
    assert (
        texts(store, store.fts_search("water*", k=10)).count("Waterproof watches are popular.") == 1
    )
    assert store.fts_search("pump", k=1) and len(store.fts_search("water", k=2)) == 2


def test_filters_apply_before_ranking(store: Store) -> None:
    assert texts(store, store.fts_search("wasser", langs=["de"], collection="b")) == [
        "Wasser, bitte!"
    ]
    assert store.fts_search("water", langs=["de"]) == []
    assert texts(store, store.fts_search("water", collection="b")) == ["water"]
    assert texts(store, store.fts_search("ete")) == ["L'eau est froide, l'été."]  # diacritics


def test_phrase_and_case_sensitive(store: Store) -> None:
    assert texts(store, store.fts_search("water pump", mode="phrase")) == [
        "The Water pump is broken."
    ]
    assert store.fts_search("pump water", mode="phrase") == []
    assert texts(store, store.fts_search("Water", case_sensitive=True)) == [
        "The Water pump is broken."
    ]
    assert texts(store, store.fts_search("Water pump", mode="phrase", case_sensitive=True)) == [
        "The Water pump is broken."
    ]
    assert store.fts_search("water Pump", mode="phrase", case_sensitive=True) == []


def test_regex_concordance(store: Store) -> None:
    assert texts(store, store.fts_search(r"\bwater\b", mode="regex", k=10)) == [
        "The Water pump is broken.",
        "Drink water every day.",
        "The pump needs new water seals.",
        "water",
    ]
    assert texts(store, store.fts_search(r"\bWater", mode="regex", case_sensitive=True)) == [
        "The Water pump is broken.",
        "Waterproof watches are popular.",
    ]
    assert texts(store, store.fts_search(r"(kalt|froide)", mode="regex")) == [
        "Das Wasser ist kalt.",
        "L'eau est froide, l'été.",
    ]
    assert texts(store, store.fts_search(r"ter\w+", mode="regex")) == [
        "Waterproof watches are popular."
    ]
    assert texts(store, store.fts_search("喝水", mode="regex")) == ["我喜欢喝水。"]
    with pytest.raises(ConfigError, match="invalid regular expression") as err:
        store.fts_search("(unclosed", mode="regex")
    assert "--mode phrase" in str(err.value.hint) and r"\(" in str(err.value.hint)  # the fix
    with pytest.raises(ConfigError):
        store.fts_search("x", mode="fuzzy")


def test_scripts_without_spaces_use_substrings(store: Store) -> None:
    assert texts(store, store.fts_search("喝水")) == ["我喜欢喝水。"]
    assert store.fts_search("咖啡") == []


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"\bwater\b", ["water"]),
        (r"\bwater", ["water*"]),
        ("water", []),
        (r"^the pump\b", ["the", "pump"]),
        (r"\bnew (water|oil)", ["new"]),
        (r"(a|b)\bcat\b", ["cat"]),
        (r"\b[wW]ater\b", []),
        (r"\b喝水", []),
    ],
)
def test_required_words_are_safe_prefilters(pattern: str, words: list[str]) -> None:
    assert required_words(pattern) == words


def test_punctuation_joined_words_are_phrases(tmp_path: Path) -> None:
    with Store(tmp_path / "p.db") as s:
        path = tmp_path / "p.txt"
        path.write_text("Send an e-mail today.\nThe mail came from e to f.\n", encoding="utf-8")
        s.import_file(path, langs="en")
        assert texts(s, s.fts_search("e-mail")) == ["Send an e-mail today."]
        assert texts(s, s.fts_search("e-ma*")) == ["Send an e-mail today."]
        assert len(s.fts_search("e mail")) == 2
