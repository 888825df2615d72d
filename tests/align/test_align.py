"""Sentence alignment: the DP against brute force, known beads, the band, outputs, resume."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from helpers.align import ConceptEncoder, sentence, table_cost, translate

from xlsearch.engine.align import (
    AlignConfig,
    Bead,
    align_documents,
    align_lengths,
    align_vectors,
    read_beads,
    score_beads,
    write_beads,
)
from xlsearch.engine.align.core import run_texts
from xlsearch.engine.align.cost import run_vectors
from xlsearch.engine.align.dp import band_dp, bead_types, full_band, path_band
from xlsearch.engine.errors import CancelledError, DataError
from xlsearch.engine.importers.document import SentenceDocument
from xlsearch.engine.progress import CancelToken


def vectors(encoder: ConceptEncoder, sentences: list[str], side: int) -> dict[int, np.ndarray]:
    texts = run_texts(sentences, side)
    vecs = encoder.encode(texts)
    out, start = {}, 0
    for a in range(1, side + 1):
        count = len(sentences) - a + 1
        out[a] = vecs[start : start + count]
        start += count
    return out


def brute_force(
    n: int, m: int, types: list[tuple[int, int]], cost, dels, lo=None, hi=None
) -> float:  # type: ignore[no-untyped-def]
    """The cheapest path by exhaustive recursion; with ``lo``/``hi``, over a band's cells only."""

    @functools.cache
    def best(i: int, j: int) -> float:
        if lo is not None and not lo[i] <= j <= hi[i]:
            return np.inf
        if i == 0 and j == 0:
            return 0.0
        out = np.inf
        for a, b in types:
            if a > i or b > j:
                continue
            if b == 0:
                c = float(dels[0][i - 1])
            elif a == 0:
                c = float(dels[1][j - 1])
            else:
                c = float(cost(a, b, i, i + 1, j, j + 1)[0, 0])
            out = min(out, best(i - a, j - b) + c)
        return out

    return best(n, m)


@pytest.mark.parametrize("seed", range(12))
def test_dp_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    table = rng.random((4, 4, n + 1, m + 1))
    types = bead_types(3, 4)

    cost = table_cost(table)

    if seed % 2:  # one deletion cost, or one per sentence
        dels = (rng.uniform(0.2, 1.5, n), rng.uniform(0.2, 1.5, m))
        path = band_dp(n, m, types, cost, dels, *full_band(n, m))
    else:
        one = float(rng.uniform(0.2, 1.5))
        dels = (np.full(n, one), np.full(m, one))
        path = band_dp(n, m, types, cost, one, *full_band(n, m))
    assert sum(p[4] for p in path) == pytest.approx(brute_force(n, m, types, cost, dels))
    # the path is contiguous from (0, 0) to (n, m) with allowed bead types
    assert path[0][0] == 0 and path[0][2] == 0 and path[-1][1] == n and path[-1][3] == m
    for (_, i1, _, j1, _), (i0, _, j0, _, _) in zip(path, path[1:], strict=False):
        assert (i1, j1) == (i0, j0)
    assert all((p[1] - p[0], p[3] - p[2]) in types for p in path)


