"""``xlsearch eval``: run the evaluation suite on a model, or compare models side by side."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xlsearch.service.types import Benchmarks


def register(sub: Any) -> None:
    """Add the ``eval`` command."""
    p = sub.add_parser(
        "eval",
        help="evaluate a model (Tatoeba, STS, STS 2017, BUCC mining, MSE, language bias)",
        description="Evaluate MODEL (a folder, a name under ./models, or bundled:teacher) on the "
        "given benchmarks, print a table, and store the figures in the model's card "
        "(the bundled teacher's go to the xlsearch data folder). With --compare, show "
        "models side by side: from their stored results, or by running the given benchmarks.",
    )
    p.add_argument("model", nargs="?", help="model to evaluate (default: the active model)")
    p.add_argument("--compare", nargs="+", metavar="MODEL", help="show these models side by side")
    g = p.add_argument_group("benchmarks")
    g.add_argument("--tatoeba", metavar="DIR", help="folder of tatoeba.xxx-eng.{xxx,eng} files")
    g.add_argument("--langs", nargs="+", metavar="LANG", help="Tatoeba languages (deu or de)")
    g.add_argument("--margin", action="store_true", help="Tatoeba by ratio margin (k=4)")
    g.add_argument(
        "--sts", nargs="+", metavar="FILE", default=[],
        help="STS files: s1<TAB>s2<TAB>score, STS-benchmark layout, or stsb-multi-mt CSV",
    )  # fmt: skip
    g.add_argument("--sts-cross", action="store_true", help="add en×xx pairs of aligned STS files")
    g.add_argument("--sts17", metavar="DIR", help="SemEval STS 2017 folder (STS.input/gs.*.txt)")
    g.add_argument("--bias", action="store_true", help="language bias over the STS sets")
    g.add_argument("--bucc", metavar="DIR", help="BUCC folder (L1-L2.{training,test}.*)")
    g.add_argument(
        "--bucc-synthetic", action="store_true",
        help="BUCC-style mining built from the Tatoeba pairs (needs --tatoeba)",
    )  # fmt: skip
    g.add_argument("--mse", metavar="TSV", help="English<TAB>translation file: MSE to teacher")
    g.add_argument("--teacher", default="bundled:teacher", help="teacher for --mse")
    g.add_argument(
        "--calibrate-sts", metavar="FILE",
        help="fit the model's 0-5 STS score curve on this STS file (STS-benchmark train) and "
        "store it in its card: used by `xlsearch sts` and the Compare screen",
    )  # fmt: skip
    from xlsearch.commands.fill_calibration import add_arguments

    add_arguments(g)
    o = p.add_argument_group("output and running")
    o.add_argument("--json", metavar="OUT", help="write the results as JSON (figures as printed)")
    o.add_argument("--markdown", action="store_true", help="print markdown tables")
    o.add_argument("--no-save", action="store_true", help="do not store results in the card")
    o.add_argument("--int8", action="store_true", help="int8 dynamic quantisation (CPU)")
    o.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N, mps")
    o.add_argument("--batch-size", type=int, default=32)
    p.set_defaults(func=cmd_eval)


def _benchmarks(args: argparse.Namespace) -> Benchmarks:
    return {
        "tatoeba_dir": args.tatoeba,
        "langs": args.langs,
        "margin": args.margin,
        "sts_files": args.sts,
        "sts_cross": args.sts_cross,
        "sts17_dir": args.sts17,
        "bias": args.bias,
        "bucc_dir": args.bucc,
        "bucc_synthetic": args.bucc_synthetic,
        "mse_file": args.mse,
        "teacher": args.teacher,
        "device": args.device,
        "quantize": args.int8,
        "batch_size": args.batch_size,
    }


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate one model, or compare several."""
    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.engine.errors import ConfigError
    from xlsearch.service.local import LocalEngine

    bench = _benchmarks(args)
    settings = ("teacher", "margin", "sts_cross", "langs", "device", "quantize", "batch_size")
    wanted = any(v for k, v in bench.items() if k not in settings)
    engine = LocalEngine()

    if args.compare:
        models = ([args.model] if args.model else []) + list(args.compare)
        reports = None
        if wanted:
            reports = []
            for spec in models:
                bar = ProgressBar()
                try:
                    reports.append(engine.run_benchmarks(spec, bar, **bench))
                finally:
                    bar.close()
                if not args.no_save:
                    engine.save_benchmarks(reports[-1], spec)
        table = engine.compare_models(models, reports)
        print(table.to_markdown() if args.markdown else table.to_text())
        if args.json:
            _write_json(args.json, _compare_json(table, models))
        return 0

    if args.calibrate_pairs and not args.calibrate:
        raise ConfigError("--calibrate-pairs goes with --calibrate")
    if args.calibrate_sts or args.calibrate:
        if args.calibrate_sts:
            _calibrate(args)
        if args.calibrate:
            from xlsearch.commands import fill_calibration

            fill_calibration.run(args)
        if not wanted:
            return 0
    if not wanted:
        raise ConfigError(
            "nothing to evaluate",
            hint="give benchmarks (--tatoeba DIR, --sts FILE, --sts17 DIR, --bucc DIR, --mse TSV) "
            "or --compare A B …",
        )
    spec = args.model or engine.active_model()
    bar = ProgressBar()
    try:
        report = engine.run_benchmarks(spec, bar, **bench)
    finally:
        bar.close()
    print(report.to_markdown() if args.markdown else report.to_text())
    if args.json:
        _write_json(args.json, report.to_json())
    if not args.no_save:
        where = engine.save_benchmarks(report, spec)
        print(f"results stored in {where}", file=sys.stderr)
    return 0


def _calibrate(args: argparse.Namespace) -> None:
    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.service.local import LocalEngine

    engine = LocalEngine(
        model=args.model, encoder_options={"device": args.device, "batch_size": args.batch_size}
    )
    engine.encoder()
    bar = ProgressBar()
    try:
        cal = engine.calibrate_sts(args.calibrate_sts, save=not args.no_save, on_progress=bar)
    finally:
        bar.close()
    print(
        f"STS calibration on {cal.data} ({cal.pairs:,} pairs, "
        f"Spearman {cal.spearman:.1f}): mean absolute error "
        f"{cal.mae_fallback:.2f} (5 × cosine) → {cal.mae:.2f}"
        f" (calibrated), 0-5 scale"
    )
    points = [f"{x:.2f}→{y:.1f}" for x, y in zip(cal.x[::8], cal.y[::8], strict=False)]
    print("cosine → score: " + ", ".join(points))
    if not args.no_save:
        print(f"calibration stored for {cal.model}", file=sys.stderr)


def _compare_json(table: Any, models: list[str]) -> str:
    import json

    data = table.to_dict()
    data["models"] = models
    return json.dumps(data, indent=2, ensure_ascii=False)


def _write_json(path: str, text: str) -> None:
    out = Path(path)
    if out.parent and not out.parent.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
    from xlsearch.service.shared import write_output

    write_output(out, text + "\n")
    print(f"wrote {out}", file=sys.stderr)
