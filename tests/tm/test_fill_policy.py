"""Semantic fills: a per-model, per-pair calibrated threshold decides what is written; the
toy-model notice."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers.memory import write_tmx

from xlsearch.engine.calibration import fill as fill_policy
from xlsearch.engine.distill.fill_data import dev_groups
from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.calibration.fill_policy import toy_notice
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup

MEMORY = [
    ("the big dog sleeps", "der große hund schläft"),
    ("the cat runs", "die katze läuft"),
    ("good morning world", "guten morgen welt"),
]
MQ = "MQXliff"


def write_memoq_xliff(path: Path, segments: list[str]) -> Path:
    """An XLIFF as memoQ exports it: mq: attributes, empty targets, xml:space."""
    units = "".join(
        f'<trans-unit id="{i + 1}" mq:status="NotStarted" mq:segmentguid="g-{i}" '
        f'mq:percent="0"><source xml:space="preserve">{s}</source>'
        '<target xml:space="preserve"></target></trans-unit>'
        for i, s in enumerate(segments)
    )
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<xliff version="1.2" '
        f'xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:mq="{MQ}">'
        '<file original="job.docx" source-language="en-US" target-language="de-DE" '
        f'datatype="x-docx"><header><tool tool-id="MemoQ" tool-name="MemoQ"/></header>'
        f"<body>{units}</body></file></xliff>",
        encoding="utf-8",
    )
    return path


def _store(tmp_path: Path, model: Path):
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    enc = load_encoder(str(model))
    store = Store()
    store.import_file(write_tmx(tmp_path / "tm.tmx", MEMORY), "tm")
    build_index(store, enc, "tm")
    return store, enc


def _permissive(threshold: float) -> dict:
    return {
        "pairs": {
            "de-en": {"x": [-1.0, threshold, 1.0], "y": [0.0, 0.95, 1.0], "threshold": threshold}
        },
        "data": "test",
        "date": "2026-01-01",
        "method": fill_policy.METHOD,
    }


# -- fitting -----------------------------------------------------------------------------------
def _pairs(n: int, noise: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, 32))
    b = a + noise * rng.normal(size=(n, 32))
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    return a.astype(np.float32), b.astype(np.float32)


def test_a_model_that_tells_translations_apart_gets_a_threshold_a_random_one_none() -> None:
    good = fill_policy.fit_pair(*_pairs(600, 0.5))
    assert good["threshold"] is not None and good["held_out"] == 600
    assert good["precision"] >= 0.95 and good["recall"] > 0.5
    assert np.all(np.diff(good["x"]) > 0) and np.all(np.diff(good["y"]) >= 0)
    assert fill_policy.probability(good["threshold"] + 0.01, good) >= 0.9
    assert fill_policy.probability(-1.0, good) < 0.05
    # translations no closer than the nearest wrong candidates: nothing is ever written
    a, _ = _pairs(600, 0.5, seed=1)
    _, b = _pairs(600, 0.5, seed=2)
    assert fill_policy.fit_pair(a, b)["threshold"] is None


def test_the_threshold_needs_its_precision_with_95_percent_confidence() -> None:
    """30 translations all closer than every wrong candidate: a 100 % step, but 30 of 30
    does not show 95 % with confidence (its bound is 0.905); 600 of 600 does."""
    few = fill_policy.fit_pair(*_pairs(30, 0.1))
    assert few["threshold"] is None and fill_policy.probability(0.99, few) == 1.0
    many = fill_policy.fit_pair(*_pairs(600, 0.1))
    assert many["threshold"] is not None and many["recall"] == 1.0
    # a step of 41 right of 42 (0.976) is not enough on its own: its bound is 0.89
    pred = np.r_[np.zeros(10), np.full(42, 0.976), np.ones(400)]
    truth = np.r_[np.zeros(10), np.ones(41), np.zeros(1), np.ones(400)]
    bound = fill_policy._step_bounds(pred, truth)
    assert bound[20] == pytest.approx(0.891, abs=0.005) and bound[-1] > 0.99


def test_a_calibration_from_an_older_rule_writes_nothing_and_says_how_to_redo_it(
    tiny_static_model: Path,
) -> None:
    from xlsearch.engine.models.encoder import load_encoder

    old = _permissive(-1.0)
    del old["method"]
    fill_policy.store("x", tiny_static_model, old)
    pol = fill_policy.policy_for(load_encoder(str(tiny_static_model)), "en", "de")
    assert pol.threshold is None
    assert (
        pol.why == f"calibrated by an older xlsearch: xlsearch eval {tiny_static_model} --calibrate"
    )


def test_fewer_held_out_pairs_than_needed_give_no_calibration() -> None:
    calls = []

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return np.eye(len(texts), 8, dtype=np.float32)

    groups = {"de-en": ([f"s{i}" for i in range(62)], [f"t{i}" for i in range(62)])}
    cal = fill_policy.fit(groups, encode, data="demo held-out")
    pair = cal["pairs"]["de-en"]
    assert pair["threshold"] is None and pair["held_out"] == 62
    assert pair["why"] == "62 held-out pairs (500 needed)" and not calls  # nothing encoded


def test_pair_key_uses_primary_subtags_either_way() -> None:
    assert fill_policy.pair_key("en-US", "de-DE") == fill_policy.pair_key("de", "en") == "de-en"


# -- analysis and pre-translation --------------------------------------------------------------
def test_a_semantic_match_is_written_only_on_the_evidence_of_the_users_memory(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    """A dev-split calibration alone never writes: the memory's own held-out units, looked
    up as the analysis looks up, must show the precision (exact lower bound ≥ 95 %)."""
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder

    store, enc = _store(tmp_path, tiny_static_model)
    segs = ["Note:", "sleeps dog big the", "the cat runs"]
    path = write_memoq_xliff(tmp_path / "job.mqxliff", segs)

    events: list = []

    def run(collection: str) -> tuple:
        doc = open_document(path)
        lk = Lookup(store, load_encoder(str(tiny_static_model)), collection=collection)
        rep = analyze(doc, lk, on_progress=events.append)
        return doc, rep, pretranslate(doc, rep)

    # a permissive dev-split calibration, a memory of three units: no evidence, no fill
    _, [(cos, _p, _ok)] = fill_policy.judge(
        enc, "en", "de", ["sleeps dog big the"], ["der große hund schläft"]
    )
    fill_policy.store(enc.id, tiny_static_model, _permissive(cos - 0.01))
    doc, rep, n = run("tm")
    (sem,) = rep.semantic_segments()
    assert sem.source == "sleeps dog big the" and not sem.fill
    assert n == 1 and [s.origin for s in doc.segments] == ["", "", "fuzzy"]
    md = rep.to_markdown()
    assert "calibrated on your memory" in md and "plain: no fills" in md
    # the job's direction, as memoQ names it: not the calibration's sorted key (de-en)
    assert "held-out units, en-US → de-DE): " in md and "de-en" not in md
    assert "(suggestion)" in md and "(written on pre-translation)" not in md
    # a memory whose units have reworded twins with the same translation: held out, each
    # finds its twin's translation, right every time — the evidence that allows a fill
    from itertools import combinations

    from xlsearch.engine.tm.calibration.memory import MIN_EVIDENCE

    known = (
        "the a cat dog house tree runs sleeps big small red green hello world good morning "
        "le la chat chien maison arbre court dort grand petit rouge vert bonjour monde"
    ).split()
    units = [("the big dog sleeps", "der große hund schläft")]
    sets: list[tuple[str, ...]] = [("the", "big", "dog", "sleeps")]
    pairs = -(-MIN_EVIDENCE // 2)  # just enough evidence: a small memory, a quick test
    for c in combinations(known, 4):  # no two share more than two words: none is a fuzzy
        if all(len(set(c) & set(s)) <= 2 for s in sets):  # match
            sets.append(c)
            if len(sets) > pairs:
                break
    # enough evidence for one kind of match (plain, a 0–49 % fuzzy source): MIN_EVIDENCE
    # twins, each looked up for the other (one pair fewer, and the match is no fill)
    for i, words in enumerate(sets[1:]):
        tgt = f"ziel {chr(97 + i % 26)}{chr(97 + i // 26)}"
        units += [(" ".join(words), tgt), (" ".join(reversed(words)), tgt)]
    store.import_file(write_tmx(tmp_path / "twins.tmx", units), "twins")
    build_index(store, enc, "twins")
    events.clear()
    doc, rep, n = run("twins")
    sem = next(s for s in rep.semantic_segments() if s.source == "sleeps dog big the")
    assert sem.fill and doc.segments[1].target == "der große hund schläft"
    # the wait is named before it starts (the Translate screen shows it), once: then cached
    cal = [e for e in events if e.stage == "calibrate"]
    assert cal[0].done == 0 and cal[-1].done == cal[-1].total == len(units)
    assert cal[0].message.startswith(
        f"calibrating semantic fills on your memory: {len(units):,} held-out units looked up"
    )
    events.clear()
    run("twins")
    assert not [e for e in events if e.stage == "calibrate"]
    # and it stops when asked to (escape in the app, ctrl+c)
    from xlsearch.engine.errors import CancelledError
    from xlsearch.engine.progress import CancelToken
    from xlsearch.engine.tm.calibration.memory import calibrate

    token = CancelToken()
    token.cancel()
    lk = Lookup(store, enc, collection="twins")
    with pytest.raises(CancelledError):
        calibrate(lk, "en", "de", 0.5, cancel=token)
    assert sem.fill_evidence.startswith("your memory: ") and "held-out plain" in sem.fill_evidence
    md = rep.to_markdown()
    assert "(written on pre-translation)" in md and "why: your memory:" in md
    data = rep.to_dict()
    assert data["semantic_fill"]["memory_calibration"]["cells"]["plain, fuzzy 0–49 %"]["threshold"]
    assert sem.fill_evidence in [e["evidence"] for e in data["semantic_examples"]]
    store.close()


def test_the_memory_calibration_fits_each_kind_of_semantic_match_apart() -> None:
    """Semantic matches whose source shares half the segment (fuzzy 60 %) are right, those
    sharing nothing (20 %) right one time in three, at the same cosines: pooled, no cosine
    shows 95 %; apart, the first kind fills and the second does not. A kind needs
    ``MIN_EVIDENCE`` matches, each bound a confidence that holds for all kinds together."""
    from xlsearch.engine.tm.calibration.memory import (
        CELL_CONFIDENCE,
        MIN_EVIDENCE,
        MemoryCalibration,
        fit_cells,
        fit_group,
        lower_bound,
    )

    ev = [("plain", 0.9 + i / 1000, 60, True) for i in range(120)]
    ev += [("plain", 0.9 + i / 1000, 20, i % 3 == 0) for i in range(120)]
    assert fit_group([(c, ok) for _, c, _, ok in ev])["threshold"] is None
    cells = fit_cells(ev)
    opened = cells["plain, fuzzy 50–74 %"]
    assert (opened["threshold"], opened["right"], opened["n"]) == (0.9, 120, 120)
    assert cells["plain, fuzzy 0–49 %"]["threshold"] is None
    assert cells["fragile, fuzzy 0–49 %"]["evidence"] == 0
    cal = MemoryCalibration("de-en", "m", 240, 240, cells, "en → de")
    segment = "the big dog sleeps here"
    why = cal.evidence(segment, 0.95, 60)
    assert why is not None and why.startswith(
        "your memory: 120 of 120 held-out plain semantic matches with a 50–74 % fuzzy source "
        "at cosine ≥ 0.900 were right"
    )
    assert cal.evidence(segment, 0.95, 20) is None and cal.evidence(segment, 0.89, 60) is None
    said = cal.describe()
    assert (
        "plain: fuzzy 0–49 % no fills (40 of 120 right), fuzzy 50–74 % at cosine ≥ 0.900 (120/120)"
    ) in said
    assert "fragile: no fills (0 of 0 held-out semantic matches right)" in said
    # 99 right of 99 would show 95 % at that confidence, but is too little evidence
    few = [("plain", 0.95, 60, True)] * (MIN_EVIDENCE - 1)
    assert lower_bound(len(few), len(few), CELL_CONFIDENCE) >= 0.95
    assert fit_cells(few)["plain, fuzzy 50–74 %"]["threshold"] is None


def test_the_memory_calibration_of_one_direction_is_not_the_others(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    """en → de looks English units up for their German; de → en is other evidence: it is
    measured, not read from the en → de cache (both sort to 'de-en')."""
    from xlsearch.engine.tm.calibration.memory import calibrate

    store, enc = _store(tmp_path, tiny_static_model)
    lk = Lookup(store, enc, collection="tm")
    measured = []
    for src, tgt in [("en", "de"), ("de", "en"), ("en", "de")]:
        events: list = []
        cal = calibrate(lk, src, tgt, 0.5, on_progress=events.append)
        assert cal is not None and cal.direction == f"{src} → {tgt}"
        measured.append(any(e.stage == "calibrate" for e in events))
    assert measured == [True, True, False]  # the third: en → de, cached
    store.close()


def test_cli_calibrates_a_model_on_named_pairs_and_refuses_the_teacher_without_pairs(
    tmp_path: Path, tiny_static_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main

    rng = np.random.default_rng(0)
    en = "the a cat dog house tree runs sleeps big small red green".split()
    de = "der die katze hund haus baum läuft schläft groß klein rot grün".split()
    lines = []
    for i in range(520):
        idx = rng.integers(0, len(en), 4)
        lines.append(f"{' '.join(en[j] for j in idx)} {i}\t{' '.join(de[j] for j in idx)} {i}")
    pairs = tmp_path / "en-de.heldout.tsv"
    pairs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = str(tiny_static_model)
    assert main(["eval", model, "--calibrate", "--calibrate-pairs", str(pairs)]) == 0
    out = capsys.readouterr().out
    assert f"semantic-fill calibration of {Path(model).resolve()} on en-de.heldout.tsv" in out
    card = json.loads((tiny_static_model / "xlsearch.json").read_text("utf-8"))
    pair = card["fill_calibration"]["pairs"]["de-en"]
    assert pair["held_out"] == 520 and pair["negatives"] == 4 * 520
    assert ("  de-en: fills from cosine" in out) == (pair["threshold"] is not None)
    # the teacher has no dev split: it needs pairs named, one line, exit 2
    assert main(["eval", "bundled:teacher", "--calibrate"]) == 2
    err = capsys.readouterr().err
    assert "no dev split" in err and "--calibrate-pairs" in err and "Traceback" not in err
    # a model whose card names no training data: the fix is named
    assert main(["eval", model, "--calibrate"]) == 2
    assert "--calibrate-pairs" in capsys.readouterr().err


def test_distill_stores_the_calibration_and_eval_rebuilds_the_same_dev_split(
    tmp_path: Path, tiny_st_model: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from helpers.distill import DE, FR, write_pairs

    from xlsearch.cli import main
    from xlsearch.engine.distill import DistillConfig, distill

    corpus = {"de": write_pairs(tmp_path / "en-de.tsv", DE, 240, 1)}
    corpus["fr"] = write_pairs(tmp_path / "en-fr.tsv", FR, 160, 2)
    cfg = DistillConfig(
        train=[str(corpus["de"]), str(corpus["fr"])],
        teacher=str(tiny_st_model),
        student="static",
        out=str(tmp_path / "s"),
        vocab_size=120,
        vocab_balance=0.0,
        batch_size=16,
        max_steps=4,
        eval_steps=0,
        ckpt_steps=0,
        dev_per_lang=16,
        device="cpu",
    )
    events = []
    res = distill(cfg, on_progress=events.append)
    card = json.loads((res.out / "xlsearch.json").read_text("utf-8"))
    pairs = card["fill_calibration"]["pairs"]
    assert card["fill_calibration"]["data"] == "dev split"
    assert pairs["de-en"] == {
        "threshold": None,
        "held_out": 16,
        "why": "16 held-out pairs (500 needed)",
    }
    assert pairs["en-fr"]["held_out"] == 16
    said = [e.message for e in events if e.stage == "calibrate"]
    assert said[-1].startswith("no semantic fills (de-en: 16 held-out pairs (500 needed)")
    # `eval --calibrate` re-reads the training files and holds out the very same pairs
    from xlsearch.engine.distill.setup import read_data
    from xlsearch.engine.models.encoder import load_encoder

    dev = read_data(cfg, load_encoder(str(tiny_st_model))).dev
    groups = dev_groups(res.out)
    assert groups["de-en"] == (dev[0].src, dev[0].tgt) and len(groups["en-fr"][0]) == 16
    monkeypatch.setattr(fill_policy, "MIN_PAIRS", 10)
    assert main(["eval", str(res.out), "--calibrate", "--no-save"]) == 0
    out = capsys.readouterr().out
    assert "on dev split" in out and "de-en:" in out and "en-fr:" in out
    assert "500 needed" not in out


# -- the toy-model notice -----------------------------------------------------------------------
def test_toy_notice_names_the_distill_command_outside_the_demo() -> None:
    toy = {"data": [{"path": "demo-train.tsv", "pairs": 3800}], "languages": ["de", "fr"]}
    line = toy_notice(toy, ["tm"])
    assert line is not None and "3,800 translation pairs" in line
    assert "xlsearch distill --train tm.tsv --name my-student" in line
    assert "export --collection tm --lang en,de,fr tm.tsv" in line and "\n" not in line
    assert toy_notice(toy, ["demo"]) is None  # what it was made for
    assert toy_notice(toy, ["demo", "tm"]) is not None
    real = {"data": [{"path": "tm.tsv", "pairs": 4000}, {"path": "b.tsv", "pairs": 1500}]}
    assert toy_notice(real, ["tm"]) is None
    assert toy_notice({}, ["tm"]) is None  # the teacher, a downloaded model


def test_cli_search_lookup_and_analyze_say_the_model_is_a_toy(
    tmp_path: Path, tiny_static_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main
    from xlsearch.engine.models.cards import update_card
    from xlsearch.engine.models.catalog import set_active_model

    update_card(tiny_static_model, data=[{"path": "demo-train.tsv", "pairs": 3800}])
    store, _ = _store(tmp_path, tiny_static_model)
    store.close()
    set_active_model(str(tiny_static_model))
    assert main(["search", "the big dog", "--collection", "tm"]) == 0
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if x.startswith("notice: this model saw only")]
    assert "xlsearch distill --train tm.tsv" in line
    assert main(["lookup", "the big dog", "--src", "en", "--tgt", "de", "-c", "tm"]) == 0
    assert "notice: this model saw only 3,800" in capsys.readouterr().err
    job = write_memoq_xliff(tmp_path / "job.mqxliff", ["the big dog sleeps"])
    report = tmp_path / "report.md"
    assert main(["analyze", str(job), "-c", "tm", "--report", str(report)]) == 0
    assert "notice: this model saw only 3,800" in report.read_text("utf-8")
    # a real student (its card says it saw enough pairs): nothing to say
    update_card(tiny_static_model, data=[{"path": "tm.tsv", "pairs": 50_000}])
    assert main(["search", "the big dog", "--collection", "tm"]) == 0
    assert "saw only" not in capsys.readouterr().err


def test_the_toy_notice_reads_recorded_languages_and_asks_nothing_for_a_real_student(
    tmp_path: Path, tiny_static_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every CLI lookup and search asks for the notice: for a real student it must not touch
    the store (counting a million-segment memory's languages took a second)."""
    from xlsearch.engine.models.cards import update_card
    from xlsearch.service.local import LocalEngine

    update_card(tiny_static_model, data=[{"path": "demo-train.tsv", "pairs": 3800}])
    store, _ = _store(tmp_path, tiny_static_model)
    assert store.recorded_languages("tm") == store.languages("tm")
    store.close()
    engine = LocalEngine(model=str(tiny_static_model))
    line = engine.toy_notice("tm")
    assert line is not None and "--collection tm --lang en,de " in line
    assert "--collection tm " in (engine.toy_notice() or "")
    update_card(tiny_static_model, data=[{"path": "tm.tsv", "pairs": 50_000}])
    engine = LocalEngine(model=str(tiny_static_model))

    def no_store() -> None:
        raise AssertionError("the store was opened")

    monkeypatch.setattr(engine, "_store", no_store)
    assert engine.toy_notice("tm") is None and engine.toy_notice() is None


