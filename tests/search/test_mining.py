"""Bitext mining: margin variants against LASER's loops, planted pairs, store + export."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from helpers.index import FakeEncoder, add_document, random_units

from xlsearch.engine.errors import ConfigError
from xlsearch.engine.export import writer as export
from xlsearch.engine.search.mining import mine_store, mine_vectors, write_pairs
from xlsearch.engine.store import Store


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def laser_reference(x, y, k, margin, retrieval, threshold):  # noqa: ANN001, ANN201
    """LASER mine_bitexts.py (mode=mine), transcribed with its explicit loops."""
    fn = {"absolute": lambda a, b: a, "distance": lambda a, b: a - b, "ratio": lambda a, b: a / b}[
        margin
    ]

    def knn(q, base, kk):  # noqa: ANN001, ANN202
        sims = q @ base.T
        ind = np.argsort(-sims, axis=1, kind="stable")[:, :kk]
        return np.take_along_axis(sims, ind, axis=1), ind

    x2y_sim, x2y_ind = knn(x, y, min(len(y), k))
    y2x_sim, y2x_ind = knn(y, x, min(len(x), k))
    x2y_mean, y2x_mean = x2y_sim.mean(1), y2x_sim.mean(1)

    def score_candidates(a, b, cand, fwd_mean, bwd_mean):  # noqa: ANN001, ANN202
        scores = np.zeros(cand.shape)
        for i in range(scores.shape[0]):
            for j in range(scores.shape[1]):
                kk = cand[i, j]
                scores[i, j] = fn(a[i].dot(b[kk]), (fwd_mean[i] + bwd_mean[kk]) / 2)
        return scores

    fwd = score_candidates(x, y, x2y_ind, x2y_mean, y2x_mean)
    bwd = score_candidates(y, x, y2x_ind, y2x_mean, x2y_mean)
    fwd_best = x2y_ind[np.arange(len(x)), fwd.argmax(1)]
    bwd_best = y2x_ind[np.arange(len(y)), bwd.argmax(1)]
    out = []
    if retrieval == "fwd":
        out = [(fwd[i].max(), i, j) for i, j in enumerate(fwd_best)]
    elif retrieval == "bwd":
        out = [(bwd[j].max(), i, j) for j, i in enumerate(bwd_best)]
    elif retrieval == "intersect":
        out = [(fwd[i].max(), i, j) for i, j in enumerate(fwd_best) if bwd_best[j] == i]
    else:
        idx = np.stack(
            (
                np.concatenate((np.arange(len(x)), bwd_best)),
                np.concatenate((fwd_best, np.arange(len(y)))),
            ),
            axis=1,
        )
        scores = np.concatenate((fwd.max(1), bwd.max(1)))
        seen_s, seen_t = set(), set()
        for i in np.argsort(-scores, kind="stable"):
            s, t = idx[i]
            if s not in seen_s and t not in seen_t:
                seen_s.add(s)
                seen_t.add(t)
                out.append((scores[i], s, t))
    return {(int(i), int(j)): float(s) for s, i, j in out if s >= threshold}


@pytest.mark.parametrize("margin", ["ratio", "distance", "absolute"])
@pytest.mark.parametrize("retrieval", ["fwd", "bwd", "max", "intersect"])
def test_margin_and_retrieval_match_laser_loops(margin: str, retrieval: str) -> None:
    rng = np.random.default_rng(3)
    x = unit(rng.standard_normal((30, 8)) + 1.5)  # positive-ish cosines, as real embeddings
    y = unit(np.vstack([x[:20] + 0.3 * rng.standard_normal((20, 8)), rng.random((15, 8))]))
    threshold = {"ratio": 1.0, "distance": 0.0, "absolute": 0.5}[margin]
    got = mine_vectors(x, y, k=4, margin=margin, retrieval=retrieval, threshold=threshold)
    ref = laser_reference(x, y, 4, margin, retrieval, threshold)
    assert {(p.src, p.tgt) for p in got} == set(ref)
    for p in got:
        assert p.score == pytest.approx(ref[(p.src, p.tgt)], rel=1e-5, abs=1e-6)
        assert p.cosine == pytest.approx(float(x[p.src] @ y[p.tgt]), abs=1e-5)
    assert [p.score for p in got] == sorted((p.score for p in got), reverse=True)


def test_mining_and_bucc_evaluation_share_one_margin_implementation() -> None:
    """``mine --retrieval max`` (FAISS k-NN) and the BUCC-style evaluator (numpy k-NN) give
    the same pairs and scores; ties between neighbours go to the lowest row in both."""
    from xlsearch.engine.evaluation.evaluators import mine_candidates

    rng = np.random.default_rng(7)
    x = unit(rng.standard_normal((40, 8)) + 1.0)
    y = unit(np.vstack([x[:25] + 0.3 * rng.standard_normal((25, 8)), rng.random((20, 8))]))
    mined = [(p.src, p.tgt, p.score) for p in mine_vectors(x, y, k=4, retrieval="max")]
    evaluated = mine_candidates(x, y, k=4)
    assert [(i, j) for i, j, _ in mined] == [(i, j) for i, j, _ in evaluated]
    assert [s for *_, s in mined] == pytest.approx([s for *_, s in evaluated], rel=1e-6)
    # a duplicated target row: both pick the lower row index
    e = np.eye(3, dtype=np.float32)
    dup = mine_vectors(e[[0]], e[[1, 0, 0]], k=3, retrieval="fwd")
    assert dup[0].tgt == 1 and mine_candidates(e[[0]], e[[1, 0, 0]], k=3)[0][:2] == (0, 1)


def test_ratio_margin_by_hand() -> None:
    # two sources, two targets, k=2: every mean is over both candidates
    x = unit(np.array([[1.0, 0.0], [0.6, 0.8]]))
    y = unit(np.array([[0.8, 0.6], [0.0, 1.0]]))
    cos = x @ y.T  # [[0.8, 0.0], [0.96, 0.8]]
    fwd_mean = cos.mean(1)  # [0.4, 0.88]
    bwd_mean = cos.mean(0)  # [0.88, 0.4]
    expected_00 = cos[0, 0] / ((fwd_mean[0] + bwd_mean[0]) / 2)  # 0.8 / 0.64 = 1.25
    expected_11 = cos[1, 1] / ((fwd_mean[1] + bwd_mean[1]) / 2)  # 0.8 / 0.64 = 1.25
    expected_10 = cos[1, 0] / ((fwd_mean[1] + bwd_mean[0]) / 2)  # 0.96 / 0.88
    assert expected_00 == pytest.approx(1.25)
    pairs = mine_vectors(x, y, k=2, margin="ratio", retrieval="fwd")
    by_src = {p.src: p for p in pairs}
    assert by_src[0].tgt == 0 and by_src[0].score == pytest.approx(expected_00)
    # source 1: 0.96/0.88 ≈ 1.0909 for target 0 beats 1.25? no: 1.25 for target 1 wins
    assert expected_10 < expected_11
    assert by_src[1].tgt == 1 and by_src[1].score == pytest.approx(expected_11)
    # plain cosine would have paired source 1 with target 0: the margin fixes the hubness
    assert int(np.argmax(cos[1])) == 0


def test_mining_finds_planted_pairs_among_distractors() -> None:
    rng = np.random.default_rng(0)
    n, dim = 400, 48
    centers = rng.standard_normal((10, dim))
    x = unit(centers[rng.integers(0, 10, n)] + 0.8 * rng.standard_normal((n, dim)))
    perm = rng.permutation(n)
    planted = unit(x[perm[:200]] + 0.35 / np.sqrt(dim) * rng.standard_normal((200, dim)))
    distract = unit(centers[rng.integers(0, 10, 300)] + 0.8 * rng.standard_normal((300, dim)))
    y = np.vstack([planted, distract])
    truth = {(int(perm[i]), i) for i in range(200)}
    pairs = mine_vectors(x, y, k=4, retrieval="max", threshold=1.06, batch=64)
    found = {(p.src, p.tgt) for p in pairs}
    precision = len(found & truth) / max(len(found), 1)
    recall = len(found & truth) / len(truth)
    assert recall >= 0.95 and precision >= 0.95, (recall, precision)
    inter = {(p.src, p.tgt) for p in mine_vectors(x, y, retrieval="intersect", threshold=1.06)}
    assert len(inter & truth) >= 0.95 * len(inter) and len(inter & truth) >= 180


def test_bad_options_and_empty_sides() -> None:
    x = unit(np.eye(3))
    with pytest.raises(ConfigError):
        mine_vectors(x, x, margin="cosine")
    with pytest.raises(ConfigError):
        mine_vectors(x, x, retrieval="both")
    assert mine_vectors(x, x[:0]) == []


def test_mine_store_and_export_tmx_tsv(tmp_path: Path) -> None:
    enc = FakeEncoder()
    units = [
        {"en": "the dog sleeps", "de": "der hund schläft"},
        {"en": "the cat runs", "de": "die katze läuft"},
        {"en": "the big tree", "de": "der baum ist groß"},
        {"en": "the red house", "de": "das haus ist rot"},
    ]
    with Store() as store:
        add_document(store, "tm", "a.tmx", units)
        add_document(store, "tm", "b.tmx", units[:1])  # a duplicate text is mined once
        add_document(store, "tm", "n.txt", random_units(40, seed=5, langs=("de",)))
        res = mine_store(store, enc, "en", "de", collection="tm", threshold=1.0)
        assert res.stats["src"] == 4  # duplicates removed
        got = {(p.src_text, p.tgt_text) for p in res.pairs}
        assert {(u["en"], u["de"]) for u in units} <= got
        tsv = write_pairs(res.pairs, tmp_path / "pairs.tsv", "en", "de")
        rows = [line.split("\t") for line in tsv.read_text(encoding="utf-8").splitlines()]
        assert rows[0] == ["en", "de", "score"]
        assert all(len(r) == 3 and float(r[2]) >= 1.0 for r in rows[1:])
        assert ["the dog sleeps", "der hund schläft"] in [r[:2] for r in rows]
        tmx = write_pairs(res.pairs, tmp_path / "pairs.tmx", "en", "de")
        root = ET.parse(tmx).getroot()
        tus = root.findall("./body/tu")
        assert len(tus) == len(res.pairs)
        lang = "{http://www.w3.org/XML/1998/namespace}lang"
        first = {tuv.get(lang): tuv.findtext("seg") for tuv in tus[0].findall("tuv")}
        assert set(first) == {"en", "de"}


def test_approximate_knn_mines_the_same_planted_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    from xlsearch.engine.search import mining

    monkeypatch.setattr(mining, "ANN_MIN", 100)
    rng = np.random.default_rng(1)
    x = unit(rng.standard_normal((800, 24)))
    y = unit(x + 0.3 / np.sqrt(24) * rng.standard_normal((800, 24)))
    exact = {(p.src, p.tgt) for p in mine_vectors(x, y, threshold=1.06)}
    approx = {(p.src, p.tgt) for p in mine_vectors(x, y, threshold=1.06, exact=False)}
    truth = {(i, i) for i in range(800)}
    assert len(exact & truth) >= 770 and len(approx & exact) >= 0.97 * len(exact)


def test_a_mined_tsv_keeps_the_score_and_stays_distillation_input(tmp_path: Path) -> None:
    """``mine --out pairs.tsv`` wrote the two sentences only; with the margin score in a
    third column, ``distill`` would read it as a second translation and ``import`` as a
    third language. The header names the languages and the score column, which ``distill``,
    ``import`` and ``check`` skip."""
    from xlsearch.engine.distill.data import TrainFile, read_tsv
    from xlsearch.engine.importers import ReadContext, read_records

    pairs = [
        ("The committee approved the budget.", "Der Ausschuss billigte den Haushalt.", 1.31),
        ("It rained all day in Hamburg.", "In Hamburg regnete es den ganzen Tag.", 1.12),
    ]
    from xlsearch.service import MinedPair, write_export

    tsv = tmp_path / "mined.tsv"  # what `mine --out` and the Mine screen's export write
    mined = [MinedPair(i, 9 + i, s, t, "en", "de", score) for i, (s, t, score) in enumerate(pairs)]
    assert write_export(mined, tsv, langs=["en", "de"]) == 2
    assert tsv.read_text(encoding="utf-8").splitlines() == [
        "en\tde\tscore",
        "The committee approved the budget.\tDer Ausschuss billigte den Haushalt.\t1.3100",
        "It rained all day in Hamburg.\tIn Hamburg regnete es den ganzen Tag.\t1.1200",
    ]
    export.write_pairs(tmp_path / "engine.tsv", pairs, "en", "de")  # the engine's own writer
    assert (tmp_path / "engine.tsv").read_text(encoding="utf-8") == tsv.read_text("utf-8")
    groups, report = read_tsv(TrainFile(tsv), 0)
    assert [(g.lang, g.src, g.tgt) for g in groups] == [
        ("de", [p[0] for p in pairs], [p[1] for p in pairs])
    ]
    assert report.bad == 0
    records = list(read_records(ReadContext(tsv), "tsv"))
    assert [(r.lang, r.text) for r in records] == [
        (lang, text) for src, tgt, _s in pairs for lang, text in (("en", src), ("de", tgt))
    ]
