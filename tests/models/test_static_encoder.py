"""Static students in numpy: the same vectors as the torch path, loadable by
sentence-transformers, and no torch or transformers import in any command a user runs
with a static model active (each command in a fresh process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from xlsearch.engine.errors import ModelError

TEXTS = [
    "The cat sleeps on the mat.",
    "Die Katze schläft auf der Matte.",
    "Кошка спит.",
    "猫在睡觉。",
    "",  # an empty bag: a zero vector (or the head's bias), never NaN
    "   \t ",
    "hello " * 700,  # longer than the 512-token cap
    "😀 ☃ \u200b zero-width, emoji",
    "HELLO world, Good Morning!",
]
TRAIN = [
    f"{a} {b} sentence number {i}"
    for i, (a, b) in enumerate(
        zip(
            ["the cat sleeps", "der hund läuft", "le chat dort", "кошка спит"] * 60,
            ["on the mat", "im haus", "dans la maison", "дома"] * 60,
            strict=True,
        )
    )
]


def _torch_vectors(folder: Path, texts: list[str]) -> np.ndarray:
    from xlsearch.engine.models.encoder import Encoder
    from xlsearch.engine.models.trainable import load_model

    return Encoder(load_model(folder), path=folder, device="cpu").encode(texts)


def _perturbed_static(tmp_path: Path, head: str) -> Path:
    """A distiller-built static student (SentencePiece vocabulary) with a random head."""
    import torch

    from xlsearch.engine.distill.students import build_static

    model = build_static(TRAIN, tmp_path / "work", dim=24, vocab_size=120, head=head)
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=gen) * 0.5)
    return model.save(tmp_path / f"static-{head}", card={"teacher": "t", "languages": ["en"]})


@pytest.mark.parametrize("head", ["mlp", "linear", "none"])
def test_every_static_kind_the_distiller_makes_matches_the_torch_path(
    tmp_path: Path, head: str
) -> None:
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.models.static_encoder import StaticEncoder

    folder = _perturbed_static(tmp_path, head)
    enc = load_encoder(str(folder))
    assert isinstance(enc, StaticEncoder) and enc.kind == "static"
    got = enc.encode(TEXTS)
    want = _torch_vectors(folder, TEXTS)
    assert got.dtype == np.float32 and got.shape == want.shape == (len(TEXTS), 24)
    assert np.abs(got - want).max() < 1e-6
    assert np.isfinite(got).all()
    nonzero = np.linalg.norm(got, axis=1) > 0
    assert np.allclose(np.linalg.norm(got[nonzero], axis=1), 1.0, atol=1e-6)
    # batching changes nothing: one text at a time gives the same rows
    assert np.abs(enc.encode(TEXTS[:3], batch_size=1) - got[:3]).max() < 1e-6


@pytest.mark.parametrize(
    "activation",
    ["torch.nn.modules.activation.ReLU", "torch.nn.modules.activation.GELU"],
)
def test_other_dense_activations_match(tmp_path: Path, tiny_static_model: Path, activation) -> None:
    import torch

    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.models.trainable import Dense, load_model

    model = load_model(tiny_static_model)
    torch.manual_seed(5)
    model.dense.append(Dense(16, 8, activation=activation))
    folder = model.save(tmp_path / "act")
    got = load_encoder(str(folder)).encode(TEXTS)
    assert got.shape == (len(TEXTS), 8)
    assert np.abs(got - _torch_vectors(folder, TEXTS)).max() < 1e-6


def test_word_level_static_model_matches(tiny_static_model: Path) -> None:
    from xlsearch.engine.models.encoder import load_encoder

    texts = ["the dog sleeps", "der Hund schläft", "unknown words only", "猫 狗"]
    got = load_encoder(str(tiny_static_model)).encode(texts)
    assert np.abs(got - _torch_vectors(tiny_static_model, texts)).max() < 1e-6


def test_sentence_transformers_still_loads_the_folder(tmp_path: Path) -> None:
    st = pytest.importorskip("sentence_transformers")
    from xlsearch.engine.models.encoder import load_encoder

    folder = _perturbed_static(tmp_path, "mlp")
    texts = [t for t in TEXTS if t.strip() and len(t) < 500]  # no cap in sentence-transformers
    model = st.SentenceTransformer(str(folder), device="cpu")
    want = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert np.abs(load_encoder(str(folder)).encode(texts) - want).max() < 1e-5


def test_a_damaged_weights_file_is_a_one_line_model_error(tiny_static_model: Path) -> None:
    from xlsearch.engine.models.encoder import load_encoder

    weights = tiny_static_model / "0_StaticEmbedding" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:40])
    with pytest.raises(ModelError, match="model.safetensors"):
        load_encoder(str(tiny_static_model))


def test_the_embedding_table_is_mapped_not_read_and_gives_the_same_vectors(
    tiny_static_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lookup touches a few rows of the table: the file is memory-mapped (reading a 200 MB
    table cost 0.1 s a process); the vectors are those of safetensors' own reader (which
    still reads what cannot be mapped, and names a damaged file: the test above)."""
    from safetensors.numpy import load_file, save_file

    from xlsearch.engine.models import static_encoder
    from xlsearch.engine.models.encoder import load_encoder

    enc = load_encoder(str(tiny_static_model))
    assert isinstance(enc.table.base, np.memmap) or isinstance(enc.table, np.memmap)
    mapped = enc.encode(TEXTS)
    monkeypatch.setattr(static_encoder, "_mapped", lambda path: None)
    assert np.array_equal(load_encoder(str(tiny_static_model)).encode(TEXTS), mapped)
    monkeypatch.undo()
    weights = tiny_static_model / "0_StaticEmbedding" / "model.safetensors"
    table = load_file(str(weights))["embedding.weight"]
    assert static_encoder._mapped(weights) is not None
    half = {"embedding.weight": table.astype(np.float16)}
    save_file(half, str(weights))
    enc16 = load_encoder(str(tiny_static_model))  # F16 maps too, then widens to float32
    assert enc16.table.dtype == np.float32
    assert np.abs(enc16.encode(TEXTS) - mapped).max() < 1e-2