REGIONAL_TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="memoQ" creationtoolversion="10.2" segtype="sentence"
 o-tmf="memoQTM" adminlang="en-us" srclang="en-us" datatype="plaintext"/><body>
<tu tuid="1"><tuv xml:lang="en-US"><seg>the big dog sleeps</seg></tuv>
 <tuv xml:lang="de-DE"><seg>der große hund schläft</seg></tuv>
 <tuv xml:lang="fr-FR"><seg>le grand chien dort</seg></tuv></tu>
<tu tuid="2"><tuv xml:lang="en-US"><seg>the cat runs</seg></tuv>
 <tuv xml:lang="de-DE"><seg>die katze läuft</seg></tuv>
 <tuv xml:lang="fr-FR"><seg>le chat court</seg></tuv>
 <tuv xml:lang="es-ES"><seg>el gato corre</seg></tuv></tu>
<tu tuid="3"><tuv xml:lang="en"><seg>good morning world</seg></tuv>
 <tuv xml:lang="de"><seg>guten morgen welt</seg></tuv></tu>
</body></tmx>
"""


def test_toy_notice_exports_the_memory_s_languages_once_each(
    tmp_path: Path, tiny_static_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A memory of en-US/de-DE/fr-FR/es-ES units (and en/de ones): the notice's export
    command asks for English once, then the memory's languages by their primary subtag
    (prefixes: ``de`` exports de-DE and de) — not ``en,de-DE,en-US`` (English twice, a
    column of English "translations") nor the model's languages (analyze said ``en,ar``)."""
    from xlsearch.cli import main
    from xlsearch.engine.models.cards import update_card
    from xlsearch.engine.models.catalog import set_active_model

    update_card(
        tiny_static_model,
        data=[{"path": "demo-train.tsv", "pairs": 3800}],
        languages=["ar", "de", "ja"],
    )
    (tmp_path / "tm.tmx").write_text(REGIONAL_TMX, encoding="utf-8")
    assert main(["import", str(tmp_path / "tm.tmx"), "--collection", "tm"]) == 0
    set_active_model(str(tiny_static_model))
    want = "xlsearch export --collection tm --lang en,de,fr,es tm.tsv"
    assert main(["lookup", "the big dog", "--src", "en", "--tgt", "de", "-c", "tm"]) == 0
    (line,) = [x for x in capsys.readouterr().err.splitlines() if "saw only" in x]
    assert want in line, line
    job = write_memoq_xliff(tmp_path / "job.mqxliff", ["the big dog sleeps"])
    report = tmp_path / "report.md"
    assert main(["analyze", str(job), "-c", "tm", "--report", str(report), "-q"]) == 0
    (line,) = [x for x in report.read_text("utf-8").splitlines() if "saw only" in x]
    assert want in line, line
    assert (
        main(["export", "--collection", "tm", "--lang", "en,de,fr,es", str(tmp_path / "t.tsv")])
        == 0
    )
    rows = (tmp_path / "t.tsv").read_text("utf-8").splitlines()
    assert len(rows) == 3 and all(not r.split("\t")[0].startswith(("der", "die")) for r in rows)


