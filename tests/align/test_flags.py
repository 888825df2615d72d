"""Low-confidence flags: alternative margins against exhaustive search, crossing anchors,
and documents with a known wrong split (flagged) or none (no flags)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.align import ConceptEncoder, sentence, table_cost, translate

from xlsearch.engine.align import AlignConfig, align_documents
from xlsearch.engine.align.confidence import alternative_margins, anchors, crossing_anchors
from xlsearch.engine.align.dp import band_dp, bead_types, full_band
from xlsearch.engine.importers.document import SentenceDocument


class TableCost:
    """A bead cost read from a random table, with one deletion cost (linear gaps)."""

    def __init__(self, table: np.ndarray, n: int, m: int, one: float) -> None:
        self.n, self.m, self.del_cost = n, m, one
        self._cost = table_cost(table)

    def __call__(self, a: int, b: int, i0: int, i1: int, j0: int, j1: int) -> np.ndarray:
        return self._cost(a, b, i0, i1, j0, j1)


def all_paths(n: int, m: int, types: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    """Every bead path from (0, 0) to (n, m)."""
    if n == 0 and m == 0:
        yield []
        return
    for a, b in types:
        if a <= n and b <= m:
            for rest in all_paths(n - a, m - b, types):
                yield [*rest, (n - a, n, m - b, m)]


def exhaustive_margins(cost: TableCost, types: list[tuple[int, int]]) -> tuple[list, list]:
    """The best path and, per bead, the cheapest path through an edge that conflicts with
    it and pairs some sentence differently, minus the best (by enumerating every path)."""

    def price(p: tuple[int, int, int, int]) -> float:
        i0, i1, j0, j1 = p
        if i1 > i0 and j1 > j0:
            return float(cost(i1 - i0, j1 - j0, i1, i1 + 1, j1, j1 + 1)[0, 0])
        return cost.del_cost

    paths = [(sum(price(p) for p in path), path) for path in all_paths(cost.n, cost.m, types)]
    best_cost, best = min(paths)
    cells = [(p[0], p[2]) for p in best] + [(cost.n, cost.m)]
    gap = [not (p[1] > p[0] and p[3] > p[2]) for p in best]

    def other(e: tuple[int, int, int, int]) -> bool:
        start, end = (e[0], e[2]), (e[1], e[3])
        if start not in cells or end not in cells:
            return True
        k0, k1 = cells.index(start), cells.index(end)
        return k1 > k0 + 1 and any(gap[k0:k1])  # a sentence left unaligned gets a partner

    margins = []
    for i0, i1, j0, j1 in best:
        found = np.inf
        for total, path in paths:
            for e in path:
                before = e[1] <= i0 and e[3] <= j0
                after = e[0] >= i1 and e[2] >= j1
                if not before and not after and e != (i0, i1, j0, j1) and other(e):
                    found = min(found, total - best_cost)
        margins.append(found)
    return best, margins


@pytest.mark.parametrize("seed", range(10))
def test_alternative_margins_match_an_exhaustive_search(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import xlsearch.engine.align.confidence as confidence
    import xlsearch.engine.align.dp as dp

    monkeypatch.setattr(dp, "BLOCK", 2)  # blocks of rows, as on long documents
    monkeypatch.setattr(confidence, "BLOCK", 2)
    rng = np.random.default_rng(300 + seed)
    n, m = int(rng.integers(2, 5)), int(rng.integers(2, 5))
    cost = TableCost(rng.random((3, 3, n + 1, m + 1)), n, m, float(rng.uniform(0.3, 1.0)))
    types = bead_types(2, 3)
    lo, hi = full_band(n, m)
    forward: list = []
    path = band_dp(n, m, types, cost, cost.del_cost, lo, hi, totals=forward)
    best, expected = exhaustive_margins(cost, types)
    assert [p[:4] for p in path] == best
    got = alternative_margins(path, cost, types, lo, hi, forward, cap=10.0)
    assert got == pytest.approx(np.array(expected), abs=1e-9)
    # under a cap, only the margins below it are computed
    capped = alternative_margins(path, cost, types, lo, hi, forward, cap=0.3)
    assert list(np.isfinite(capped)) == [x < 0.3 for x in expected]


def test_anchors_are_numbers_and_names() -> None:
    assert anchors("Am 3. Mai 1953 erreichte Hillary den Gipfel (8 848 m).") == {
        "#3",
        "#1953",
        "#8848",
        "Mai",
        "Hillary",
        "Gipfel",
    }
    assert anchors("le sommet (8848 m) fut atteint par Hillary") == {"#8848", "Hillary"}


def test_a_name_or_number_across_a_boundary_flags_both_beads() -> None:
    from xlsearch.engine.align import Bead

    src = ["Wir stiegen nach Zermatt ab.", "Es war 1953.", "Dann regnete es."]
    tgt = ["Nous sommes descendus.", "À Zermatt, en 1953.", "Puis il a plu."]
    beads = [Bead((k,), (k,)) for k in range(3)]
    # Zermatt: source of bead 0, missing from its target, on the target of bead 1 (whose
    # source lacks it): the boundary between 0 and 1 is misplaced
    assert list(crossing_anchors(beads, src, tgt)) == [True, True, False]
    # the neighbour's own source has it: explained, no flag
    src[1] = "Es war 1953 in Zermatt."
    assert list(crossing_anchors(beads, src, tgt)) == [False, False, False]
    # a number written another way is the same number
    two = beads[:2]
    assert list(crossing_anchors(two, ["Bis 8 848 m.", "Oben."], ["En haut.", "8848 m."])) == [
        True,
        True,
    ]


def test_the_length_baseline_flags_crossing_anchors_too() -> None:
    from xlsearch.engine.align import align_lengths

    src = ["Wir stiegen nach Zermatt ab.", "Es regnete den ganzen Abend lang.", "Dann Schnee."]
    tgt = ["Nous sommes descendus.", "À Zermatt, il a plu toute la soirée.", "Puis la neige."]
    beads = align_lengths(src, tgt)
    assert [(b.src, b.tgt) for b in beads] == [((k,), (k,)) for k in range(3)]
    assert [b.flagged for b in beads] == [True, True, False]
    off = align_lengths(src, tgt, AlignConfig(flag_anchors=False))
    assert not any(b.flagged for b in off)


def test_xlsearch_align_shows_and_writes_the_flags(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from xlsearch.cli import main

    de, fr = tmp_path / "bericht.de.txt", tmp_path / "bericht.fr.txt"
    de.write_text(
        "Wir stiegen nach Zermatt ab.\nEs regnete den ganzen Abend lang.\nDann Schnee.\n",
        encoding="utf-8",
    )
    fr.write_text(
        "Nous sommes descendus.\nÀ Zermatt, il a plu toute la soirée.\nPuis la neige.\n",
        encoding="utf-8",
    )
    out = tmp_path / "pairs.tmx"
    argv = ["align", str(de), str(fr), "--presplit", "--lengths", "--out", str(out)]
    assert main([*argv, "--src-lang", "de", "--tgt-lang", "fr", "--show", "3"]) == 0
    shown = capsys.readouterr()
    assert "; 2 flagged" in shown.out
    marks = [line[:1] for line in shown.out.splitlines() if line[2:3] == "["]
    assert marks == ["!", "!", " "]
    assert "2 low-confidence beads" in shown.err
    assert out.read_text(encoding="utf-8").count("low-confidence") == 2


def document(sentences: list[str], lang: str) -> SentenceDocument:
    return SentenceDocument.from_sentences(sentences, lang, f"doc.{lang}")


def story(moved: bool) -> tuple[list[str], list[str]]:
    """Twelve sentences about a climb and their translations; ``moved``: the translator
    moved the clause naming the hut (Hörnlihütte) into the next sentence."""
    src, tgt = [], []
    for k in range(12):
        s = sentence(k, 6)
        src.append(s)
        tgt.append(translate(s))
    src[5] = sentence(5, 6).rstrip(".") + " Hörnlihütte."
    if moved:
        tgt[6] = "de:Hörnlihütte " + tgt[6]
    else:
        tgt[5] = tgt[5].rstrip(".") + " de:Hörnlihütte."
    return src, tgt


def test_a_clean_alignment_has_no_flags() -> None:
    src, tgt = story(moved=False)
    al = align_documents(
        document(src, "de"), document(tgt, "fr"), ConceptEncoder(), checkpoint=False
    )
    assert [(b.src, b.tgt) for b in al.beads] == [((k,), (k,)) for k in range(12)]
    assert al.flagged == 0


def test_a_clause_moved_across_a_boundary_flags_the_two_beads_it_splits() -> None:
    # gold: sentences 5 and 6 form one 2-2 bead; the aligner pairs them 1-1 (each pair
    # shares all but one word), wrong under strict scoring: both beads are flagged
    src, tgt = story(moved=True)
    al = align_documents(
        document(src, "de"), document(tgt, "fr"), ConceptEncoder(), checkpoint=False
    )
    assert [(b.src, b.tgt) for b in al.beads if b.flagged] == [((5,), (5,)), ((6,), (6,))]
    off = align_documents(
        document(src, "de"),
        document(tgt, "fr"),
        ConceptEncoder(),
        AlignConfig(flag_anchors=False),
        checkpoint=False,
    )
    assert off.flagged == 0  # the model alone sees no doubt here


def test_a_sentence_spread_over_two_translations_is_in_doubt() -> None:
    # source sentence 4 is translated half into target 3 and half into target 4 (which
    # also translate sentences 3 and 5): giving it to either neighbour costs about the same
    src = [sentence(k, 6) for k in range(10)]
    half = sentence(4, 6).rstrip(".").split()
    tgt = [translate(sentence(k, 6)) for k in range(10) if k != 4]
    tgt[3] = translate(sentence(3, 6).rstrip(".") + " " + " ".join(half[:3]) + ".")
    tgt[4] = translate(" ".join(half[3:]) + " " + sentence(5, 6))
    al = align_documents(
        document(src, "de"), document(tgt, "fr"), ConceptEncoder(), checkpoint=False
    )
    flagged = [b for b in al.beads if b.flagged]
    assert flagged and all(4 in b.src or b.src in ((3,), (5,)) for b in flagged)
    assert any(4 in b.src for b in flagged)
    assert not any(b.flagged for b in al.beads if b.src and (b.src[0] < 3 or b.src[0] > 5))


def test_alignments_with_or_without_alternative_flags_share_beads() -> None:
    src = [sentence(k, 6) for k in range(8)]
    tgt = [translate(s) for s in src]
    args = (document(src, "de"), document(tgt, "fr"), ConceptEncoder())
    on = align_documents(*args, checkpoint=False)
    off = align_documents(*args, AlignConfig(flag_alternative=None), checkpoint=False)
    assert [(b.src, b.tgt) for b in on.beads] == [(b.src, b.tgt) for b in off.beads]


def test_every_path_is_enumerated() -> None:
    # the exhaustive reference itself: paths of a 2 x 2 grid with 1-1, 1-0 and 0-1 beads
    # are the Delannoy number D(2, 2) = 13
    assert len(list(all_paths(2, 2, [(1, 0), (0, 1), (1, 1)]))) == 13
    assert len(set(map(tuple, all_paths(2, 2, [(1, 0), (0, 1), (1, 1)])))) == 13
