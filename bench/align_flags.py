"""How much the aligner's low-confidence flags are worth reading: Bleualign's de–fr dev
document (in-sample: the defaults were calibrated on it) and held-out synthetic de–fr news
documents.

    python bench/align_flags.py --model PATH [--model bundled:teacher] [--cache DIR]

Precision: share of flagged beads that are wrong; recall: share of wrong beads that are
flagged; a predicted bead is wrong when it is not exactly a gold bead (strict, Vecalign's
scoring). Per model:

* **Bleualign dev** (468 + 554 sentences, gold beads): the default flags, each of their
  parts alone (``AlignConfig.flag_alternative``: another pairing nearly as cheap;
  ``flag_anchors``: a number or name across a bead boundary; ``flag_gain``: a swallowed
  edge sentence; each with the cost flag, a bead costing more than 80 % of random pairs,
  which is always on), the flags before this calibration, and a grid of settings
  ``(flag_alternative, flag_gain, flag_anchors)``;
* **two-fold** on the dev document: the grid point with the best precision that still flags
  half of one half's wrong beads, measured on the other half, both ways;
* **held-out synthetic documents**: WMT newstest German and French sentences that
  translate the same English sentence (``train/en-de.tsv.gz`` joined with
  ``train/en-fr.tsv.gz``, in document order), cut into documents of ``SIZE`` German
  sentences, with edits a translator makes: two sentences joined on either side (2–1,
  1–2), a clause moved into the previous sentence (a 2–2 bead whose boundary is not the
  original one), a sentence left out, an unrelated sentence added. Nothing here was used
  to choose the defaults;
* **shuffled synthetic document** (``bench/align.py``'s ``scale`` pairs: ``SHUFFLED``
  random en–de pairs in random order, 3 % deleted, 3 % unrelated sentences inserted, 5 %
  joined into 2–1 beads): also held out.

Embeddings are cached per model and text (``--cache``), as in ``bench/align_tune.py``.
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir, machine  # noqa: E402
from align_tune import sentence_vectors  # noqa: E402

OFF = -np.inf  # flag_gain that never flags
PARTS: list[tuple[str, dict[str, Any]]] = [
    ("defaults", {}),
    ("… alternative margins", {"flag_anchors": False, "flag_gain": OFF}),
    ("… crossing anchors", {"flag_alternative": None, "flag_gain": OFF}),
    ("… swallowed edge sentences", {"flag_alternative": None, "flag_anchors": False}),
    (
        "before (near-tie 0.1, floor 0.3, gain 0)",
        {"flag_alternative": None, "flag_anchors": False, "flag_gain": 0.0, "flag_margin": 0.1},
    ),
]
ALTERNATIVES = (0.05, 0.075, 0.1, 0.125, 0.15, 0.2)
GAINS = (-0.1, OFF)
SIZE, DOCS = 400, 3
"""German sentences per synthetic document, and how many documents."""
SHUFFLED = 3000
"""Source sentences of the shuffled synthetic document."""


def grid() -> dict[tuple, dict[str, Any]]:
    """``(flag_alternative, flag_gain, flag_anchors)`` → ``AlignConfig`` settings."""
    return {
        (t, g, anchors): {"flag_alternative": t, "flag_gain": g, "flag_anchors": anchors}
        for t in ALTERNATIVES
        for g in GAINS
        for anchors in (True, False)
    }


def flags(
    spec: str, src: list[str], tgt: list[str], gold: set, cache: Path, settings: dict[str, dict]
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Which beads are wrong, and which each setting flags (the search is the same)."""
    from xlsearch.engine.align import AlignConfig
    from xlsearch.engine.align.core import align_vectors
    from xlsearch.engine.align.cost import run_vectors

    v = sentence_vectors(spec, [*src, *tgt], cache)
    out, wrong = {}, None
    for name, kw in settings.items():
        config = AlignConfig(**kw)
        beads = align_vectors(
            run_vectors(v[: len(src)], config.max_side),
            run_vectors(v[len(src) :], config.max_side),
            config,
            src_lengths=[len(s) for s in src],
            tgt_lengths=[len(t) for t in tgt],
            src_texts=src,
            tgt_texts=tgt,
        )
        found = np.array([(b.src, b.tgt) not in gold for b in beads])
        assert wrong is None or (found == wrong).all(), "flag settings changed the beads"
        wrong = found
        out[name] = np.array([b.flagged for b in beads])
    assert wrong is not None
    return wrong, out


def pr(flag: np.ndarray, wrong: np.ndarray) -> tuple[int, float, float]:
    hit = int((flag & wrong).sum())
    return int(flag.sum()), hit / max(int(flag.sum()), 1), hit / max(int(wrong.sum()), 1)


def best_setting(variants: dict, wrong: np.ndarray, on: np.ndarray) -> Any:
    """The setting with the best precision that flags ≥ half the wrong beads among ``on``
    (the most recall when none does)."""

    def score(key: Any) -> tuple:
        _, p, r = pr(variants[key][on], wrong[on])
        return (r >= 0.5, p if r >= 0.5 else r)

    return max(variants, key=score)