def test_a_toy_model_never_writes_a_semantic_fill_even_when_calibrated(
    tiny_static_model: Path,
) -> None:
    from xlsearch.engine.models.cards import update_card
    from xlsearch.engine.models.encoder import load_encoder

    fill_policy.store("x", tiny_static_model, _permissive(-1.0))  # everything would pass
    update_card(tiny_static_model, data=[{"path": "demo-train.tsv", "pairs": 3830}])
    pol = fill_policy.policy_for(load_encoder(str(tiny_static_model)), "en", "de")
    assert pol.threshold is None
    # the user's own small student is theirs, not "a demo model"
    assert pol.why == "your own student, trained on only 3,830 pairs (fewer than 5,000)"
    update_card(tiny_static_model, demo=True)
    pol = fill_policy.policy_for(load_encoder(str(tiny_static_model)), "en", "de")
    assert pol.why == "the demo model: it saw only 3,830 pairs"
    notice = toy_notice(load_encoder(str(tiny_static_model)), ["mem"])
    assert notice is not None and "(the demo model)" in notice
    update_card(tiny_static_model, demo=False)
    _, verdicts = fill_policy.judge(
        load_encoder(str(tiny_static_model)), "en", "de", ["the cat"], ["die katze"]
    )
    assert [ok for _c, _p, ok in verdicts] == [False]
    update_card(tiny_static_model, data=[{"path": "tm.tsv", "pairs": 5000}])
    assert fill_policy.policy_for(load_encoder(str(tiny_static_model)), "en", "de").threshold == -1