def test_an_explicit_gpu_device_keeps_the_torch_path(tiny_static_model: Path) -> None:
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.models.static_encoder import StaticEncoder

    assert isinstance(load_encoder(str(tiny_static_model), device="cpu"), StaticEncoder)
    with pytest.raises(ConfigError, match="cuda:99"):  # the torch path checks the device
        load_encoder(str(tiny_static_model), device="cuda:99")


# -- no torch in a fresh process -------------------------------------------------------------
RUN = """
import json, sys
sys.argv = ["xlsearch"] + json.loads(sys.argv[1])
from xlsearch.cli import main
rc = main(sys.argv[1:])
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "transformers",
               "sentence_transformers", "sklearn", "pandas"})
print("RESULT", json.dumps({"rc": rc, "heavy": heavy}))
"""

APP = """
import asyncio, json, sys
from xlsearch.service.local import LocalEngine
from xlsearch.tui.app import make_app

async def main():
    app = make_app(engine=LocalEngine(), theme="textual-dark")
    async with app.run_test(size=(120, 35)) as pilot:
        screen = app.screen
        while not screen._ready:
            await pilot.pause(0.01)
        screen.query_one("#query").value = "the dog sleeps"
        await pilot.press("enter")
        for _ in range(3000):
            if screen.searches:
                break
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        return screen.searches

n = asyncio.run(main())
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "transformers",
               "sentence_transformers", "sklearn", "pandas"})
print("RESULT", json.dumps({"rc": 0 if n else 1, "heavy": heavy}))
"""


def _run(code: str, args: list[str], env: dict[str, str], cwd: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(args)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
    )
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line, f"{args}: no result\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return json.loads(line[7:])