@pytest.mark.parametrize("seed", range(8))
def test_blocked_dp_matches_brute_force_inside_a_band(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks of 3 rows (so bead types reach back across blocks) and a random monotone
    band: the vectorised DP finds the brute-force optimum over the band's cells."""
    import xlsearch.engine.align.dp as dp

    monkeypatch.setattr(dp, "BLOCK", 3)
    rng = np.random.default_rng(100 + seed)
    n, m = int(rng.integers(5, 14)), int(rng.integers(5, 14))
    table = rng.random((5, 5, n + 1, m + 1))
    types = bead_types(4, 5)
    centre = np.round(np.arange(n + 1) * m / n).astype(int)
    half = int(rng.integers(1, 4))
    lo = np.clip(centre - half - rng.integers(0, 2, n + 1), 0, m)
    hi = np.clip(centre + half + rng.integers(0, 2, n + 1), 0, m)
    lo = np.minimum.accumulate(lo[::-1])[::-1]
    hi = np.maximum.accumulate(hi)
    lo[0], hi[n] = 0, m

    cost = table_cost(table)

    dels = (rng.uniform(0.2, 1.5, n), rng.uniform(0.2, 1.5, m))

    def banded(a: int, b: int, i0: int, i1: int, j0: int, j1: int) -> np.ndarray:
        out = cost(a, b, i0, i1, j0, j1)
        for i in range(i0, i1):  # a bead may only end (and so start) inside the band
            cols = np.arange(j0, j1)
            out[i - i0, (cols < lo[i]) | (cols > hi[i])] = np.inf
        return out

    path = band_dp(n, m, types, cost, dels, lo, hi)
    assert all(lo[i] <= j <= hi[i] for p in path for i, j in ((p[0], p[2]), (p[1], p[3])))
    inside = brute_force(n, m, types, cost, dels, lo, hi)
    assert sum(p[4] for p in path) == pytest.approx(inside)
    assert [p[:4] for p in path] == [p[:4] for p in dp.band_dp(n, m, types, banded, dels, lo, hi)]


def brute_force_affine(
    n: int, m: int, types: list[tuple[int, int]], cost, opens, extends, lo=None, hi=None
) -> float:  # type: ignore[no-untyped-def]
    """The cheapest path with affine gaps by exhaustive recursion over (cell, last step):
    a deletion (insertion) right after another one costs ``extends``, else ``opens``."""

    @functools.cache
    def best(i: int, j: int, last: str) -> float:
        if lo is not None and not lo[i] <= j <= hi[i]:
            return np.inf
        if i == 0 and j == 0:
            return 0.0 if last == "M" else np.inf
        out = np.inf
        if last == "X" and i >= 1:  # a deletion of source sentence i-1 ends the path
            out = min(
                best(i - 1, j, "X") + float(extends[0][i - 1]),
                min(best(i - 1, j, "M"), best(i - 1, j, "Y")) + float(opens[0][i - 1]),
            )
        elif last == "Y" and j >= 1:
            out = min(
                best(i, j - 1, "Y") + float(extends[1][j - 1]),
                min(best(i, j - 1, "M"), best(i, j - 1, "X")) + float(opens[1][j - 1]),
            )
        elif last == "M":
            for a, b in types:
                if a and b and a <= i and b <= j:
                    c = float(cost(a, b, i, i + 1, j, j + 1)[0, 0])
                    prev = min(best(i - a, j - b, s) for s in "MXY")
                    out = min(out, prev + c)
        return out

    return min(best(n, m, s) for s in "MXY")


@pytest.mark.parametrize("seed", range(12))
def test_affine_gaps_match_brute_force(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deletions/insertions that extend a run cost less (``extend``): the blocked DP (blocks
    of 3 rows, a random band on odd seeds) finds the brute-force optimum over
    (cell, last step), and its path pays exactly that."""
    import xlsearch.engine.align.dp as dp

    monkeypatch.setattr(dp, "BLOCK", 3)
    rng = np.random.default_rng(200 + seed)
    n, m = int(rng.integers(1, 11)), int(rng.integers(1, 11))
    # some seeds with expensive beads: runs of gaps, and gaps of one side after the other's
    table = rng.random((5, 5, n + 1, m + 1)) * (2.0 if seed < 5 else 6.0)
    types = bead_types(3, 4)

    cost = table_cost(table)

    lo, hi = full_band(n, m)
    if seed % 2 and n > 2:
        centre = np.round(np.arange(n + 1) * m / n).astype(int)
        lo = np.minimum.accumulate(np.clip(centre - 2, 0, m)[::-1])[::-1]
        hi = np.maximum.accumulate(np.clip(centre + 2, 0, m))
        lo[0], hi[n] = 0, m
    opens = (rng.uniform(0.2, 1.0, n), rng.uniform(0.2, 1.0, m))
    if seed % 3 == 0:  # one cost for every sentence, the way the aligner passes it
        one = float(rng.uniform(0.2, 1.0))
        opens = (np.full(n, one), np.full(m, one))
        path = band_dp(n, m, types, cost, one, lo, hi, extend=one * 0.4)
        extends = (opens[0] * 0.4, opens[1] * 0.4)
    else:
        extends = (opens[0] * rng.uniform(0.0, 1.0, n), opens[1] * rng.uniform(0.0, 1.0, m))
        path = band_dp(n, m, types, cost, opens, lo, hi, extend=extends)
    want = brute_force_affine(n, m, types, cost, opens, extends, lo, hi)
    assert sum(p[4] for p in path) == pytest.approx(want)
    assert path[0][0] == 0 and path[0][2] == 0 and path[-1][1] == n and path[-1][3] == m
    for (_, i1, _, j1, _), (i0, _, j0, _, _) in zip(path, path[1:], strict=False):
        assert (i1, j1) == (i0, j0)
    # a gap pays the opening cost unless the step before it was a gap on the same side
    for k, (i0, i1, j0, j1, paid) in enumerate(path):
        before = path[k - 1] if k else None
        if i1 - i0 == 1 and j0 == j1:
            run = before is not None and before[1] - before[0] == 1 and before[2] == before[3]
            assert paid == pytest.approx((extends if run else opens)[0][i0])
        elif j1 - j0 == 1 and i0 == i1:
            run = before is not None and before[3] - before[2] == 1 and before[0] == before[1]
            assert paid == pytest.approx((extends if run else opens)[1][j0])
    # with extend = del_cost the DP is the linear-gap one
    linear = band_dp(n, m, types, cost, opens, lo, hi, extend=opens)
    assert sum(p[4] for p in linear) == pytest.approx(brute_force(n, m, types, cost, opens, lo, hi))


def test_a_block_the_other_document_lacks_stays_out_of_its_neighbours() -> None:
    """Ten unrelated target sentences (a block of captions) between two runs of
    translations: with affine gaps (the default) every source sentence keeps its own
    translation; with every insertion at full price (``gap_extend=1``) the block pulls
    a neighbouring source sentence into it."""
    enc = ConceptEncoder()
    src = [sentence(k, 6) for k in range(12)]
    block = [translate(sentence(500 + c, 3)) for c in range(10)]
    tgt = [translate(s) for s in src[:6]] + block + [translate(s) for s in src[6:]]
    own = {k: k if k < 6 else k + len(block) for k in range(12)}

    def keeps_translations(config: AlignConfig) -> bool:
        beads = align_vectors(vectors(enc, src, 4), vectors(enc, tgt, 4), config)
        return all(own[k] in b.tgt for b in beads for k in b.src)

    assert keeps_translations(AlignConfig())
    assert not keeps_translations(AlignConfig(gap_extend=1.0))
    beads = align_vectors(vectors(enc, src, 4), vectors(enc, tgt, 4))
    inserted = [b.tgt[0] for b in beads if not b.src]
    assert len(inserted) >= 4 and all(6 <= j < 16 for j in inserted)


def known_documents() -> tuple[list[str], list[str], list[Bead]]:
    """Source/target sentences with gold beads: 1-1s, a 1-2 split, a 2-1 merge, an
    insertion and a deletion."""
    src: list[str] = []
    tgt: list[str] = []
    gold: list[Bead] = []

    def add(s: list[str], t: list[str]) -> None:
        gold.append(
            Bead(
                tuple(range(len(src), len(src) + len(s))), tuple(range(len(tgt), len(tgt) + len(t)))
            )
        )
        src.extend(s)
        tgt.extend(t)

    k = 0
    for block in range(3):
        for _ in range(4):
            add([sentence(k)], [translate(sentence(k))])
            k += 1
        long = sentence(k, 10).rstrip(".").split()
        if block == 0:  # one long sentence translated as two
            add(
                [" ".join(long) + "."],
                [translate(" ".join(long[:5])), translate(" ".join(long[5:]))],
            )
        elif block == 1:  # two sentences translated as one
            add([" ".join(long[:5]) + ".", " ".join(long[5:]) + "."], [translate(" ".join(long))])
        else:
            add([sentence(k)], [])  # dropped in translation
            k += 1
            add([sentence(k)], [translate(sentence(k))])
            k += 1
            add([], [translate(sentence(k))])  # added by the translator
        k += 1
    return src, tgt, gold


def test_known_beads_with_a_deterministic_encoder() -> None:
    src, tgt, gold = known_documents()
    enc = ConceptEncoder()
    sv, tv = vectors(enc, src, 4), vectors(enc, tgt, 4)
    # the default deletion cost (tuned on real text) lets a dropped sentence join its
    # neighbour's bead: still a lax match everywhere
    default = align_vectors(sv, tv)
    assert score_beads(gold, default)["lax_f1"] == 1.0
    # … and exactly those two beads (strictly wrong) are flagged: the sentence they
    # swallowed could as well stay alone
    right = {(g.src, g.tgt) for g in gold}
    wrong = [(b.src, b.tgt) for b in default if (b.src, b.tgt) not in right]
    assert wrong == [((14, 15), (14,)), ((16,), (15, 16))]
    assert [(b.src, b.tgt) for b in default if b.flagged] == wrong
    # a lower deletion cost (--del-penalty) recovers every bead exactly
    beads = align_vectors(sv, tv, AlignConfig(del_penalty=0.3))
    assert [(b.src, b.tgt) for b in beads] == [(g.src, g.tgt) for g in gold]
    scores = score_beads(gold, beads)
    assert scores["strict_f1"] == 1.0 and scores["lax_f1"] == 1.0
    # a dropped or added sentence is flagged only when asked (on real documents most of
    # them are right) or when another pairing nearly ties: here the dropped sentence and
    # the bead before it (joining them costs little more at this low deletion cost)
    assert [(b.src, b.tgt) for b in beads if b.flagged] == [((14,), (14,)), ((15,), ())]
    asked = align_vectors(sv, tv, AlignConfig(del_penalty=0.3, flag_deletions=True))
    expected = [not (g.src and g.tgt) or g.src == (14,) for g in gold]
    assert [b.flagged for b in asked] == expected
    assert all(b.score > 0.9 for b in beads if b.src and b.tgt)


def test_an_unrelated_pair_in_place_of_a_deletion_and_insertion_is_flagged() -> None:
    enc = ConceptEncoder()
    src = [sentence(0), sentence(1), sentence(2)]
    tgt = [translate(sentence(0)), translate(sentence(99)), translate(sentence(2))]
    # Vecalign's a*b scaling: the unrelated pair stays a 1-1 bead, flagged by its cost
    beads = align_vectors(
        vectors(enc, src, 2), vectors(enc, tgt, 2), AlignConfig(size_scale="product")
    )
    assert [b.flagged for b in beads if b.src and b.tgt and b.src[0] == 1] == [True]
    assert [b.flagged for b in beads if b.src in ((0,), (2,))] == [False, False]
    # the default (a+b)/2 scaling lets neighbours swallow it: every bead holding one of
    # the unrelated sentences is flagged (its edge sentence adds nothing to the cosine)
    beads = align_vectors(vectors(enc, src, 2), vectors(enc, tgt, 2))
    holding = [b for b in beads if 1 in b.src or 1 in b.tgt]
    assert holding and all(b.flagged for b in holding)
    assert not any(b.flagged for b in beads if b not in holding)


def test_coarse_to_fine_equals_full_dp_on_a_long_document() -> None:
    enc = ConceptEncoder()
    rng = np.random.default_rng(1)
    src, tgt = [], []
    for k in range(400):
        s = sentence(k, int(rng.integers(3, 9)))
        src.append(s)
        if rng.random() < 0.05:
            continue  # deleted
        tgt.append(translate(s))
        if rng.random() < 0.05:
            tgt.append(translate(sentence(10_000 + k)))  # inserted
    sv, tv = vectors(enc, src, 3), vectors(enc, tgt, 3)
    full = align_vectors(sv, tv, AlignConfig(max_side=3, full_dp_max=10_000))
    banded = align_vectors(sv, tv, AlignConfig(max_side=3, full_dp_max=50, width=5))
    assert [(b.src, b.tgt) for b in banded] == [(b.src, b.tgt) for b in full]


def test_path_band_keeps_the_projected_path_and_corners() -> None:
    lo, hi = path_band([(0, 2, 0, 2, 0.0), (2, 5, 2, 4, 0.0)], 10, 8, (2.0, 2.0), 1)
    assert lo[0] == 0 and hi[10] == 8
    assert all(lo <= hi) and all(np.diff(lo) >= 0)
    assert lo[4] <= 4 <= hi[4]


def test_paragraph_anchors_keep_beads_inside_paragraphs() -> None:
    # two paragraphs; a misleading sentence pair across the boundary is kept apart
    enc = ConceptEncoder()
    src = [sentence(0), sentence(1), sentence(2), sentence(3)]
    tgt = [
        translate(sentence(0)),
        translate(sentence(1)),
        translate(sentence(2)),
        translate(sentence(3)),
    ]
    cfg = AlignConfig()
    beads = align_vectors(
        vectors(enc, src, 4), vectors(enc, tgt, 4), cfg, [0, 0, 1, 1], [0, 0, 1, 1]
    )
    assert [(b.src, b.tgt) for b in beads] == [((k,), (k,)) for k in range(4)]


def test_gale_church_baseline_on_lengths() -> None:
    src = ["a" * 20, "b" * 50, "c" * 30, "d" * 80]
    tgt = ["A" * 22, "B" * 24, "B" * 25, "C" * 33, "D" * 85]
    beads = align_lengths(src, tgt)
    assert [(b.src, b.tgt) for b in beads] == [
        ((0,), (0,)),
        ((1,), (1, 2)),
        ((2,), (3,)),
        ((3,), (4,)),
    ]


def test_bead_format_roundtrip_and_vecalign_scoring(tmp_path: Path) -> None:
    beads = [Bead((0,), (0, 1), 0.31), Bead((), (2,), 0.0), Bead((1, 2), (3,), 0.5)]
    path = tmp_path / "x.beads"
    write_beads(path, beads)
    assert path.read_text().splitlines()[0] == "[0]:[0, 1]:0.310"
    again = read_beads(path)
    assert [(b.src, b.tgt) for b in again] == [(b.src, b.tgt) for b in beads]
    gold = [Bead((0,), (0,)), Bead((), (1,)), Bead((), (2,)), Bead((1, 2), (3,))]
    s = score_beads(gold, beads)
    # strict: 2 of 3 predicted beads are exact; recall over gold non-empty beads: 1 of 2
    assert s["strict_precision"] == pytest.approx(2 / 3)
    assert s["strict_recall"] == pytest.approx(1 / 2)
    # lax: the 1-2 bead overlaps the gold 1-1 on both sides
    assert s["lax_precision"] == 1.0 and s["lax_recall"] == 1.0
    bad = tmp_path / "bad.beads"
    bad.write_text("[0]:[0]\nnot a bead\n")
    with pytest.raises(DataError, match="bad.beads:2"):
        read_beads(bad)


def test_cancel_then_resume_reuses_encoded_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    import xlsearch.engine.align.core as core

    monkeypatch.setattr(core, "CHUNK", 50)
    src_s = [sentence(k) for k in range(120)]
    tgt_s = [translate(x) for x in src_s]
    gold = [Bead((k,), (k,)) for k in range(120)]
    src = SentenceDocument.from_sentences(src_s, "en", "a.txt")
    tgt = SentenceDocument.from_sentences(tgt_s, "de", "b.txt")
    enc = ConceptEncoder()
    token = CancelToken()
    seen: list[int] = []

    def progress(p):  # type: ignore[no-untyped-def]
        seen.append(p.done)
        if p.stage == "encode" and p.done >= 150:
            token.cancel()

    with pytest.raises(CancelledError):
        align_documents(src, tgt, enc, on_progress=progress, cancel=token)
    calls = enc.calls
    assert 3 <= calls < 10
    resumed: list[str] = []
    result = align_documents(src, tgt, enc, on_progress=lambda p: resumed.append(p.message))
    assert resumed.count("resumed") == calls  # finished chunks came from the checkpoint
    total = len(set(src_s + tgt_s))  # runs="average": each sentence is encoded once
    assert enc.calls - calls == -(-total // 50) - calls
    assert score_beads(gold, result.beads)["strict_f1"] == 1.0
    # the checkpoint is removed once the alignment is done
    from xlsearch.engine.align.core import checkpoint_folder

    assert not checkpoint_folder(enc.id, src_s, tgt_s, 4).exists()


def test_average_runs_are_close_to_encoded_runs_for_additive_encoders() -> None:
    enc = ConceptEncoder()
    src = [sentence(k) for k in range(6)]
    averaged = run_vectors(enc.encode(src), 3)
    encoded = vectors(enc, src, 3)
    for a in (1, 2, 3):
        cos = np.einsum("kd,kd->k", averaged[a], encoded[a])
        assert cos.min() > 0.98


def test_a_model_that_never_saw_a_language_is_reported() -> None:
    src_s = [sentence(k) for k in range(6)]
    src = SentenceDocument.from_sentences(src_s, "de", "a.txt")
    tgt = SentenceDocument.from_sentences([translate(x) for x in src_s], "fr", "b.txt")
    enc = ConceptEncoder()
    enc.card = {"languages": ["de", "fr"], "teacher": "bundled:teacher"}  # type: ignore[attr-defined]
    assert align_documents(src, tgt, enc, checkpoint=False).warnings == []
    enc.card = {"languages": ["de"], "teacher": "bundled:teacher"}  # type: ignore[attr-defined]
    (warning,) = align_documents(src, tgt, enc, checkpoint=False).warnings
    assert "test:concepts was not trained on fr" in warning


def test_unknown_scaling_or_runs_is_a_config_error() -> None:
    from xlsearch.engine.errors import ConfigError

    doc = SentenceDocument.from_sentences(["a b."], "en", "a.txt")
    for config in (
        AlignConfig(size_scale="square"),
        AlignConfig(runs="pool"),
        AlignConfig(gap_extend=0.0),
    ):
        with pytest.raises(ConfigError):
            align_documents(doc, doc, ConceptEncoder(), config, checkpoint=False)


def test_numbers_masks_and_agreement() -> None:
    from xlsearch.engine.align.numbers import agreement, number_masks, run_masks

    (masks,) = number_masks(
        [
            "Everest 8848 m, 1953.",  # 0
            "Lhotse 8501 m",  # 1: other numbers
            "l'Everest (8 848 m) en 1953",  # 2: the same numbers as 0 (a grouped thousand)
            "no numbers here",  # 3
            "١٩٥٣ and 08.848",  # 4: Arabic-Indic digits, a leading zero: the same as 0
            "only 1953",  # 5: half of 0's numbers
            "8847,60 m",  # 6
            "8847,6 m",  # 7: the same decimal as 6
        ]
    )
    score = agreement(masks[[0]], masks)[0]
    assert score[2] == 1.0 and score[4] == 1.0
    assert score[1] == -1.0 and score[3] == -1.0  # different numbers, or none on one side
    assert score[5] == 0.0  # Jaccard 1/2
    assert agreement(masks[[6]], masks[[7]])[0, 0] == 1.0
    # two documents share one numbering: up to 256 distinct numbers never share a bit
    src, tgt = number_masks([f"{k} m" for k in range(200)], [f"{k + 100} m" for k in range(150)])
    same = agreement(src, tgt) == 1.0
    assert [tuple(x) for x in np.argwhere(same)] == [(k + 100, k) for k in range(100)]
    assert (agreement(src, tgt)[~same] == -1.0).all()
    assert agreement(masks[[3]], masks[[3]])[0, 0] == 0.0  # no numbers on either side
    runs = run_masks(masks, 2)
    assert (runs[2][2] == masks[2] | masks[3]).all()
    assert agreement(runs[2][[2]], masks[[0]])[0, 0] == 1.0  # a run has its sentences' numbers


@pytest.mark.parametrize("where", [0, 1])
def test_a_shared_number_decides_where_an_ambiguous_sentence_goes(where: int) -> None:
    """Target sentence 1 is as close to source 0 as to source 1 (its embedding is their
    mean, every length equal): the number it shares with one of them decides its bead."""
    rng = np.random.default_rng(3)
    u = rng.standard_normal((2, 32)).astype(np.float32)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    middle = (u[0] + u[1]) / np.linalg.norm(u[0] + u[1])
    src_texts = ["Die Expedition kam 1953 an.", "Sie stiegen weiter."]
    src_texts[1 - where] = src_texts[1 - where].replace(" 1953", "")
    src_texts[where] = "Die Expedition kam 1953 an." if where == 0 else "Sie stiegen 1953 ."
    tgt_texts = ["L'expédition arriva.", "C'était en 1953.", "Ils montèrent."]
    sv = run_vectors(u, 2)
    tv = run_vectors(np.stack([u[0], middle, u[1]]).astype(np.float32), 2)
    config = AlignConfig(max_side=2, max_total=3)
    beads = align_vectors(
        sv, tv, config, None, None, None, [20, 20], [20, 20, 20], src_texts, tgt_texts
    )
    expected = [((0,), (0, 1)), ((1,), (2,))] if where == 0 else [((0,), (0,)), ((1,), (1, 2))]
    assert [(b.src, b.tgt) for b in beads] == expected


@pytest.mark.parametrize("seed", range(6))
def test_margins_are_the_gap_to_the_second_best_way_into_each_cell(seed: int) -> None:
    """``band_dp``'s margin at a cell = the second-cheapest way to reach it (another last
    bead or a gap) minus the cheapest, as an exhaustive search computes it."""
    from xlsearch.engine.align.dp import cell_margin

    rng = np.random.default_rng(100 + seed)
    n, m = int(rng.integers(2, 7)), int(rng.integers(2, 7))
    table = rng.random((4, 4, n + 1, m + 1))
    types = bead_types(3, 4)

    cost = table_cost(table)

    one = float(rng.uniform(0.2, 1.5))
    dels = (np.full(n, one), np.full(m, one))
    margins: list = []
    band_dp(n, m, types, cost, one, *full_band(n, m), margins=margins)
    for i in range(n + 1):
        for j in range(m + 1):
            ways = sorted(
                brute_force(i - a, j - b, types, cost, dels)
                + (one if not (a and b) else float(cost(a, b, i, i + 1, j, j + 1)[0, 0]))
                for a, b in types
                if a <= i and b <= j
            )
            if len(ways) >= 2 and np.isfinite(ways[1]):
                assert cell_margin(margins, i, j) == pytest.approx(ways[1] - ways[0], abs=1e-5)


def test_a_near_tie_flags_the_beads_on_both_sides_of_it() -> None:
    from xlsearch.engine.align.core import beads_from_path
    from xlsearch.engine.align.cost import LengthCost

    cost = LengthCost([10] * 4, [10] * 4)  # flag_cost 6: these beads pass on their own
    path = [(k, k + 1, k, k + 1, 2.0) for k in range(4)]
    margins = [(0, np.full((5, 5), 5.0, dtype=np.float32))]
    # another way into (2, 2) nearly as cheap: the two beads before it are in doubt (a
    # merge of both, or their boundary shifted, rejoins the path there)
    margins[0][1][2, 2] = 0.05
    on = AlignConfig(flag_margin=0.1)  # off by default (alternative margins instead)
    flags = [b.flagged for b in beads_from_path(path, cost, on, margins)]
    assert flags == [True, True, False, False]
    off = [b.flagged for b in beads_from_path(path, cost, AlignConfig(), margins)]
    assert off == [False] * 4
    # near-certain beads (cost below tie_floor x flag_cost) tie with their merge: no flag
    sure = [(i0, i1, j0, j1, 0.1) for i0, i1, j0, j1, _ in path]
    assert not any(b.flagged for b in beads_from_path(sure, cost, on, margins))
    no_floor = AlignConfig(flag_margin=0.1, tie_floor=0)
    assert [b.flagged for b in beads_from_path(sure, cost, no_floor, margins)] == [
        True,
        True,
        False,
        False,
    ]