def test_the_bundled_teachers_calibration_lives_in_the_data_folder_not_the_package() -> None:
    from types import SimpleNamespace

    from xlsearch.engine.runtime import locations

    teacher = SimpleNamespace(id="bundled:teacher", path=None, card={})
    assert fill_policy.policy_for(teacher, "en", "de").threshold is None
    where = fill_policy.store("bundled:teacher", None, _permissive(0.7))
    assert where == locations.data_dir() / "eval" / "teacher.json"
    pol = fill_policy.policy_for(teacher, "en-GB", "de-AT")
    assert pol.model == "bundled:teacher" and pol.threshold == 0.7
    assert "semantic fills by bundled:teacher: en-GB → de-AT cosine" in pol.describe()
    assert fill_policy.policy_for(teacher, "en", "fr").why == "pair not in its held-out data"


def test_mining_states_the_expected_precision_for_the_model_and_pair(
    tiny_static_model: Path,
) -> None:
    """``mine`` says how many of its pairs to trust: a toy model is named as one, a pair
    without a calibration is unknown, a calibrated pair gets the mean probability."""
    from xlsearch.engine.models.cards import update_card
    from xlsearch.engine.models.encoder import load_encoder

    pairs = [("the cat", "die katze"), ("the dog", "der hund"), ("a house", "ein haus")]
    update_card(tiny_static_model, data=[{"path": "tm.tsv", "pairs": 3830}])
    value, said = fill_policy.mining_precision(
        load_encoder(str(tiny_static_model)), "en", "de", pairs
    )
    assert value is None and "saw only 3,830 translation pairs (your own student" in said
    update_card(tiny_static_model, data=[{"path": "tm.tsv", "pairs": 9000}])
    value, said = fill_policy.mining_precision(
        load_encoder(str(tiny_static_model)), "en", "de", pairs
    )
    assert value is None and said.startswith("precision unknown: tiny-static has no calib")
    metrics = {"per_lang": {"de": {"acc_src2tgt": 82.0, "acc_tgt2src": 78.0}}}
    update_card(tiny_static_model, metrics=metrics)  # no calibration: its dev accuracy
    value, said = fill_policy.mining_precision(
        load_encoder(str(tiny_static_model)), "en", "de", pairs
    )
    assert value is None and said.startswith("precision unknown: tiny-static's best match")
    assert "80 % of its held-out en → de sentences when every sentence has one" in said
    assert "pairs near the threshold are often wrong" in said  # not "expect about 80 %"
    update_card(tiny_static_model, metrics={})
    fill_policy.store("x", tiny_static_model, _permissive(0.5))
    encoder = load_encoder(str(tiny_static_model))
    value, said = fill_policy.mining_precision(encoder, "en", "de", pairs)
    _, verdicts = fill_policy.judge(encoder, "en", "de", *zip(*pairs, strict=True))
    assert value == pytest.approx(sum(p for _c, p, _ok in verdicts) / 3, abs=1e-3)
    assert said.startswith(f"expected precision ≈ {value:.0%} (the mean calibrated probab")
    assert fill_policy.mining_precision(encoder, "en", "de", []) == (None, "")
    update_card(tiny_static_model, data=[{"path": "tm.tsv", "pairs": 5000}])