@pytest.mark.slow
def test_no_command_imports_torch_with_a_static_model_active(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    from helpers.memory import UNITS, write_tmx

    home = tmp_path / "home"
    env = {**os.environ, "XLSEARCH_HOME": str(home)}
    env.pop("XLSEARCH_ACTIVE_MODEL", None)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2])] + sys.path)
    write_tmx(tmp_path / "tm.tmx", UNITS)
    (tmp_path / "a.txt").write_text("the dog sleeps. the cat runs.\n\na red house.\n")
    (tmp_path / "b.txt").write_text("der hund schläft. die katze läuft.\n\ndas rote haus.\n")
    (tmp_path / "job.txt").write_text("the dog sleeps\nthe big cat runs\n")
    setup = [
        ["models", "--use", str(tiny_static_model)],
        ["import", "tm.tmx", "--collection", "tm"],
    ]
    for args in setup:
        assert _run(RUN, args, env, tmp_path)["rc"] == 0, args
    commands = [
        ["index"],
        ["lookup", "the dog sleeps", "--src", "en", "--tgt", "de"],
        ["lookup", "the dog sleeps", "--src", "en", "--tgt", "de", "--fuzzy-only"],
        ["search", "sleeping dog", "--lang", "de"],
        ["sts", "the dog sleeps", "a dog is sleeping"],
        ["analyze", "job.txt", "--src", "en", "--tgt", "de"],
        ["align", "a.txt", "b.txt", "--src-lang", "en", "--tgt-lang", "de", "-o", "al.tsv"],
        ["mine", "--src", "en", "--tgt", "de"],
    ]
    for args in commands:
        got = _run(RUN, args, env, tmp_path)
        assert got == {"rc": 0, "heavy": []}, args
    assert _run(APP, [], env, tmp_path) == {"rc": 0, "heavy": []}


@pytest.mark.slow
def test_the_transformer_path_still_loads_torch(tmp_path: Path, tiny_st_model: Path) -> None:
    """The check above can fail: with a transformer active, the same probe sees torch."""
    env = {**os.environ, "XLSEARCH_HOME": str(tmp_path / "home")}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2])] + sys.path)
    (tmp_path / "a.txt").write_text("the dog sleeps.\n")
    (tmp_path / "b.txt").write_text("der hund schläft.\n")
    args = ["align", "a.txt", "b.txt", "--src-lang", "en", "--tgt-lang", "de", "-o", "al.tsv"]
    got = _run(RUN, [*args, "--model", str(tiny_st_model)], env, tmp_path)
    assert got["rc"] == 0 and "torch" in got["heavy"]


def test_bag_sums_add_each_texts_tokens_in_order_like_add_at() -> None:
    from xlsearch.engine.models.static_encoder import _bag_sums

    rng = np.random.default_rng(0)
    lengths = np.array([3, 0, 7, 1, 0, 12, 3])
    rows = rng.standard_normal((int(lengths.sum()), 5)).astype(np.float32) * 1e3
    want = np.zeros((len(lengths), 5), dtype=np.float32)
    np.add.at(want, np.repeat(np.arange(len(lengths)), lengths), rows)
    got = _bag_sums(rows, lengths, np.zeros_like(want))
    assert np.array_equal(got, want)  # bit for bit: the same additions in the same order
    assert not got[[1, 4]].any()


def test_whole_word_prefixes_embed_as_the_prefix_written_alone(tiny_static_model: Path) -> None:
    from xlsearch.engine.models.static_encoder import StaticEncoder

    enc = StaticEncoder(tiny_static_model)
    texts = ["open the file now please", "save the new file", "close", "open file"]
    cuts = [len("open the"), len("save the"), 0, len("open")]
    full, part = enc.encode_prefixes(texts, cuts)
    assert np.allclose(full, enc.encode(texts), atol=1e-6)
    assert np.allclose(part[[0, 1, 3]], enc.encode(["open the", "save the", "open"]), atol=1e-6)
    assert not part[2].any()
