"""Lookup: the CAT fuzzy formula, word diff, number/tag/placeholder flags, candidates and
ranking over a real store with a tiny real model, cross-language group, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.memory import UNITS, write_tmx, write_xliff

from xlsearch.engine.tm.matching import fuzzy as fz
from xlsearch.engine.tm.matching.lookup import Lookup, Weights


@pytest.fixture()
def memory(tmp_path: Path, tiny_static_model: Path):
    """A store with a small en–de memory (+ one fr–de unit), indexed with a tiny model."""
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    fr = (
        '<tu><tuv xml:lang="fr"><seg>bonjour le monde rouge</seg></tuv>'
        '<tuv xml:lang="de"><seg>hallo rote welt</seg></tuv></tu>'
    )
    tmx = write_tmx(tmp_path / "tm.tmx", UNITS, fr)
    enc = load_encoder(str(tiny_static_model))
    store = Store()
    store.import_file(tmx, "tm")
    build_index(store, enc, "tm")
    yield store, enc
    store.close()


# -- fuzzy formula ---------------------------------------------------------------------------
def test_fuzzy_is_word_levenshtein_over_the_longer_segment() -> None:
    # one word substituted out of 8 tokens (7 words + '.') → floor(100 × 7/8) = 87
    assert (
        fz.fuzzy("Press the power button for 10 seconds.", "Press the power button for 5 seconds.")
        == 87
    )
    # one word inserted into 4 → d=1, longer=5 → 80
    assert fz.fuzzy("the big dog sleeps", "the dog sleeps") == 75  # 3 tokens vs 4: 1 - 1/4
    assert fz.fuzzy("a b c d e", "a b c d") == 80
    assert fz.fuzzy("same text.", "same text.") == 100
    # differences of case / spacing / tags only: 99, never 100
    assert fz.fuzzy("Hello  World", "hello world") == 99
    assert fz.fuzzy("", "") == 100 and fz.fuzzy("x", "") == 0
    # CJK: one character = one token
    assert fz.fuzzy("这是一个测试", "这是一个考试") == 83
    # a placeholder and a tag are one token each
    assert [t.kind for t in fz.tokenize("Save {0} <b>now</b> 1,5 %s")] == [
        "word", "ph", "tag", "word", "tag", "num", "ph",
    ]  # fmt: skip
    assert fz.words("Hello, world 5 猫狗") == 5


def test_diff_marks_deletions_then_insertions() -> None:
    ops = fz.diff("The red battery is almost empty now.", "The battery is almost full.")
    assert fz.diff_markup(ops) == "The {+red+} battery is almost [-full-]{+empty now+}."
    assert "".join(t for op, t in ops if op != "-") == "The red battery is almost empty now."
    assert fz.diff("abc", "abc") == [("=", "abc")]


def test_flags_numbers_tags_placeholders_that_differ() -> None:
    assert fz.flags("Save 1,000 files", "Save 1000 files") == []  # same number, other format
    flags = fz.flags("Press {0} for <b>10</b> s", "Press {1} for 5 s")
    assert flags == [
        "numbers: new 10 · stored 5",
        "tags: new </b>, <b> · stored —",
        "placeholders: new {0} · stored {1}",
    ]


def test_weights_put_an_exact_match_first() -> None:
    w = Weights()
    assert w.rank_key(100, 0.1, 1.0) < w.rank_key(99, 1.0, 1.0)  # sorts first
    assert 0 <= w.score(100, 0.1, 1.0) <= 100  # a readable score, not 1,000 + …
    assert w.score(80, None, 0.5) == 80  # no model: the fuzzy % itself


# -- lookup over a real store ----------------------------------------------------------------
def test_lookup_ranks_the_closest_unit_first_with_target_diff_and_flags(memory) -> None:
    store, enc = memory
    res = Lookup(store, enc, collection="tm").lookup("the big dog sleeps", "en", "de", k=3)
    best = res.matches[0]
    assert (best.source, best.target, best.fuzzy) == (
        "the big dog sleeps",
        "der große hund schläft",
        100,
    )
    second = res.matches[1]
    assert (second.source, second.target, second.fuzzy) == (
        "the dog sleeps",
        "der hund schläft",
        75,
    )
    assert ("+", "big ") in second.diff
    assert second.semantic is not None and -1.0 <= second.semantic <= 1.0
    assert all(m.source_lang == "en" and not m.cross_language for m in res.matches)
    res = Lookup(store, enc, collection="tm").lookup("the dog sleeps 5 times", "en", "de")
    assert res.matches[0].source == "the dog sleeps"
    assert res.matches[0].flags == ["numbers: new 5 · stored —"]


def test_a_unit_imported_twice_is_listed_once_with_its_copies(memory, tmp_path: Path) -> None:
    from xlsearch.engine.index.manager import build_index

    store, enc = memory
    # the same memory again under another name, plus the same source with another target
    again = write_tmx(tmp_path / "again.tmx", [*UNITS, ("the dog sleeps", "der Hund pennt")])
    store.import_file(again, "tm")
    build_index(store, enc, "tm")
    for semantic in (True, False):
        lk = Lookup(store, enc if semantic else None, collection="tm", semantic=semantic)
        res = lk.lookup("the dog sleeps", "en", "de", k=5)
        pairs = [(m.source, m.target) for m in res.matches]
        assert len(pairs) == len(set(pairs))  # no pair twice
        by_pair = {(m.source, m.target): m for m in res.matches}
        assert by_pair[("the dog sleeps", "der hund schläft")].copies == 2
        assert by_pair[("the dog sleeps", "der Hund pennt")].copies == 1  # another target
        assert by_pair[("the big dog sleeps", "der große hund schläft")].copies == 2


def test_a_typographic_apostrophe_is_the_same_word_99_not_75() -> None:
    """A memory from Word (``d’eau``, ``don’t``) and a job from a CMS (``d'eau``): the
    French segment differing only in its two apostrophes was a 75 % match (two words
    changed); it is 99 % (the text differs, so never 100), in the batched path too, and the
    diff shows no change of words."""
    new = "Remplissez le réservoir d'eau jusqu'au repère MAX."
    stored = "Remplissez le réservoir d’eau jusqu’au repère MAX."
    assert fz.fuzzy(new, stored) == 99
    assert fz.fuzzy_many(new, [stored, new]) == [99, 100]
    assert fz.fuzzy("Don’t unplug the machine.", "Don't unplug it.") == fz.fuzzy(
        "Don't unplug the machine.", "Don't unplug it."
    )
    assert fz.fuzzy("l’eau", "l eau") < 99  # an apostrophe is not a space


def test_fuzzy_only_lookup_needs_no_model_and_ranks_like_a_cat_tool(memory) -> None:
    store, _enc = memory
    lk = Lookup(store, None, collection="tm", semantic=False)
    res = lk.lookup("the small green tree grows", "en", "de")
    assert [(m.fuzzy, m.semantic) for m in res.matches] == [(80, None)]
    assert res.matches[0].target == "der kleine grüne baum"


def test_cross_language_matches_are_a_separate_group(memory) -> None:
    store, enc = memory
    res = Lookup(store, enc, collection="tm").lookup(
        "bonjour le monde rouge", "en", "de", cross_k=5, all_matches=True
    )
    # the memory has this meaning only in a fr→de unit: a labelled cross-language match
    assert res.cross[0].source_lang == "fr" and res.cross[0].cross_language
    assert res.cross[0].target == "hallo rote welt"
    assert res.cross[0].semantic == pytest.approx(1.0, abs=1e-4)
    # units that have an English side are same-language candidates, never repeated here
    assert [m.source_lang for m in res.cross] == ["fr"]


def test_lexical_candidates_use_rare_words(memory) -> None:
    store, enc = memory
    lk = Lookup(store, enc, collection="tm")
    ids = lk._lexical("zzz unknown morning", "en")
    assert [s["text"] for s in store.segments(ids)] == ["good morning world"]


def test_cli_lookup_json(memory, tiny_static_model: Path, capsys) -> None:
    from xlsearch.cli import main
    from xlsearch.engine.models.catalog import set_active_model

    set_active_model(str(tiny_static_model))
    assert main(["lookup", "the dog sleeps!", "--src", "en", "--tgt", "de", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    top = out["matches"][0]
    assert (top["source"], top["target"], top["fuzzy"]) == (
        "the dog sleeps",
        "der hund schläft",
        75,
    )
    assert main(["lookup", "", "--src", "en", "--fuzzy-only"]) == 2


def test_no_index_is_built_on_the_spot_so_matches_get_semantic_scores(
    tmp_path: Path, tiny_static_model
) -> None:
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    with Store() as store:
        store.import_file(write_tmx(tmp_path / "tm.tmx", UNITS), "tm")
        lk = Lookup(store, load_encoder(str(tiny_static_model)), collection="tm")
        res = lk.lookup("the dog sleeps now", "en", "de")
    # the no-dead-ends rule (README): a collection without an index for the model is indexed
    # on the spot, so the matches carry semantic scores, not only fuzzy ones
    assert [(m.source, m.fuzzy) for m in res.matches][:2] == [
        ("the dog sleeps", 75),
        ("the big dog sleeps", 50),
    ]
    assert all(m.semantic is not None for m in res.matches[:2])


def test_region_tags_match_the_language(memory) -> None:
    store, enc = memory
    res = Lookup(store, enc, collection="tm").lookup("the dog sleeps", "en-US", "de-DE")
    assert (res.matches[0].source, res.matches[0].target) == ("the dog sleeps", "der hund schläft")
    # the target is labelled with the tag the memory stores, not the one asked for
    assert res.matches[0].target_lang == "de"
    res = Lookup(store, enc, collection="tm").lookup("the dog sleeps", "en", "de-AT")
    assert (res.matches[0].target, res.matches[0].target_lang) == ("der hund schläft", "de")


# -- bounded, batched candidate work (the 1M-unit speed target) -----------------------------
def test_batched_fuzzy_and_char_similarity_equal_the_pairwise_formulas() -> None:
    new = "Press {0} for <b>10</b> s and the battery is almost empty"
    stored = [
        "Press {1} for 5 s",
        "press {0} for <b>10</b>  s and the battery is almost empty",
        new,
        "",
        "...",
    ]
    assert fz.fuzzy_many(new, stored) == [fz.fuzzy(new, s) for s in stored] == [23, 99, 100, 0, 0]
    assert fz.char_similarity_many(new, stored) == pytest.approx(
        [fz.char_similarity(new, s) for s in stored]
    )
    assert fz.fuzzy_many(new, []) == [] and fz.word_keys("Save {0} <b>5</b> now") == [
        "save",
        "5",
        "now",
    ]


def test_lexical_candidates_skip_words_beyond_the_postings_budget(memory, monkeypatch) -> None:
    import xlsearch.engine.tm.matching.candidates as lookup_mod

    store, enc = memory
    lk = Lookup(store, enc, collection="tm")
    # "the" is in 4 segments, "cat" in 1: with a budget of 2 postings only "cat" is read
    monkeypatch.setattr(lookup_mod, "LEXICAL_BUDGET", 2)
    assert [s["text"] for s in store.segments(lk._lexical("the cat", "en"))] == ["the cat runs"]
    # only words more common than the budget: no full-text work at all
    monkeypatch.setattr(lookup_mod, "LEXICAL_BUDGET", 0)
    assert lk._lexical("the cat", "en") == []


def test_overlap_weights_rare_shared_words_most(memory) -> None:
    store, enc = memory
    lk = Lookup(store, enc, collection="tm")
    rare, common = lk.overlap("the cat sleeps", ["a cat", "the dog"])
    assert rare > common > 0.0
    assert lk.overlap("the cat sleeps", ["the cat sleeps"]) == [pytest.approx(1.0)]


def test_lookup_many_equals_one_lookup_per_segment(memory) -> None:
    store, enc = memory
    lk = Lookup(store, enc, collection="tm")
    segs = ["the big dog sleeps", "a red house!", "bonjour le monde rouge", "the cat runs fast"]
    many = lk.lookup_many(segs, "en", "de", k=3, cross_k=2, batch=3)
    one = [lk.lookup(s, "en", "de", k=3, cross_k=2) for s in segs]
    for a, b in zip(many, one, strict=True):
        assert [(m.segment_id, m.fuzzy, m.semantic, m.score) for m in a.matches] == [
            (m.segment_id, m.fuzzy, m.semantic, m.score) for m in b.matches
        ]
        assert [m.segment_id for m in a.cross] == [m.segment_id for m in b.cross]


def test_list_major_ivf_search_finds_what_faiss_finds() -> None:
    import numpy as np

    from xlsearch.engine.index.vectors import VectorIndex, ivf_search_by_list

    rng = np.random.default_rng(3)
    x = rng.standard_normal((3000, 16)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    vi = VectorIndex.create("ivf", 16, len(x), {"nlist": 32, "nprobe": 4})
    vi.train(x)
    vi.add(np.arange(10, 10 + len(x), dtype=np.int64), x)
    q = x[:40] + 0.05 * rng.standard_normal((40, 16)).astype(np.float32)
    s1, i1 = vi.search(q, 12, nprobe=6)
    s2, i2 = ivf_search_by_list(vi, q, 12, 6)
    assert (i1 == i2).mean() > 0.99 and np.allclose(s1, s2, atol=1e-5)
    # more hits asked than the probed lists hold: the rest is -1, as FAISS reports it
    _, few = ivf_search_by_list(vi, q[:2], 2000, 1)
    assert (few == -1).any() and set(few[0][few[0] >= 0].tolist()) <= set(range(10, 3010))


@pytest.mark.parametrize(
    "argv, names",
    [
        (["--src", "xx-QQ", "--tgt", "de"], ["'xx-QQ'", "--src", "de, en, fr"]),
        (["--src", "en", "--tgt", "pt"], ["'pt'", "--tgt", "de, en, fr"]),
        (["--src", "en", "--collection", "tm", "--tgt", "ja"], ["'ja'", "collection tm"]),
        # a typo in the name said "collection tmm has no segment in language 'en' … nothing"
        (["--src", "en", "--collection", "tmm"], ["no collection 'tmm'", "tm"]),
    ],
)
def test_cli_lookup_a_language_the_memory_lacks_is_an_error(memory, capsys, argv, names) -> None:
    """A wrong --src/--tgt is a one-line error naming the languages there are, not 'no
    matches' (or targets all missing)."""
    from xlsearch.cli import main

    assert main(["lookup", "the dog sleeps", "--fuzzy-only", *argv]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("error:")
    for name in names:
        assert name in err


@pytest.mark.parametrize(
    "argv",
    [
        ["lookup", "the dog", "--src", "en", "--k", "0"],
        ["lookup", "the dog", "--src", "en", "--min-fuzzy", "150"],
        ["analyze", "job.xlf", "--min-fuzzy", "-5"],
    ],
)
def test_cli_counts_and_percents_out_of_range_are_refused(argv, capsys) -> None:  # type: ignore[no-untyped-def]
    from xlsearch.cli import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--k" in err or "--min-fuzzy" in err
    assert "1 or more" in err or "0-100" in err


def test_engine_lookup_for_a_target_language_skips_units_without_it(
    memory, tiny_static_model: Path, tmp_path: Path
) -> None:
    """The Translate screen's lookup (facade): a job file imported as memory has the very
    segment but no target; as in analyze, it is not a match to insert."""

    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.service.local import LocalEngine

    store, _enc = memory
    store.import_file(write_xliff(tmp_path / "job.xlf", ["the dog sleeps"]), "tm")
    set_active_model(str(tiny_static_model))
    res = LocalEngine().lookup("the dog sleeps", "en", "de", "tm", 5)
    assert res.matches and all(m.target for m in res.matches)
    assert res.matches[0].target == "der hund schläft"


def test_cli_lookup_with_tgt_skips_units_without_it(memory, tmp_path: Path, capsys) -> None:

    from xlsearch.cli import main

    store, _enc = memory
    store.import_file(write_xliff(tmp_path / "job.xlf", ["the dog sleeps"]), "tm")
    argv = ["lookup", "the dog sleeps", "--src", "en", "--tgt", "de", "--fuzzy-only", "--json"]
    assert main(argv) == 0
    matches = json.loads(capsys.readouterr().out)["matches"]
    assert matches and all(m["target"] for m in matches)


def test_cli_lookup_labels_a_target_with_its_stored_regional_tag(
    tmp_path: Path, tiny_static_model: Path, capsys
) -> None:
    """``--tgt en-US`` found a British unit but printed it as "en-US:", hiding the variant."""
    from xlsearch.cli import main
    from xlsearch.engine.store import Store

    tmx = write_tmx(tmp_path / "gb.tmx", [("the colour is red", "die Farbe ist rot")])
    tmx.write_text(tmx.read_text().replace('xml:lang="en"', 'xml:lang="en-GB"'), "utf-8")
    with Store() as store:
        store.import_file(tmx, "gb")
    argv = ["lookup", "die Farbe ist rot", "--src", "de", "--tgt", "en-US", "--fuzzy-only"]
    assert main([*argv, "-c", "gb"]) == 0
    assert "   en-GB: the colour is red" in capsys.readouterr().out


TAGGED_TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="memoQ" creationtoolversion="10.2" segtype="sentence"
 o-tmf="memoQTM" adminlang="en-us" srclang="en-us" datatype="html"/><body>
<tu tuid="1"><tuv xml:lang="en-US"><seg>Press <bpt i="1" x="1" type="bold">&lt;b&gt;</bpt>Start<ept
 i="1">&lt;/b&gt;</ept> to begin brewing.</seg></tuv><tuv xml:lang="de-DE"><seg>Drücken Sie
 <bpt i="1" x="1" type="bold">&lt;b&gt;</bpt>Start<ept i="1">&lt;/b&gt;</ept>, um zu beginnen.</seg>
</tuv></tu>
<tu tuid="2"><tuv xml:lang="en-US"><seg>Use only fresh, cold water.</seg></tuv>
<tuv xml:lang="de-DE"><seg>Verwenden Sie nur frisches, kaltes Wasser.</seg></tuv></tu>
</body></tmx>
"""


def test_a_segment_typed_with_inline_tags_matches_the_memory_s_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lookup "Press <b>Start</b> to begin brewing."`` against a TMX unit holding those
    very codes (bpt/ept) was 75 % ("tags: new </b>, <b> · stored —"): the typed tags counted
    as inserted words while the memory keeps its codes apart. They are compared as a CAT tool
    compares codes: the same codes at the same places 100 %, elsewhere or none stored 99 %,
    and a plain segment against a unit with codes 99 % (as analyze and the Translate screen)."""
    from xlsearch.cli import main

    (tmp_path / "tm.tmx").write_text(TAGGED_TMX, encoding="utf-8")
    assert main(["import", str(tmp_path / "tm.tmx"), "-c", "tm"]) == 0

    def best(segment: str) -> dict:
        capsys.readouterr()
        argv = ["lookup", segment, "--src", "en", "--tgt", "de", "-c", "tm", "--fuzzy-only"]
        assert main([*argv, "--json"]) == 0
        return json.loads(capsys.readouterr().out)["matches"][0]

    same = best("Press <b>Start</b> to begin brewing.")
    assert (same["fuzzy"], same["flags"]) == (100, [])
    assert same["target"] == "Drücken Sie Start, um zu beginnen."
    moved = best("<b>Press Start</b> to begin brewing.")
    assert moved["fuzzy"] == 99 and "tags: new 2 · stored 2" in moved["flags"]
    untagged_memory = best("Use only <b>fresh</b>, cold water.")
    assert untagged_memory["fuzzy"] == 99 and untagged_memory["flags"] == ["tags: new 2 · stored —"]
    assert best("Press Start to begin brewing.")["fuzzy"] == 99  # the memory's has codes
    assert fz.split_tags("if a < b then") == ("if a < b then", None)
    assert fz.split_tags("Line one<br/>two") == ("Line onetwo", [[8, "ph", "t0", 0]])


def test_a_diff_keeps_the_space_before_words_deleted_at_the_end() -> None:
    new = "Everyone likes the new dashboard."
    stored = "Everyone likes the new dashboard. You kicked off the new reports yesterday."
    assert fz.diff_markup(fz.diff(new, stored)) == (
        "Everyone likes the new dashboard. [-You kicked off the new reports yesterday.-]"
    )
    # the ops still spell both sides exactly
    ops = fz.diff(new, stored)
    assert "".join(t for op, t in ops if op != "+") == stored
    assert "".join(t for op, t in ops if op != "-") == new


def test_a_percent_brace_placeholder_is_one_token_named_whole() -> None:
    tokens = fz.tokenize("We sent a link to %{target_email}.")
    assert [t.text for t in tokens if t.kind == "ph"] == ["%{target_email}"]
    flags = fz.flags("We sent a link to %{user_email}.", "We sent a link to %{target_email}.")
    assert flags == ["placeholders: new %{user_email} · stored %{target_email}"]


def test_a_twin_split_by_a_mnemonic_outranks_semantic_neighbours_whatever_its_cosine(
    tmp_path: Path, tiny_static_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_Yes` against a memory holding `Yes`: the repaired twin (99 %) comes first with a
    model too, although a model's cosine between the two can be ~0 (the underscore splits
    the word) while other UI words score 0.8 and more, as the shipped student does."""
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    po = tmp_path / "mem.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'
        'msgid "Yes"\nmsgstr "Oui"\n\nmsgid "_Redo"\nmsgstr "_Rétablir"\n\n'
        'msgid "_Others"\nmsgstr "_Autres"\n\nmsgid "_Go"\nmsgstr "A_ller à"\n\n',
        encoding="utf-8",
    )
    enc = load_encoder(str(tiny_static_model))
    rank = Lookup._rank_same

    def as_the_shipped_model(self, segment, cands, rows, *args, **kwargs):
        cands = [(sid, 0.0 if rows[sid]["text"] == "Yes" else 0.85) for sid, _ in cands]
        return rank(self, segment, cands, rows, *args, **kwargs)

    monkeypatch.setattr(Lookup, "_rank_same", as_the_shipped_model)
    with Store(tmp_path / "s.db") as store:
        store.import_file(po, "mem")
        build_index(store, enc, "mem")
        res = Lookup(store, enc, collection="mem").lookup("_Yes", "en", "fr", k=3)
    best = res.matches[0]
    assert (best.source, best.target, best.fuzzy) == ("Yes", "_Oui", 99)
    assert best.semantic == 0.0  # shown as measured