def test_a_student_continued_from_another_counts_the_pairs_it_started_from() -> None:
    """The wizard's default student (the shipped model continued on the memory) saw the
    shipped model's pairs too: it is not a small model for lack of the memory's 3,632."""
    mine = {"data": [{"path": "fr-mem.tsv", "pairs": 3632}]}
    continued = {**mine, "student_info": {"start_from": "shipped", "start_pairs": 38807}}
    assert fill_policy.trained_pairs(mine) == 3632
    assert fill_policy.trained_pairs(continued) == 42439 > fill_policy.TOY_PAIRS
    assert fill_policy.trained_pairs({}) is None  # not a distilled student


def test_the_memory_calibration_is_measured_again_for_a_model_rebuilt_in_place(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    """The calibration cache is keyed by the model's weights, not only its folder: a model
    rebuilt at the same path (a new shipped student) never inherits the old evidence."""
    import os
    import shutil

    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.runtime import locations
    from xlsearch.engine.tm.calibration.memory import calibrate

    model = tmp_path / "model"
    shutil.copytree(tiny_static_model, model)
    store, _ = _store(tmp_path, model)
    cache = locations.cache_dir() / "memory-calibration"

    def run() -> set[str]:
        calibrate(Lookup(store, load_encoder(str(model)), collection="tm"), "en", "de", 0.5)
        return {p.name for p in cache.glob("*.json")}

    first = run()
    assert len(first) == 1 and run() == first  # the same weights: the cached evidence
    weights = next(model.rglob("model.safetensors"))
    data = bytearray(weights.read_bytes())
    weights.write_bytes(data)  # the same weights rewritten, touched: the same key
    stat = weights.stat()
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert run() == first
    data[-1] ^= 1  # rebuilt in place: other weights (the last float's lowest bit), same folder
    weights.write_bytes(bytes(data))
    assert len(run() - first) == 1  # measured again under the new weights' key
    store.close()
