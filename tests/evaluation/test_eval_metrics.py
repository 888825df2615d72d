"""Evaluation metrics and evaluators against values worked out by hand (one-hot fake encoder)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.evaluation import KeywordEncoder
from scipy.stats import pearsonr, spearmanr

from xlsearch.engine.errors import CancelledError
from xlsearch.engine.evaluation import metrics as M
from xlsearch.engine.evaluation.evaluators import (
    CachingEncoder,
    LanguageBiasEvaluator,
    MiningEvaluator,
    MSEEvaluator,
    STSEvaluator,
    TranslationEvaluator,
    encode_unique,
    mine_candidates,
)
from xlsearch.engine.evaluation.readers import MiningSplit, MiningTask, ParallelSet, StsSet
from xlsearch.engine.evaluation.synthetic import build_bucc_style
from xlsearch.engine.progress import CancelToken

R2 = 1 / math.sqrt(2)


# --------------------------------------------------------------------------- pure metrics


def test_spearman_and_pearson_by_hand() -> None:
    # rho = 1 - 6 Σd² / (n(n²-1)) = 1 - 6·2/60
    assert M.spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    # a=[1,2,3], b=[1,2,4]: cov 3, var_a 2, var_b 42/9
    assert M.pearson([1, 2, 3], [1, 2, 4]) == pytest.approx(3 / math.sqrt(2 * 42 / 9))
    assert M.pearson([1, 1, 1], [1, 2, 3]) == 0.0
    assert M.rankdata([10, 20, 10, 30]).tolist() == [1.5, 3.0, 1.5, 4.0]


@pytest.mark.parametrize("seed", range(5))
def test_spearman_agrees_with_scipy_including_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, size=50).astype(float)  # many ties
    b = a + rng.integers(-2, 3, size=50)
    assert M.spearman(a, b) == pytest.approx(spearmanr(a, b).statistic, abs=1e-12)
    assert M.pearson(a, b) == pytest.approx(pearsonr(a, b).statistic, abs=1e-12)


def test_mse_and_plain_translation_accuracy() -> None:
    e = np.eye(4, dtype=np.float32)
    assert M.mse_x100(e[[0]], e[[1]]) == pytest.approx(100 * 2 / 4)
    fwd, bwd = M.translation_accuracy(e[[0, 1]], e[[1, 1]])
    assert (fwd, bwd) == (50.0, 50.0)


def test_margin_matrix_by_hand() -> None:
    x = np.array([[1, 0], [0, 1]], dtype=np.float32)
    y = np.array([[1, 0], [R2, R2]], dtype=np.float32)
    # k=2: knn means fx = [(1+r)/2, r/2], fy = [1/2, r] with r = 1/√2
    m = M.margin_matrix(x, y, k=2)
    assert m[1, 1] == pytest.approx(4 / 3, rel=1e-6)
    assert m[0, 0] == pytest.approx(4 / (2 + R2), rel=1e-6)
    assert m[1, 0] == 0.0
    # k=1: every diagonal pair is its own nearest neighbour → margin 1
    m1 = M.margin_matrix(x, y, k=1)
    assert m1[0, 0] == pytest.approx(1.0) and m1[1, 1] == pytest.approx(1.0)


def test_margin_retrieval_beats_a_hub() -> None:
    # cos = [[.6, .1], [.5, .4]]: target 0 is a hub, so cosine sends source 1 there (50 %).
    # k=2: fx = [.35, .45], fy = [.55, .25] → margin[1] = [1.0, 1.143]: source 1 → target 1.
    x = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], dtype=np.float32)
    y = np.array(
        [[0.6, 0.5, math.sqrt(1 - 0.61), 0], [0.1, 0.4, 0, math.sqrt(1 - 0.17)]], dtype=np.float32
    )
    assert M.translation_accuracy(x, y) == (50.0, 100.0)
    assert M.margin_translation_accuracy(x, y, k=2) == (100.0, 100.0)
    assert M.margin_matrix(x, y, k=2)[1].tolist() == pytest.approx([1.0, 0.4 / 0.35], rel=1e-5)


def test_best_f1_threshold_by_hand() -> None:
    # sorted scores 0.9(✓) 0.8(✗) 0.7(✓) 0.1(✗); 3 gold pairs
    # cut after 0.9: P 1, R 1/3, F1 .5; after 0.7: P 2/3, R 2/3, F1 2/3 (best)
    thr, f1, p, r = M.best_f1_threshold(
        np.array([0.8, 0.9, 0.1, 0.7]), np.array([False, True, False, True]), 3
    )
    assert f1 == pytest.approx(2 / 3) and p == pytest.approx(2 / 3) and r == pytest.approx(2 / 3)
    assert thr == pytest.approx((0.7 + 0.1) / 2)
    # ties are cut together: two 0.5 candidates, one right
    thr, f1, _, _ = M.best_f1_threshold(np.array([0.5, 0.5]), np.array([True, False]), 1)
    assert f1 == pytest.approx(2 * 0.5 * 1 / 1.5) and thr == 0.5
    assert M.prf({("a", "b"), ("c", "d")}, {("a", "b")}) == (0.5, 1.0, pytest.approx(2 / 3))


def test_pca_2d_recovers_axes() -> None:
    x = np.array([[-1, 0, 0], [1, 0, 0], [0, 0.5, 0], [0, -0.5, 0]]) + 3.0
    coords = M.pca_2d(x)
    assert np.allclose(np.abs(coords), [[1, 0], [1, 0], [0, 0.5], [0, 0.5]], atol=1e-9)


# --------------------------------------------------------------------------- evaluators


def test_translation_evaluator_by_hand() -> None:
    ev = TranslationEvaluator(["cat", "dog", "tree"], ["katze", "hund", "hund baum"], name="de")
    scores = ev(KeywordEncoder())
    # src: all right; tgt "hund baum" ties dog/tree → first (dog) → wrong: 2/3
    assert scores["src2tgt"] == pytest.approx(100.0)
    assert scores["tgt2src"] == pytest.approx(200 / 3)
    assert scores["mean"] == pytest.approx(250 / 3)
    assert ev.primary_metric == "mean" and ev.greater_is_better
    margin = TranslationEvaluator(["cat", "dog"], ["katze", "hund"], margin=True)
    assert margin(KeywordEncoder())["mean"] == 100.0


def test_sts_evaluator_by_hand() -> None:
    ev = STSEvaluator(["cat", "cat dog", "cat"], ["katze", "dog", "dog"], [1.0, 0.5, 0.0])
    s = ev(KeywordEncoder())
    cos = np.array([1.0, R2, 0.0])
    assert s["spearman"] == pytest.approx(100.0)
    dc, dg = cos - cos.mean(), np.array([0.5, 0.0, -0.5])
    assert s["pearson"] == pytest.approx(100 * (dc @ dg) / math.sqrt((dc @ dc) * (dg @ dg)))


def test_mse_evaluator_by_hand() -> None:
    teacher = KeywordEncoder()
    wrong = KeywordEncoder(remap={"katze": "dog"})  # student maps katze to the dog vector
    ev = MSEEvaluator(["cat", "dog"], ["katze", "hund"], teacher)
    assert ev(KeywordEncoder())["mse"] == 0.0
    # one row differs in two of 8 dims by 1: mean over 16 entries = 2/16
    assert ev(wrong)["mse"] == pytest.approx(100 * 2 / 16)
    assert not ev.greater_is_better


def _split(tag: str, gold: set[tuple[str, str]]) -> MiningSplit:
    src = {f"{tag}1": "cat", f"{tag}2": "dog", f"{tag}3": "tree"}
    tgt = {f"{tag}x": "katze", f"{tag}y": "hund", f"{tag}z": "haus"}
    return MiningSplit(src, tgt, gold)


def test_mining_evaluator_by_hand() -> None:
    # candidates in both splits: (cat, katze) and (dog, hund) with margin 3; tree↔haus scores 0
    train = _split("s", {("s1", "sx"), ("s2", "sy")})
    test = _split("t", {("t1", "tx"), ("t3", "tz")})
    ev = MiningEvaluator(MiningTask("de-en", train, test))
    s = ev(KeywordEncoder())
    assert ev.details["train_f1"] == pytest.approx(100.0)
    assert ev.details["threshold"] == pytest.approx(3.0, rel=1e-6)
    assert s == pytest.approx({"f1": 50.0, "precision": 50.0, "recall": 50.0})


def test_mine_candidates_one_to_one() -> None:
    e = np.eye(3, dtype=np.float32)
    cand = mine_candidates(e[[0, 1]], e[[1, 0, 2]], k=1)
    assert sorted((i, j) for i, j, _ in cand) == [(0, 1), (1, 0)]


def test_language_bias_by_hand() -> None:
    a = StsSet("a", ["cat", "cat dog", "cat"], ["katze", "dog", "dog"], [5, 3, 0])
    b = StsSet("b", ["red", "red"], ["rot", "tree"], [2, 1])
    ev = LanguageBiasEvaluator([a, b], parallel={"en": ["cat", "dog"], "de": ["katze", "hund"]})
    s = ev(KeywordEncoder())
    # pooled ranks: cos [4.5,3,1.5,4.5,1.5] vs gold [5,4,1,3,2] → 7.5/√90
    assert s["pooled"] == pytest.approx(100 * 7.5 / math.sqrt(90))
    assert s["mean_per_set"] == pytest.approx(100.0)
    assert s["bias"] == pytest.approx(100 - 100 * 7.5 / math.sqrt(90))
    pca = ev.details["pca"]
    assert pca["lang"] == ["en", "en", "de", "de"] and len(pca["x"]) == 4
    # translations coincide in the fake space → identical coordinates
    assert pca["x"][0] == pytest.approx(pca["x"][2]) and pca["y"][1] == pytest.approx(pca["y"][3])


def test_sentences_encoded_once_and_cancel() -> None:
    enc = KeywordEncoder()
    rows = encode_unique(enc, ["cat", "dog", "cat", "cat"])
    assert enc.calls == [["cat", "dog"]] and np.allclose(rows[0], rows[3])
    cached = CachingEncoder(enc)
    TranslationEvaluator(["cat", "dog"], ["katze", "hund"])(cached)
    TranslationEvaluator(["dog", "tree"], ["hund", "baum"])(cached)
    assert enc.calls[1:] == [["cat", "dog", "katze", "hund"], ["tree", "baum"]]
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        STSEvaluator(["cat"], ["dog"], [1.0])(enc, cancel=token)


def test_synthetic_bucc_hides_pairs_and_perfect_encoder_finds_them() -> None:
    words = ["cat", "dog", "tree", "house", "red", "green", "big", "small"]
    german = ["katze", "hund", "baum", "haus", "rot", "GRÜN", "GROß", "KLEIN"]
    pairs = ParallelSet("deu", german, words, "deu", "eng")
    task = build_bucc_style(pairs, gold_per_split=2, seed=1)
    assert task.label == "BUCC-style" and task.name == "deu-eng"
    for split in (task.train, task.test):
        assert len(split.gold) == 2
        assert all(s in split.src and t in split.tgt for s, t in split.gold)
        assert len(split.src) + len(split.tgt) == 4 + 2  # 2 gold each side + 2 one-sided rows
    texts = [set(task.train.src.values()), set(task.test.src.values())]
    assert not texts[0] & texts[1]  # train and test use different rows
    remap = {"grün": "green", "groß": "big", "klein": "small"}
    # gold pairs: cosine 1, margin 3 (k clipped to 3); everything else scores 0
    s = MiningEvaluator(task)(KeywordEncoder(remap=remap))
    assert s == {"f1": 100.0, "precision": 100.0, "recall": 100.0}
