"""Aligner cost variants on Bleualign's de–fr dev document, from cached sentence embeddings.

    python bench/align_tune.py --model PATH [--model bundled:teacher] [--cache DIR]

Each model's sentence embeddings are computed once and kept in ``--cache`` (default: a
folder under the system temp dir), so each variant below takes about a second: it reruns
only the search (``align_vectors``) with one ``AlignConfig`` change and prints strict/lax F1.
Use it to check a cost idea on more than one model before changing a default, and keep an
eye on over-fitting one document (``bench/align.py scale`` gives the synthetic F1).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir  # noqa: E402

VARIANTS: list[tuple[str, dict]] = [
    ("default", {}),
    ("Vecalign a*b scaling", {"size_scale": "product"}),
    ("no size scaling", {"size_scale": "none"}),
    ("length weight 0", {"length_weight": 0.0}),
    ("length weight 0.1", {"length_weight": 0.1}),
    ("deletion quantile 0.02", {"del_quantile": 0.02}),
    ("deletion quantile 0.2", {"del_quantile": 0.2}),
    ("size penalty 0.1", {"size_penalty": 0.1}),
    ("short sentences cheap to drop (20 chars)", {"short_chars": 20}),
    ("beads up to 5 a side, 6 in all", {"max_side": 5, "max_total": 6}),
    ("no numbers (number_weight 0)", {"number_weight": 0.0}),
    ("number_weight 0.05", {"number_weight": 0.05}),
    ("number_weight 0.3", {"number_weight": 0.3}),
    ("linear gaps (gap_extend 1.0)", {"gap_extend": 1.0}),
    ("gap_extend 0.85", {"gap_extend": 0.85}),
    ("gap_extend 0.6", {"gap_extend": 0.6}),
    ("gap_extend 0.5", {"gap_extend": 0.5}),
    ("gap_extend 0.4", {"gap_extend": 0.4}),
]


def sentence_vectors(spec: str, sentences: list[str], cache: Path) -> np.ndarray:
    """The model's embeddings of ``sentences``, cached by model and text."""
    from xlsearch.engine.models.encoder import load_encoder

    key = hashlib.blake2b("\n".join([spec, *sentences]).encode(), digest_size=10).hexdigest()
    path = cache / f"{key}.npy"
    if path.is_file():
        return np.load(path)
    vecs = load_encoder(spec, threads=1).encode(sentences)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vecs)
    return vecs


def main() -> None:
    from xlsearch.engine.align import AlignConfig, read_beads, score_beads
    from xlsearch.engine.align.core import align_vectors
    from xlsearch.engine.align.cost import run_vectors
    from xlsearch.engine.importers.document import read_document

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", required=True, help="model (repeatable)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "align-tune")
    args = parser.parse_args()
    folder = data_dir() / "dev" / "bleualign"
    src = read_document(folder / "dev.de", "de", presplit=True)
    tgt = read_document(folder / "dev.fr", "fr", presplit=True)
    gold = read_beads(folder / "dev.defr")
    lengths = [len(s) for s in src.sentences], [len(t) for t in tgt.sentences]
    vecs = {
        spec: sentence_vectors(spec, [*src.sentences, *tgt.sentences], args.cache)
        for spec in args.model
    }
    print("| variant | " + " | ".join(f"{s} strict / lax F1" for s in args.model) + " |")
    print("|---|" + "---|" * len(args.model))
    for name, change in VARIANTS:
        config = AlignConfig(**change)
        cells = []
        for spec in args.model:
            v = vecs[spec]
            side = config.max_side
            beads = align_vectors(
                run_vectors(v[: len(src)], side),
                run_vectors(v[len(src) :], side),
                config,
                src_lengths=lengths[0],
                tgt_lengths=lengths[1],
                src_texts=src.sentences,
                tgt_texts=tgt.sentences,
            )
            s = score_beads(gold, beads)
            cells.append(f"{s['strict_f1']:.3f} / {s['lax_f1']:.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
