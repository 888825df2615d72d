"""Distillation engine: end-to-end runs on tiny in-test TSVs and tiny random models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers.distill import config, log_lines, write_pairs

from xlsearch.engine.distill import DistillConfig, distill
from xlsearch.engine.distill.checkpoint import ema_tau, ema_update
from xlsearch.engine.errors import ConfigError
from xlsearch.engine.progress import CancelToken


def test_static_loss_falls_and_saved_student_loads_everywhere(
    corpus: dict[str, Path], tiny_st_model: Path, shared_home: Path, tmp_path: Path
) -> None:
    events = []
    # tiny data, 24 steps: the table lr of the demo (0.02), not the all-data preset (0.005)
    cfg = config(corpus, tiny_st_model, tmp_path / "s", emb_lr=0.02)
    res = distill(cfg, on_progress=events.append)
    steps = [r for r in log_lines(res.run_dir) if "loss" in r]
    assert len(steps) == 24 and res.steps == 24 and not res.cancelled
    first, last = steps[0], steps[-1]
    assert first["loss_src"] > 0 and first["loss_tgt"] > 0
    # the static presets add a small in-batch InfoNCE term (weight 0.01); the
    # similarity-structure term is off by default (opt-in --sim-kd)
    assert first["loss_ctr"] > 0 and "loss_skd" not in first
    assert first["loss"] == pytest.approx(
        first["loss_src"] + first["loss_tgt"] + 0.01 * first["loss_ctr"]
    )
    mse = [r["loss_src"] + r["loss_tgt"] for r in steps]  # the paper's objective falls
    assert np.mean(mse[-4:]) < 0.7 * np.mean(mse[:4])
    assert last["loss"] < first["loss"]
    ev = [e for e in events if e.stage == "distill" and "pairs_per_s" in e.metrics]
    assert {"step", "epoch", "loss", "loss_src", "loss_tgt", "pairs_per_s", "eta_s"} <= set(
        ev[-1].metrics
    )
    assert any(e.stage == "eval" for e in events)
    assert not [e for e in events if e.stage == "notice"]  # clean data: nothing to say
    card = json.loads((res.out / "xlsearch.json").read_text())
    assert card["kind"] == "static" and card["teacher"].endswith("tiny-st")
    assert set(card["languages"]) == {"de", "fr"}
    assert [d["weight"] for d in card["data"]] == [1, 2]
    assert 0 <= card["metrics"]["dev_acc"] <= 100 and card["metrics"]["dev_mse"] > 0

    from sentence_transformers import SentenceTransformer

    from xlsearch.engine import load_encoder

    texts = ["the cat sleeps", "die katze schläft", "le chat dort"]
    st = SentenceTransformer(str(res.out), device="cpu").encode(texts, normalize_embeddings=True)
    ours = load_encoder(res.out, device="cpu").encode(texts)
    assert ours.shape == (3, 32)
    np.testing.assert_allclose(st, ours, atol=1e-5)


def _weights(folder: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    out: dict[str, np.ndarray] = {}
    for f in sorted(folder.rglob("model.safetensors")):
        for k, v in load_file(str(f)).items():
            out[f"{f.parent.name}/{k}"] = v
    return out


def test_cancel_saves_and_resume_matches_uninterrupted_run(
    corpus: dict[str, Path], tiny_st_model: Path, shared_home: Path, tmp_path: Path
) -> None:
    full = distill(config(corpus, tiny_st_model, tmp_path / "a", max_steps=14))
    token = CancelToken()

    def stop_at_6(p: object) -> None:
        if getattr(p, "metrics", {}).get("step") == 6:
            token.cancel()

    cfg_b = config(corpus, tiny_st_model, tmp_path / "b", max_steps=14)
    part = distill(cfg_b, on_progress=stop_at_6, cancel=token)
    assert part.cancelled and part.steps == 6
    assert (part.out / "modules.json").is_file()  # a usable model right away
    from xlsearch.engine.models.cards import read_card
    from xlsearch.engine.models.catalog import ModelInfo

    # … but an unfinished run, not a finished model (catalog and `models --use` skip it)
    assert read_card(part.out)["finished"] is False
    assert not ModelInfo(str(part.out), part.out, read_card(part.out)).finished
    assert read_card(full.out)["finished"] is True
    meta = json.loads((part.run_dir / "checkpoint" / "meta.json").read_text())
    assert meta["step"] == 6 and meta["config"]["max_steps"] == 14

    # an existing run is never silently overwritten; the message says which kind and the fix
    with pytest.raises(ConfigError, match="holds an unfinished run") as exc:
        distill(cfg_b)
    assert exc.value.hint == (
        f"continue it: xlsearch distill --resume --out {part.out}; or choose another --name"
    )
    with pytest.raises(ConfigError, match="a model named 'a' already exists") as exc:
        distill(config(corpus, tiny_st_model, tmp_path / "a", max_steps=14))
    assert "choose another --name" in (exc.value.hint or "")
    done = distill(DistillConfig(out=str(tmp_path / "b"), device="cpu"), resume=True)
    assert done.steps == 14 and not done.cancelled
    assert read_card(done.out)["finished"] is True
    a = _weights(full.run_dir / "checkpoint" / "model")
    b = _weights(done.run_dir / "checkpoint" / "model")
    assert a.keys() == b.keys() and len(a) == 5
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=0, atol=1e-6, err_msg=k)
    steps = [r["step"] for r in log_lines(done.run_dir) if "loss" in r]
    assert steps == list(range(1, 15))


def test_skipped_lines_are_told_before_training(
    corpus: dict[str, Path], tiny_st_model: Path, shared_home: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(corpus["de"].read_bytes() + b"no tab here\nGr\xfc\xdfe\tGreetings\n")
    events: list = []
    cfg = config(corpus, tiny_st_model, tmp_path / "s", train=[str(bad)], max_steps=2)
    distill(cfg, on_progress=events.append)
    notices = [(i, e.message) for i, e in enumerate(events) if e.stage == "notice"]
    assert [m for _, m in notices] == [
        f"{bad}: 2 of 242 lines skipped: {bad}:241: no TAB: expected sentence<TAB>translation"
        " (+1 more)"
    ]
    first_step = next(i for i, e in enumerate(events) if e.stage == "distill")
    assert notices[0][0] < first_step


def test_ema_tau_schedule_and_update() -> None:
    import torch

    assert ema_tau(0, 100, 0.99) == pytest.approx(0.99)
    assert ema_tau(50, 100, 0.99) == pytest.approx(0.995)
    assert ema_tau(100, 100, 0.99) == pytest.approx(1.0)
    teacher, student = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    xi = [p.detach().clone() for p in teacher.parameters()]
    theta = [p.detach().clone() for p in student.parameters()]
    ema_update(teacher, student, 0.9)
    for p, x, t in zip(teacher.parameters(), xi, theta, strict=True):
        torch.testing.assert_close(p.detach(), 0.9 * x + 0.1 * t)


def test_ema_teacher_run_and_static_refusal(
    corpus: dict[str, Path], tiny_st_model: Path, shared_home: Path, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="ema"):
        distill(config(corpus, tiny_st_model, tmp_path / "x", ema=True))
    first = distill(config(corpus, tiny_st_model, tmp_path / "s1", max_steps=6))
    res = distill(
        config(
            corpus,
            tiny_st_model,
            tmp_path / "e",
            student=f"checkpoint:{first.out}",
            ema=True,
            ema_tau_base=0.9,
            max_steps=6,
        )
    )
    steps = [r for r in log_lines(res.run_dir) if "loss" in r]
    assert len(steps) == 6 and all(r["loss_tgt"] > 0 for r in steps)
    assert json.loads((res.out / "xlsearch.json").read_text())["ema"] is True


def test_teacher_student_with_vocab_extension(
    corpus: dict[str, Path], tiny_st_model: Path, shared_home: Path, tmp_path: Path
) -> None:
    ja = write_pairs(tmp_path / "en-ja.tsv", [f"ねこ{w}ñ" for w in "あいうえおかきくけこ"], 80)
    cfg = config(
        corpus,
        tiny_st_model,
        tmp_path / "t",
        train=[str(corpus["de"]), str(ja)],
        student="teacher",
        extend_vocab=True,
        max_steps=4,
        batch_size=8,
    )
    events: list = []
    res = distill(cfg, on_progress=events.append)
    # on a CPU the user is told first that this student is meant for a GPU
    assert [e.message for e in events if e.stage == "notice"] == [
        "the teacher student on a CPU is a transformer fine-tuning: tens of pairs/s (the "
        "static student: thousands); it is meant for a GPU"
    ]
    card = json.loads((res.out / "xlsearch.json").read_text())
    info = card["student_info"]
    assert info["new_tokens"] > 0 and "ね" in info["examples"]
    from transformers import AutoTokenizer

    old = AutoTokenizer.from_pretrained(str(tiny_st_model))
    new = AutoTokenizer.from_pretrained(str(res.out))
    assert old.tokenize("the big dog sleeps") == new.tokenize("the big dog sleeps")
    assert "[UNK]" in old.tokenize("ねこ") and "[UNK]" not in new.tokenize("ねこ")
    from sentence_transformers import SentenceTransformer

    from xlsearch.engine import load_encoder

    st = SentenceTransformer(str(res.out), device="cpu").encode(["ねこ"], normalize_embeddings=True)
    np.testing.assert_allclose(st, load_encoder(res.out, device="cpu").encode(["ねこ"]), atol=1e-4)


def test_checkpoint_student_gets_projection(
    corpus: dict[str, Path],
    tiny_st_model: Path,
    tiny_static_model: Path,
    shared_home: Path,
    tmp_path: Path,
) -> None:
    cfg = config(
        corpus,
        tiny_st_model,
        tmp_path / "c",
        student=f"checkpoint:{tiny_static_model}",
        max_steps=3,
    )
    res = distill(cfg)
    from xlsearch.engine.models.trainable import load_model

    m = load_model(res.out)
    assert m.body.dim == 16 and m.dim == 32 and len(m.dense) == 1


def test_bootstrap_and_unknown_students_are_refused() -> None:
    from xlsearch.engine.distill.students import parse_student

    with pytest.raises(ConfigError, match="removed"):
        parse_student("bootstrap")
    with pytest.raises(ConfigError):
        parse_student("nonsense")
    assert parse_student("checkpoint:/x/y") == ("checkpoint", "/x/y")


def test_info_nce_masks_repeated_sources_and_ranks_pairs() -> None:
    import torch

    from xlsearch.engine.distill.train import info_nce

    a = torch.eye(3)
    # aligned rows: low loss; shuffled rows: high loss
    good = info_nce(a, a, ["x", "y", "z"], 20.0)
    bad = info_nce(a, a[[1, 2, 0]], ["x", "y", "z"], 20.0)
    assert good.item() < 1e-3 < 5.0 < bad.item()
    # rows 0 and 1 share a source: row 1's vector is no negative for row 0 (and vice versa)
    b = torch.stack([a[0], a[0], a[2]])
    masked = info_nce(b, b, ["x", "x", "z"], 20.0)
    unmasked = info_nce(b, b, ["x", "y", "z"], 20.0)
    assert masked.item() < 1e-3 and unmasked.item() > 0.4


def test_contrastive_term_is_logged_and_added(
    corpus: dict[str, Path], tiny_st_model: Path, shared_home: Path, tmp_path: Path
) -> None:
    cfg = config(corpus, tiny_st_model, tmp_path / "c", contrastive=0.5, max_steps=8)
    res = distill(cfg)
    steps = [r for r in log_lines(res.run_dir) if "loss" in r]
    assert len(steps) == 8 and all(r["loss_ctr"] > 0 for r in steps)
    r = steps[0]
    assert "loss_skd" not in r  # the similarity-structure term is opt-in (presets: 0)
    assert r["loss"] == pytest.approx(r["loss_src"] + r["loss_tgt"] + 0.5 * r["loss_ctr"])
    pure = distill(
        config(corpus, tiny_st_model, tmp_path / "p", contrastive=0.0, sim_kd=0.0, max_steps=2)
    )
    first = [r for r in log_lines(pure.run_dir) if "loss" in r][0]
    assert "loss_ctr" not in first and "loss_skd" not in first
    assert first["loss"] == pytest.approx(first["loss_src"] + first["loss_tgt"])
    with pytest.raises(ConfigError, match="contrastive"):
        distill(config(corpus, tiny_st_model, tmp_path / "d", contrastive=-1.0))
    assert not (tmp_path / "d.run").exists()  # refused before any data was read


def test_find_unknown_scans_every_language_beyond_the_limit(tiny_st_model: Path) -> None:
    from transformers import AutoTokenizer

    from xlsearch.engine.distill.students import find_unknown

    tok = AutoTokenizer.from_pretrained(str(tiny_st_model))
    # files come in order: many German-like lines first, the Japanese ones last
    texts = ["die katze schläft"] * 900 + ["ねこ"] * 100
    words, chars = find_unknown(tok, texts, limit=200)
    assert "ね" in chars and "こ" in chars  # sampled evenly, not cut after the first 200
    assert sum(chars.values()) < 100  # counts are per sample


def test_fit_steps_follows_the_pace() -> None:
    from xlsearch.engine.distill.train import _fit_steps

    # 100 steps took 50 s; 100 s of a 150 s budget left → 200 more steps
    assert _fit_steps(100, 100, 50.0, 150.0, 10_000) == 300
    assert _fit_steps(100, 100, 50.0, 150.0, 250) == 250  # never above the plan
    assert _fit_steps(100, 100, 200.0, 150.0, 10_000) == 101  # over budget: stop next step
    # a slow start (a GPU's first steps: 40 s for 10) is not the pace: 90 steps in 10 s are
    assert _fit_steps(100, 90, 50.0, 150.0, 10_000, paced_s=10.0) == 100 + int(100 / (10 / 90))


def test_time_limit_fits_the_schedule_and_ends_annealed(
    corpus: dict[str, Path], tiny_st_model: Path, shared_home: Path, tmp_path: Path
) -> None:
    # a plan far too long for a 2-second budget: the run ends on its own, annealed, saved
    cfg = config(corpus, tiny_st_model, tmp_path / "t", max_steps=100_000, time_limit_min=2 / 60)
    res = distill(cfg)
    assert not res.cancelled and not res.stopped_early and res.planned_steps == 100_000
    assert 20 <= res.steps == res.max_steps < 100_000
    lrs = [r["lr"] for r in log_lines(res.run_dir) if "lr" in r]
    assert lrs[-1] < 0.1 * max(lrs)  # the learning rate decayed to the fitted end
    assert (res.out / "xlsearch.json").is_file()
    assert json.loads((res.out / "xlsearch.json").read_text())["config"]["max_steps"] == res.steps


def test_distill_clean_notice_names_the_drops_and_the_report_lists_them(
    tiny_st_model: Path, tmp_path: Path
) -> None:
    from helpers.clean import word_corpus

    pairs = word_corpus()
    pairs[7] = (pairs[7][0], pairs[40][1])
    tsv = tmp_path / "train.tsv"
    tsv.write_text("".join(f"{s}\t{t}\n" for s, t in pairs), encoding="utf-8")
    dev = tmp_path / "dev.tsv"
    dev.write_text("The sun is shining.\tDie Sonne scheint.\n", encoding="utf-8")
    report = tmp_path / "dropped.tsv"
    cfg = DistillConfig(
        train=[str(tsv)], dev=str(dev), teacher=str(tiny_st_model), student="static",
        out=str(tmp_path / "s"), vocab_size=120, vocab_balance=0.0, batch_size=16,
        max_steps=2, eval_steps=0, ckpt_steps=0, device="cpu", clean_report=str(report),
    )  # fmt: skip
    events = []
    distill(cfg, on_progress=events.append)
    notes = [e.message for e in events if e.stage == "notice" and "--clean" in e.message]
    assert len(notes) == 1
    assert "--clean dropped 1 of 64 pairs (1 misaligned); e.g. " in notes[0]
    assert pairs[7][0][:20] in notes[0] and "does not translate the source" in notes[0]
    assert report.read_text(encoding="utf-8").count("\tmisaligned\t") == 1
