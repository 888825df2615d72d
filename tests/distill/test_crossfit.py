"""``distill --clean thorough``: cross-fitted quick students find shifted lines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xlsearch.engine.distill import DistillConfig, distill


def _words(rng: np.random.Generator, n: int, letters: str) -> list[str]:
    out: set[str] = set()
    while len(out) < n:
        out.add("".join(rng.choice(list(letters), size=int(rng.integers(4, 8)))))
    return sorted(out)


def _pairs(n: int, seed: int = 0) -> tuple[list[str], list[str], np.ndarray]:
    """``n`` pairs of a made-up language pair (each word translates one way, no shared
    spelling) and a teacher vector per source (the mean of its words' vectors)."""
    rng = np.random.default_rng(seed)
    en = _words(rng, 300, "abcdefghijklm")
    xx = _words(rng, 300, "nopqrstuvwxyz")
    emb = rng.normal(size=(300, 32)).astype(np.float32)
    src, tgt, vecs = [], [], []
    for _ in range(n):
        w = rng.choice(300, size=int(rng.integers(4, 9)), replace=False)
        src.append(" ".join(en[i] for i in w).capitalize() + ".")
        tgt.append(" ".join(xx[i] for i in w).capitalize() + ".")
        v = emb[w].mean(axis=0)
        vecs.append(v / np.linalg.norm(v))
    return src, tgt, np.stack(vecs)


def test_crossfitted_students_catch_planted_shifted_lines(tmp_path: Path) -> None:
    from xlsearch.engine.distill.crossfit import crossfit_drops

    src, tgt, vecs = _pairs(400)
    planted = list(range(5, 400, 20))  # 20 targets taken from the next line
    for i in planted:
        tgt[i] = tgt[i + 1]
    found = crossfit_drops(
        src, tgt, vecs, tmp_path, min_pairs=100, max_share=0.08, steps=5, vocab_size=400
    )
    caught = set(found.why) & set(planted)
    assert len(caught) >= 15, sorted(found.margin[planted].round(2))
    assert len(found.why) <= 32  # the cap: at most 8 % of the pairs
    assert "closer to other pairs than to its source" in found.why[min(caught)]
    assert np.isfinite(found.margin).all()


def test_too_few_pairs_are_not_judged(tmp_path: Path) -> None:
    from xlsearch.engine.distill.crossfit import crossfit_drops

    src, tgt, vecs = _pairs(50)
    tgt[3] = tgt[4]
    assert crossfit_drops(src, tgt, vecs, tmp_path).why == {}


def test_distill_clean_thorough_reports_the_model_drops(
    tiny_st_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from helpers.clean import word_corpus

    from xlsearch.engine.distill import crossfit

    monkeypatch.setattr(crossfit, "MIN_PAIRS", 20)
    monkeypatch.setattr(crossfit, "MAX_SHARE", 0.05)
    monkeypatch.setattr(crossfit, "STEPS", 5)
    pairs = word_corpus()
    tsv = tmp_path / "train.tsv"
    tsv.write_text("".join(f"{s}\t{t}\n" for s, t in pairs), encoding="utf-8")
    dev = tmp_path / "dev.tsv"
    dev.write_text("The sun is shining.\tDie Sonne scheint.\n", encoding="utf-8")
    report = tmp_path / "dropped.tsv"
    cfg = DistillConfig(
        train=[str(tsv)], dev=str(dev), teacher=str(tiny_st_model), student="static",
        out=str(tmp_path / "s"), vocab_size=120, vocab_balance=0.0, batch_size=16,
        max_steps=2, eval_steps=0, ckpt_steps=0, device="cpu", clean_report=str(report),
        clean_thorough=True,
    )  # fmt: skip
    events = []
    distill(cfg, on_progress=events.append)
    rows = report.read_text(encoding="utf-8").splitlines()[1:]
    model_rows = [r for r in rows if r.split("\t")[1] == "misaligned-model"]
    assert 1 <= len(model_rows) <= 3  # the lowest margins, at most 5 % of 64 pairs
    notes = [e.message for e in events if e.stage == "notice" and "--clean" in e.message]
    assert len(notes) == 1 and f"{len(model_rows)} misaligned-model" in notes[0]
    assert any("cross-fitted students dropped" in (e.message or "") for e in events)
