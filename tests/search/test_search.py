"""Search: cross-lingual hits with translations, filters before ranking, modes, STS, CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from helpers.index import FakeEncoder, add_document, random_units

from xlsearch.engine.errors import ConfigError, IndexMismatchError
from xlsearch.engine.evaluation.sts_calibration import sts
from xlsearch.engine.index import vectors
from xlsearch.engine.index.manager import build_index
from xlsearch.engine.search.searcher import Searcher, rrf
from xlsearch.engine.store import Store

UNITS = [
    {"en": "the dog sleeps", "de": "der hund schläft", "fr": "le chien dort"},
    {"en": "the red house", "de": "das haus ist rot", "fr": "la maison est rouge"},
    {"en": "the cat runs", "de": "die katze läuft"},
    {"en": "the big tree", "de": "der baum ist groß", "fr": "le grand arbre"},
]


def test_cross_lingual_hit_has_language_document_and_translations() -> None:
    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "tm", "a.tmx", UNITS)
        add_document(store, "tm", "noise.txt", random_units(200, langs=("de",)))
        build_index(store, enc, "tm")
        hits = Searcher(store, enc).search("the dog sleeps", 3, langs=["de"])
        assert len(hits) == 3 and all(h.lang == "de" for h in hits)
        top = hits[0]
        assert top.text == "der hund schläft" and top.score == pytest.approx(1.0, abs=1e-5)
        assert (top.path, top.collection) == ("a.tmx", "tm")
        assert {t["lang"]: t["text"] for t in top.translations} == {
            "en": "the dog sleeps",
            "fr": "le chien dort",
        }
        assert hits[0].score >= hits[1].score >= hits[2].score
        # variants: the query's own sentence and its translations fill the first ranks
        found = Searcher(store, enc).search("the dog sleeps", 3, variants=True)
        assert {h.text for h in found} == set(UNITS[0].values())
        # default: one hit per translation unit (its best segment), still k of them
        best = Searcher(store, enc).search("the dog sleeps", 3)
        assert len(best) == 3 and best[0].text == "the dog sleeps"
        assert len({h.tu_id for h in best}) == 3


@pytest.mark.parametrize("kind", ["flat", "ivf", "hnsw"])
def test_filter_before_ranking_returns_k_hits_for_a_rare_language(kind: str) -> None:
    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "c", "big.txt", random_units(1200, langs=("en",)))
        rare = add_document(store, "c", "rare.txt", random_units(15, seed=7, langs=("is",)))
        build_index(store, enc, "c", kind=kind, params={"nprobe": 1} if kind == "ivf" else None)
        s = Searcher(store, enc)
        query = "w3 w14 w15 w92"
        hits = s.search(query, 10, langs=["is"])
        assert len(hits) == 10 and {h.lang for h in hits} == {"is"}
        # exactly the true top-10 of the rare language
        texts = [r["text"] for r in store.segments(rare)]
        sims = enc.encode(texts) @ enc.encode([query])[0]
        expected = {rare[i] for i in np.argsort(-sims)[:10]}
        assert {h.id for h in hits} == expected
        assert len(s.search(query, 50, langs=["is"])) == 15  # all that exist
        # a mid-size filter (above the exact-search limit) also returns k hits
        assert len(s.semantic(enc.encode([query]), 10, langs=["en"])) == 10


def test_filter_on_documents_and_collections() -> None:
    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "a", "a1.txt", random_units(50, seed=1))
        ids = add_document(store, "a", "a2.txt", random_units(50, seed=2))
        add_document(store, "b", "b1.txt", UNITS)
        for name in ("a", "b"):
            build_index(store, enc, name)
        s = Searcher(store, enc)
        doc = store.segments(ids[:1])[0]["document_id"]
        hits = s.search("w1 w2", 10, documents=[doc])
        assert len(hits) == 10 and {h.path for h in hits} == {"a2.txt"}
        hits = s.search("the dog sleeps", 30)  # all collections merged by score
        assert hits[0].collection == "b" and {h.collection for h in hits} == {"a", "b"}
        assert [h.collection for h in s.search("hund", 5, collection="a")] == ["a"] * 5


def test_missing_index_is_built_on_the_spot_with_a_notice() -> None:
    with Store() as store:
        add_document(store, "c", "a.txt", UNITS)
        with pytest.raises(IndexMismatchError, match="no index"):
            Searcher(store, FakeEncoder(), repair=False).search("dog", 3)
        events: list = []
        s = Searcher(store, FakeEncoder(), on_progress=events.append)
        hits = s.search("the dog sleeps", 3)
        assert hits and hits[0].text == "the dog sleeps"
        assert len(s.notices) == 1 and "'c' had no index" in s.notices[0]
        assert events[0].stage == "notice" and any(e.stage == "save" for e in events)
        again = Searcher(store, FakeEncoder())
        assert again.search("the dog sleeps", 3) == hits and again.notices == []


def test_damaged_index_is_rebuilt_on_the_spot_with_a_notice() -> None:
    from xlsearch.engine.index.files import read_sidecar

    with Store() as store:
        add_document(store, "c", "a.txt", UNITS)
        oi = build_index(store, FakeEncoder(), "c")
        path = oi.folder / read_sidecar(oi.folder)["file"]
        data = bytearray(path.read_bytes())
        data[-5] ^= 0xFF
        path.write_bytes(bytes(data))
        with pytest.raises(IndexMismatchError, match="checksum"):
            Searcher(store, FakeEncoder(), repair=False).search("the dog sleeps", 3)
        s = Searcher(store, FakeEncoder())
        assert s.search("the dog sleeps", 3)[0].text == "the dog sleeps"
        assert "'c' had an unreadable index" in s.notices[0]
        assert Searcher(store, FakeEncoder()).search("the dog sleeps", 1)  # fixed for good


def test_search_refuses_bad_arguments() -> None:
    with Store() as store:
        add_document(store, "c", "a.txt", UNITS)
        s = Searcher(store, FakeEncoder())
        with pytest.raises(ConfigError):
            s.search("dog", 3, mode="fuzzy")
        with pytest.raises(ConfigError):
            s.search("   ", 3)
        with pytest.raises(ConfigError):
            s.search("dog", 3, collection="nope")


def test_lexical_phrase_regex_and_hybrid_modes() -> None:
    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "c", "a.tmx", UNITS + [{"en": "The Dog barks"}])
        add_document(store, "c", "n.txt", random_units(100))
        build_index(store, enc, "c")
        s = Searcher(store, enc)
        assert {h.text for h in s.search("dog", 10, mode="lexical")} == {
            "the dog sleeps",
            "The Dog barks",
        }
        assert [h.text for h in s.search("Dog", 10, mode="lexical", case_sensitive=True)] == [
            "The Dog barks"
        ]
        assert [h.text for h in s.search("dog sleeps", 10, mode="phrase")] == ["the dog sleeps"]
        assert [h.text for h in s.search(r"h.nd\b", 10, mode="regex")] == ["der hund schläft"]
        hybrid = s.search("dog sleeps", 5, mode="hybrid")
        assert hybrid[0].text == "the dog sleeps"  # first in both rankings
        assert hybrid[0].score == pytest.approx(2 / 61)


def test_rrf_and_sts_by_hand() -> None:
    fused = rrf([[1, 2, 3], [3, 1]], k=60)
    assert fused[0] == (1, pytest.approx(1 / 61 + 1 / 62))
    assert fused[1] == (3, pytest.approx(1 / 63 + 1 / 61))
    assert fused[2] == (2, pytest.approx(1 / 62))
    enc = FakeEncoder()
    same = sts("the dog sleeps", "der hund schläft", enc)
    assert same.cosine == pytest.approx(1.0, abs=1e-5) and same.score == 5.0
    va, vb = enc.encode(["the red house", "the cat runs"])
    res = sts("the red house", "the cat runs", enc)
    assert res.cosine == pytest.approx(float(va @ vb), abs=1e-5)
    assert res.score == pytest.approx(round(5 * max(0.0, res.cosine), 3))


def test_cli_index_search_sts_mine(
    tiny_static_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    with Store() as store:
        add_document(store, "tm", "a.tmx", UNITS * 3)
    model = str(tiny_static_model)
    assert main(["index", "--model", model]) == 0
    assert "tm: 33 vectors (flat)" in capsys.readouterr().out
    assert main(["search", "hund", "--model", model, "--lang", "de", "--k", "2", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 2 and all(r["lang"] == "de" for r in rows)
    assert rows[0]["translations"] and rows[0]["collection"] == "tm"
    out = tmp_path / "hits.tmx"
    assert main(["search", "dog", "--mode", "lexical", "--out", str(out)]) == 0
    assert "[3 copies]" in capsys.readouterr().out  # the unit is in the document 3 times
    assert len(re.findall(r"<tu[ >]", out.read_text(encoding="utf-8"))) == 1
    assert main(["sts", "the dog", "the dog", "--model", model, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(5.0)
    pairs = tmp_path / "pairs.tsv"
    code = main(
        [
            "mine",
            "--src",
            "en",
            "--tgt",
            "de",
            "--model",
            model,
            "--threshold",
            "0",
            "--out",
            str(pairs),
        ]
    )
    assert code == 0
    # how many of the pairs to trust is said, as search and lookup say what they know
    assert "notice: precision unknown: tiny-static has no calibration for en → de" in (
        capsys.readouterr().err
    )
    header, *lines = pairs.read_text(encoding="utf-8").splitlines()
    assert header == "en\tde\tscore"  # distill and import read the languages, skip the score
    assert 1 <= len(lines) <= 4 and all(len(line.split("\t")) == 3 for line in lines)
    assert all(float(line.split("\t")[2]) > 0 for line in lines)
    assert {line.split("\t")[0] for line in lines} <= {u["en"] for u in UNITS}
    assert main(["search", "dog", "--collection", "missing", "--model", model]) == 2
    capsys.readouterr()
    # a side without its language: one line naming it (was "0 pairs from 0 ja × 11 de")
    mine = ["mine", "--src", "ja", "--tgt", "de", "--model", model, "--out", str(pairs)]
    assert main(mine) == 2
    err = capsys.readouterr().err
    assert "the store has no segment in language 'ja' (the source side)" in err
    assert "(hint: the store has: de, en, fr)" in err
    # no pair above the threshold: nothing written (was an empty file, exit 0)
    none = tmp_path / "none.tsv"
    mine = ["mine", "--src", "en", "--tgt", "de", "--model", model, "--margin", "absolute"]
    assert main([*mine, "--threshold", "1.5", "--out", str(none)]) == 0  # cosine ≤ 1
    assert not none.exists() and "nothing written" in capsys.readouterr().err


def test_ivf_auto_switch_keeps_search_correct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "FLAT_MAX", 200)
    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "c", "a.tmx", UNITS)
        add_document(store, "c", "n.txt", random_units(400))
        oi = build_index(store, enc, "c")
        assert oi.vi.kind == "ivf"
        hits = Searcher(store, enc).search("the cat runs", 2, langs=["de"])
        assert hits[0].text == "die katze läuft"


@pytest.mark.parametrize("kind", ["flat", "ivf", "hnsw"])
def test_a_common_language_ranks_first_and_filters_after_with_the_same_hits(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A language holding most of a collection is not listed id by id (a second per million
    segments): the search ranks first and keeps that language's hits, with the hits the
    filtered search gives; a ranking too shallow for k of them falls back to the filter."""
    from xlsearch.engine.search import searcher as mod

    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "c", "mixed.txt", random_units(900, langs=("en", "de")))
        add_document(store, "c", "few.txt", random_units(60, seed=5, langs=("fr",)))
        build_index(store, enc, "c", kind=kind, params={"nprobe": 2} if kind == "ivf" else None)
        assert store.recorded_languages("c") == {"de": 900, "en": 900, "fr": 60}
        s = Searcher(store, enc)
        listed: list[tuple[str, ...]] = []
        real = store.segment_ids
        monkeypatch.setattr(
            store, "segment_ids", lambda **kw: listed.append(tuple(kw["langs"])) or real(**kw)
        )
        for query in ("w3 w14 w15 w92", "w7 w8", "w40 w41 w42"):
            q = enc.encode([query])
            s._allowed.clear()  # ids listed once are kept for the next query
            listed.clear()
            fast = s.semantic(q, 10, langs=["en"])
            assert listed == []  # en is half the collection: no id list
            monkeypatch.setattr(mod, "POST_FILTER_SHARE", 2.0)  # force the filtered search
            slow = s.semantic(q, 10, langs=["en"])
            monkeypatch.setattr(mod, "POST_FILTER_SHARE", 0.05)
            assert [i for i, _ in fast] == [i for i, _ in slow] and len(fast) == 10
            assert {r["lang"] for r in store.segments([i for i, _ in fast])} == {"en"}
            # fr is 3 % of the collection: listed and searched with the filter, as before
            few = s.semantic(q, 10, langs=["fr"])
            assert listed == [("en",), ("fr",)] and len(few) == 10
        # counts that overstate fr (a stale record): the ranking holds fewer than k fr hits,
        # so the filtered search answers, with the right hits
        s._allowed.clear()
        listed.clear()
        want = s.semantic(enc.encode(["w3 w14"]), 10, langs=["fr"])
        store.conn.execute("UPDATE documents SET languages = '{\"fr\": 5000}'")
        got = s.semantic(enc.encode(["w3 w14"]), 10, langs=["fr"])
        assert listed == [("fr",)] and got == want


