"""Quality harness: Tatoeba, STSb (en, multi-MT mono + cross-lingual), bias, BUCC-style F1.

Usage: python bench/quality.py [--models bundled:teacher models/student …] [--langs …]
       [--int8] [--out table.md] [--json DIR] [--save]
Data: $XLSEARCH_BENCH_DATA (default ../shared/data, relative to the repo), its dev/ folder.
Prints one markdown block: a summary (models side by side) and per-benchmark tables.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from xlsearch.engine.evaluation import readers as R  # noqa: E402
from xlsearch.engine.evaluation.report import Report, fmt  # noqa: E402
from xlsearch.engine.evaluation.suite import run_suite, save_results  # noqa: E402

TRAINED = "ara ces deu spa fra isl ita jpn kor nld pol por rus tur cmn".split()
"""The 15 languages of ../shared/data/train (ISO 639-3)."""
UNTRAINED = "afr dan swe ukr hin vie".split()
"""Not in the training data: shows transfer."""
MT_LANGS = "de es fr it ja nl pl pt ru zh".split()


def data_dir() -> Path:
    path = Path(os.environ.get("XLSEARCH_BENCH_DATA", "../shared/data"))
    if not path.is_absolute():
        path = (REPO / path).resolve()
    if not (path / "dev").is_dir():
        raise SystemExit(f"benchmark data not found at {path}/dev (set XLSEARCH_BENCH_DATA)")
    return path


def sts_sets(dev: Path, split: str) -> list[R.StsSet]:
    """English STSb (original layout) + stsb-multi-mt en and the 10 MT languages."""
    sets = [R.read_stsb(dev / "stsbenchmark" / f"sts-{split}.csv", name=f"stsbenchmark-{split}")]
    sets[0].lang1 = sets[0].lang2 = "en"
    for lang in ["en", *MT_LANGS]:
        sets.append(R.read_stsb_multi_mt(dev / "stsb-multi-mt" / f"stsb-{lang}-{split}.csv"))
    return sets


def summary_rows(rep: Report, langs: list[str]) -> dict[str, float | None]:
    """The headline figures of one report."""
    out: dict[str, float | None] = {}
    tat = {lab: vals[2] for lab, vals in rep.table("tatoeba").rows} if langs else {}
    for label, group in (("trained", TRAINED), ("untrained", UNTRAINED)):
        vals = [tat[c] for c in group if c in tat]
        out[f"Tatoeba mean acc, {label} langs ({len(vals)})"] = _mean(vals)
    sts = {lab: vals[0] for lab, vals in rep.table("sts").rows}
    out["STSb en (original), Spearman"] = next(
        (v for k, v in sts.items() if k.startswith("stsbenchmark-")), None
    )
    mono = [v for k, v in sts.items() if k.startswith("stsb-") and k[5:7] in MT_LANGS]
    out[f"STSb-multi-MT mono, mean Spearman ({len(mono)})"] = _mean(mono)
    cross = [v for k, v in sts.items() if k.startswith("en-")]
    out[f"STSb-multi-MT en×xx, mean Spearman ({len(cross)})"] = _mean(cross)
    bias = rep.table("bias").rows[0][1]
    out["Language bias: pooled Spearman"] = bias[0]
    out["Language bias: mean per set"] = bias[1]
    out["Language bias: difference"] = bias[2]
    if any(t.key == "bucc" for t in rep.tables):
        out["BUCC-style F1, mean over langs"] = _mean([v[0] for _, v in rep.table("bucc").rows])
    return out


def _get(rep: Report, key: str, label: str, column: str) -> float | None:
    try:
        return rep.table(key).value(label, column)
    except (KeyError, ValueError):
        return None


def _name(spec: str) -> str:
    return "teacher" if spec == "bundled:teacher" else Path(spec).name


def _mean(vals: list[float | None]) -> float | None:
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


def md_table(header: list[str], rows: list[tuple[str, list[float | None]]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    lines += [f"| {lab} | " + " | ".join(fmt(v) for v in vals) + " |" for lab, vals in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="*", default=["bundled:teacher"])
    ap.add_argument("--langs", nargs="+", default=TRAINED + UNTRAINED, help="ISO 639-3 codes")
    ap.add_argument("--split", default="test", choices=["dev", "test"], help="STS split")
    ap.add_argument("--no-bucc", action="store_true", help="skip the BUCC-style mining task")
    ap.add_argument("--int8", action="store_true", help="int8 dynamic quantisation (CPU)")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--out", help="also write the markdown here")
    ap.add_argument("--json", help="write one <model>.json report per model into this folder")
    ap.add_argument("--save", action="store_true", help="store results in model cards")
    ap.add_argument("--progress", action="store_true", help="progress bar on stderr")
    ap.add_argument(
        "--reuse", nargs="+", default=[], metavar="JSON",
        help="add earlier --json reports (e.g. the teacher's) as columns instead of re-running",
    )  # fmt: skip
    args = ap.parse_args(argv)

    dev = data_dir() / "dev"
    reports: list[Report] = []
    seconds: list[float] = []
    names: list[str] = []
    for path in args.reuse:
        reports.append(Report.from_dict(json.loads(Path(path).read_text(encoding="utf-8"))))
        seconds.append(float(reports[-1].meta.get("seconds", 0.0)))
        names.append(_name(reports[-1].model))
    for spec in args.models:
        t0 = time.monotonic()
        bar = None
        if args.progress:
            from xlsearch.cli import ProgressBar

            bar = ProgressBar()
        rep = run_suite(
            spec,
            tatoeba_dir=dev / "tatoeba",
            langs=args.langs,
            sts_sets=sts_sets(dev, args.split),
            sts_cross=True,
            bias=True,
            bucc_synthetic=not args.no_bucc,
            device=args.device,
            quantize=args.int8,
            batch_size=args.batch_size,
            on_progress=bar,
        )
        if bar is not None:
            bar.close()
        seconds.append(time.monotonic() - t0)
        reports.append(rep)
        names.append(_name(spec))
        print(f"{spec}: {seconds[-1]:.0f} s", file=sys.stderr)
        if args.json:
            Path(args.json).mkdir(parents=True, exist_ok=True)
            (Path(args.json) / f"{_name(spec)}.json").write_text(rep.to_json(), encoding="utf-8")
        if args.save:
            save_results(rep, spec)

    summaries = [summary_rows(r, args.langs) for r in reports]
    out = [
        f"`python bench/quality.py --models {' '.join(args.models)}"
        + (" --int8" if args.int8 else "")
        + (f" --reuse {' '.join(args.reuse)}" if args.reuse else "")
        + f"` — {platform.machine()}, {os.cpu_count()} cores, "
        + f"{'int8' if args.int8 else 'fp32'}, {time.strftime('%Y-%m-%d')}; "
        + "seconds per model: "
        + ", ".join(f"{n} {s:.0f}" for n, s in zip(names, seconds, strict=True)),
        "",
        "**Summary** (accuracy %, Spearman ×100; STSb-multi-MT is machine-translated; "
        "bias = mean per set − pooled, over the multi-MT family; BUCC-style = Tatoeba pairs "
        "hidden among unrelated sentences, margin k=4, threshold tuned on the train half)",
        "",
        md_table(
            ["", *names],
            [(k, [s.get(k) for s in summaries]) for k in summaries[0]],
        ),
        "",
        "**Tatoeba accuracy (%, mean of xx→en and en→xx)**; * = not in the training data",
        "",
    ]
    tat_rows = []
    for code in args.langs:
        label = f"{code} ({R.to_iso1(code)})" + ("*" if code not in TRAINED else "")
        tat_rows.append((label, [_get(r, "tatoeba", code, "mean") for r in reports]))
    out += [md_table(["lang", *names], tat_rows), ""]
    out += ["**STS Spearman ×100** (cosine vs gold)", ""]
    labels = [lab for lab, _ in reports[0].table("sts").rows]
    rows = [(lab, [_get(r, "sts", lab, "spearman") for r in reports]) for lab in labels]
    out += [md_table(["set", *names], rows), ""]
    if not args.no_bucc:
        out += ["**BUCC-style mining F1** (synthetic, from Tatoeba)", ""]
        rows = [
            (lab, [_get(r, "bucc", lab, "F1") for r in reports])
            for lab, _ in reports[0].table("bucc").rows
        ]
        out += [md_table(["pair", *names], rows), ""]  # fmt: skip
    text = "\n".join(out)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
