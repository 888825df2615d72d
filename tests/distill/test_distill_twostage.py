"""Two-stage distillation at tiny scale: a transformer student teaches a static one on the
same pairs plus monolingual sentences, then the static student is calibrated for STS."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers.distill import DE, FR, config, log_lines

from xlsearch.engine.distill import DistillConfig, distill
from xlsearch.engine.distill.data import TrainFile, load_parallel, read_mono
from xlsearch.engine.errors import ConfigError, DataError


def _mono(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_read_mono_language_dedupe_and_errors(tmp_path: Path) -> None:
    f = _mono(tmp_path / "news.de.txt", ["der hund", "", "der  hund", "die katze\tignored"])
    (g,), rep = read_mono(TrainFile(f), 3)
    assert g.mono and g.lang == "de" and g.file == 3
    assert g.src == g.tgt == ["der hund", "die katze"]
    assert rep.pairs == 2 and rep.dropped == {"blank line": 1, "duplicate sentence": 1}
    assert read_mono(TrainFile(_mono(tmp_path / "mono-ko.gz.txt", ["개"])), 0)[0][0].lang == "ko"
    (tmp_path / "empty.fr.txt").write_bytes(b"")
    with pytest.raises(DataError, match=r"empty\.fr\.txt: empty file"):
        read_mono(TrainFile(tmp_path / "empty.fr.txt"), 0)
    (tmp_path / "bin.fr.txt").write_bytes(b"a\x00b\n")
    with pytest.raises(DataError, match=r"bin\.fr\.txt:1: binary"):
        read_mono(TrainFile(tmp_path / "bin.fr.txt"), 0)


def test_mono_groups_train_only_and_never_leak_dev(
    corpus: dict[str, Path],  # noqa: F811
    tmp_path: Path,
) -> None:
    base = load_parallel([corpus["de"]], dev_per_lang=16)
    held = base.dev[0].tgt[0]
    mono = _mono(tmp_path / "extra.de.txt", [held, "ein ganz neuer satz", "noch einer"])
    data = load_parallel([corpus["de"]], dev_per_lang=16, mono=[mono])
    m = [g for g in data.groups if g.mono]
    assert len(m) == 1 and m[0].src == ["ein ganz neuer satz", "noch einer"]
    assert all(not g.mono for g in data.dev) and len(data.files) == len(data.reports) == 2
    assert "2 de mono" in data.summary()


@pytest.mark.slow
def test_two_stage_static_from_transformer_student(
    corpus: dict[str, Path],  # noqa: F811
    tiny_st_model: Path,
    shared_home: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from xlsearch.cli import main
    from xlsearch.engine import load_encoder
    from xlsearch.engine.distill.teacher_cache import TeacherCache

    # stage 1: a transformer student (the teacher fine-tuned on the pairs)
    stage1 = distill(
        config(corpus, tiny_st_model, tmp_path / "xf", student="teacher", max_steps=4)
    ).out
    # stage 2: the static student learns from stage 1 on the pairs + monolingual sentences
    mono_de = _mono(tmp_path / "mono.de.txt", [f"{d} heute {i}" for i, d in enumerate(DE)])
    mono_ja = _mono(tmp_path / "mono.ja.txt", ["ねこがねる", "いぬがはしる", "おはよう"])
    sts = tmp_path / "sts-train.tsv"
    sts.write_text(
        "".join(
            f"{a}\t{b}\t{s}\n"
            for a, b, s in zip(DE, FR, [5, 4, 3, 2, 1, 0, 5, 4, 3, 2], strict=True)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "static2"
    code = main(
        [
            "distill",
            "--train", str(corpus["de"]), str(corpus["fr"]),
            "--mono", str(mono_de), str(mono_ja),
            "--teacher", str(stage1),
            "--targets", "each",
            "--student", "static",
            "--out", str(out),
            "--vocab-size", "150",
            "--batch-size", "16",
            "--max-steps", "12",
            "--eval-steps", "0",
            "--ckpt-steps", "0",
            "--log-steps", "1",
            "--dev-per-lang", "16",
            "--device", "cpu",
            "--calibrate-sts", str(sts),
            "--teacher-precision", "fp32",  # the cache checked below is the fp32 one
        ]
    )  # fmt: skip
    assert code == 0 and "model:" in capsys.readouterr().out
    card = json.loads((out / "xlsearch.json").read_text("utf-8"))
    assert card["teacher"] == str(stage1.resolve()) and card["targets"] == "each"
    assert {"de", "fr", "ja"} <= set(card["languages"])
    mono_rows = [d for d in card["data"] if d.get("mono")]
    assert [Path(d["path"]).name for d in mono_rows] == ["mono.de.txt", "mono.ja.txt"]
    assert mono_rows[1]["pairs"] == 3
    assert card["sts_calibration"]["pairs"] == 10 and "metrics" in card
    # the targets of monolingual and translated sentences are stage 1's own embeddings
    teacher = load_encoder(stage1, device="cpu")
    cache = TeacherCache.for_encoder(teacher)
    probe = ["ねこがねる", f"{DE[0]} heute 0"]
    np.testing.assert_allclose(cache.get(probe), teacher.encode(probe), atol=2e-3)
    steps = [r for r in log_lines(out.with_name(out.name + ".run")) if "loss" in r]
    assert len(steps) == 12 and all(np.isfinite(r["loss"]) for r in steps)
    assert all(r["loss_ctr"] > 0 for r in steps)  # pairs still get the InfoNCE term
    assert load_encoder(out, device="cpu").encode(["ねこ", "katze"]).shape == (2, 32)


def test_bad_targets_refused_before_reading(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="targets"):
        distill(DistillConfig(train=[str(tmp_path / "missing.tsv")], targets="both"))


def test_sim_kd_loss_by_hand_and_logged(
    corpus: dict[str, Path],  # noqa: F811
    tiny_st_model: Path,
    shared_home: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    import torch

    from xlsearch.engine.distill.train import sim_kd_loss

    t = torch.tensor([[1.0, 0.0], [0.6, 0.8]])
    assert sim_kd_loss(t, t, t, t).item() == pytest.approx(0.0, abs=1e-7)
    # student sees both rows as identical: off-diagonal cosines 1 instead of 0.6 (both
    # matrices), diagonal right → mean of ((1 − 0.6)² × 2 / 4) over the two matrices
    s = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    assert sim_kd_loss(s, s, t, t).item() == pytest.approx(0.16 * 2 / 4, rel=1e-5)
    res = distill(config(corpus, tiny_st_model, tmp_path / "k", sim_kd=0.5, max_steps=6))
    steps = [r for r in log_lines(res.run_dir) if "loss" in r]
    assert all(r["loss_skd"] > 0 for r in steps)
    r = steps[0]
    expected = r["loss_src"] + r["loss_tgt"] + 0.01 * r["loss_ctr"] + 0.5 * r["loss_skd"]
    assert r["loss"] == pytest.approx(expected)
    with pytest.raises(ConfigError, match="sim-kd"):
        distill(config(corpus, tiny_st_model, tmp_path / "bad", sim_kd=-1.0))


def test_vocab_balance_gives_each_language_a_share(
    corpus: dict[str, Path],  # noqa: F811
) -> None:
    from collections import Counter

    from xlsearch.engine.distill.setup import vocab_texts

    data = load_parallel([corpus["de"], corpus["fr"]], dev_per_lang=16)
    assert list(vocab_texts(data, 0.0)) == list(data.all_texts())
    fr = {t for g in data.groups + data.dev if g.lang == "fr" for t in g.tgt}
    de = {t for g in data.groups + data.dev if g.lang == "de" for t in g.tgt}
    counts = Counter("fr" if t in fr else "de" if t in de else "en" for t in vocab_texts(data, 3))
    # shares: (240 en + 160 en … deduped per language) — every language within the same share
    share = (len({t for g in data.groups + data.dev for t in g.src}) + len(fr) + len(de)) // 3
    assert counts["fr"] == min(share, 3 * len(fr)) and counts["de"] <= share
    # a language is never repeated more than `balance` times
    few = vocab_texts(data, 1)
    assert Counter(t for t in few if t in fr).most_common(1)[0][1] == 1