def test_units_that_say_the_same_are_one_hit_with_their_copies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same unit imported twice (or held by two memories) is one hit that counts its
    copies, as a lookup shows them; a unit with another translation stays its own hit, and
    ``variants`` still lists every segment."""
    enc = FakeEncoder()
    with Store() as store:
        add_document(store, "tm", "a.tmx", UNITS)
        add_document(store, "tm", "b.tmx", UNITS[:2])  # the first two units again
        add_document(store, "tm", "c.tmx", [{"en": "the dog sleeps", "de": "der hund ruht"}])
        build_index(store, enc, "tm")
        hits = Searcher(store, enc).search("the dog sleeps", 3, langs=["en"])
        first = [h for h in hits if h.text == "the dog sleeps"]
        assert [h.copies for h in first] == [2, 1]  # a.tmx + b.tmx; c.tmx translates it apart
        assert {t["text"] for t in first[1].translations} == {"der hund ruht"}
        assert len({h.text for h in hits}) == 2 and len(hits) == 3
        variants = Searcher(store, enc).search("the dog sleeps", 10, langs=["en"], variants=True)
        assert [h.text for h in variants].count("the dog sleeps") == 3
    from xlsearch.cli import main

    assert main(["search", "dog sleeps", "--mode", "phrase", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.count("the dog sleeps") == 2 and out.count("[2 copies]") == 1