def two_fold(variants: dict, wrong: np.ndarray) -> tuple[int, float, float, list]:
    n = len(wrong)
    halves = [np.arange(n) < n // 2, np.arange(n) >= n // 2]
    flag = np.zeros(n, bool)
    chosen = []
    for fit_on, apply_to in (halves, halves[::-1]):
        key = best_setting(variants, wrong, fit_on)
        chosen.append(key)
        flag[apply_to] = variants[key][apply_to]
    return (*pr(flag, wrong), chosen)


def news_triples() -> list[tuple[str, str]]:
    """(German, French) sentences translating the same English one, in the German file's
    (document) order."""

    def read(lang: str) -> list[tuple[str, str]]:
        rows = []
        with gzip.open(data_dir() / "train" / f"en-{lang}.tsv.gz", "rt", encoding="utf-8") as fh:
            for line in fh:
                cells = line.rstrip("\n").split("\t")
                if len(cells) >= 2 and cells[0].strip() and cells[1].strip():
                    rows.append((cells[0], " ".join(cells[1].split())))
        return rows

    french = dict(reversed(read("fr")))  # the first French translation of each English one
    return [(de, french[en]) for en, de in read("de") if en in french]


def synthetic_documents(
    seed: int = 0,
) -> list[tuple[list[str], list[str], set[tuple[tuple, tuple]]]]:
    """``DOCS`` document pairs with a translator's edits, and their gold beads."""
    pairs = news_triples()
    rng = random.Random(seed)
    docs = []
    for d in range(DOCS):
        start = (d + 1) * len(pairs) // (DOCS + 1)
        docs.append(translated(pairs[start : start + SIZE], pairs, rng))
    return docs


def translated(
    body: list[tuple[str, str]], pairs: list[tuple[str, str]], rng: random.Random
) -> tuple[list[str], list[str], set[tuple[tuple, tuple]]]:
    """One document pair from consecutive (German, French) sentences with a translator's
    edits, and its gold beads."""
    src: list[str] = []
    tgt: list[str] = []
    gold: set[tuple[tuple, tuple]] = set()

    def bead(s: list[str], t: list[str]) -> None:
        gold.add(
            (tuple(range(len(src), len(src) + len(s))), tuple(range(len(tgt), len(tgt) + len(t))))
        )
        src.extend(s)
        tgt.extend(t)

    k = 0
    while k < len(body):
        (de, fr), r = body[k], rng.random()
        nxt = body[k + 1] if k + 1 < len(body) else None
        comma = nxt[1].find(", ") if nxt else -1
        if r < 0.06 and nxt:  # two French sentences joined into one
            bead([de, nxt[0]], [f"{fr} {nxt[1]}"])
            k += 2
        elif 0.06 <= r < 0.12 and nxt:  # two German sentences joined into one
            bead([f"{de} {nxt[0]}"], [fr, nxt[1]])
            k += 2
        elif 0.12 <= r < 0.16 and nxt and comma > 0:
            # the next sentence's first clause moved to the end of this one
            clause, rest = nxt[1][:comma], nxt[1][comma + 2 :]
            bead([de, nxt[0]], [f"{fr.rstrip('.!?')}, {clause}.", rest[:1].upper() + rest[1:]])
            k += 2
        elif 0.16 <= r < 0.18:  # left out of the translation
            bead([de], [])
            k += 1
        elif 0.18 <= r < 0.20:  # added by the translator: a sentence from elsewhere
            bead([], [pairs[rng.randrange(len(pairs))][1]])
        else:
            bead([de], [fr])
            k += 1
    return src, tgt, gold


def main() -> None:
    from xlsearch.engine.align import read_beads
    from xlsearch.engine.importers.document import read_document

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", action="append", required=True, help="model (repeatable)")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "align-tune")
    args = p.parse_args()
    folder = data_dir() / "dev" / "bleualign"
    src = read_document(folder / "dev.de", "de", presplit=True).sentences
    tgt = read_document(folder / "dev.fr", "fr", presplit=True).sentences
    gold = {(b.src, b.tgt) for b in read_beads(folder / "dev.defr")}
    settings = {name: kw for name, kw in PARTS} | {str(k): kw for k, kw in grid().items()}
    docs = synthetic_documents()
    print(f"Bleualign dev de-fr and {DOCS} synthetic de-fr news documents; {machine()}\n")
    print("| model | document | rule | flagged | precision | recall |")
    print("|---|---|---|---:|---:|---:|")
    for spec in args.model:
        name = Path(spec).name
        wrong, got = flags(spec, src, tgt, gold, args.cache, settings)
        print(f"| {name} | dev | all beads ({int(wrong.sum())} wrong) | {len(wrong)} | "
              f"{wrong.mean():.2f} | 1.00 |")  # fmt: skip
        for rule, _ in PARTS:
            print(f"| {name} | dev | {rule} | " + " | ".join(_fmt(pr(got[rule], wrong))) + " |")
        variants = {k: got[str(k)] for k in grid()}
        for key, flag in variants.items():
            print(f"| {name} | dev | settings {key} | " + " | ".join(_fmt(pr(flag, wrong))) + " |")
        n, prec, rec, chosen = two_fold(variants, wrong)
        print(f"| {name} | dev, two-fold | chosen {chosen} | {n} | {prec:.2f} | {rec:.2f} |")
        from align import synthetic

        shuffled = synthetic(SHUFFLED, seed=1)
        for label, sets in (
            ("synthetic", docs),
            ("shuffled", [(shuffled[0], shuffled[1], set(shuffled[2]))]),
        ):
            held: dict[str, list] = {rule: [] for rule, _ in PARTS}
            all_wrong = []
            for s, t, g in sets:
                w, f = flags(spec, s, t, g, args.cache, dict(PARTS))
                all_wrong.append(w)
                for rule in held:
                    held[rule].append(f[rule])
            w = np.concatenate(all_wrong)
            print(f"| {name} | {label} | all beads ({int(w.sum())} wrong) | {len(w)} | "
                  f"{w.mean():.2f} | 1.00 |")  # fmt: skip
            for rule, flag in held.items():
                row = " | ".join(_fmt(pr(np.concatenate(flag), w)))
                print(f"| {name} | {label} | {rule} | {row} |")


def _fmt(result: tuple[int, float, float]) -> list[str]:
    n, p, r = result
    return [str(n), f"{p:.2f}", f"{r:.2f}"]


if __name__ == "__main__":
    main()
