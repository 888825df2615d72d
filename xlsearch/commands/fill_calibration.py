"""``xlsearch eval MODEL --calibrate``: the semantic-fill calibration of a model."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_arguments(group: Any) -> None:
    """Add ``--calibrate`` and ``--calibrate-pairs`` to the eval command's options."""
    group.add_argument(
        "--calibrate",
        action="store_true",
        help="fit the model's semantic-fill calibration (the cosine from which a stored target "
        "is a translation with 95%% precision, per language pair) on its held-out dev split, "
        "or on --calibrate-pairs, and store it with the model: analyze writes semantic "
        "matches only above it",
    )
    group.add_argument(
        "--calibrate-pairs",
        nargs="+",
        metavar="TSV",
        help="held-out translation pairs for --calibrate (English<TAB>translation, .gz ok; "
        "the language from a name like en-de.tsv, else guessed): pairs the model "
        "was not trained on; needed for the bundled teacher, which has no dev split",
    )


def run(args: argparse.Namespace) -> None:
    """Fit, print and (unless ``--no-save``) store the fill calibration."""
    from xlsearch.commands.progress import ProgressDisplay as ProgressBar
    from xlsearch.service.fills import calibrate_fills

    bar = ProgressBar()
    try:
        fitted = calibrate_fills(
            args.model,
            args.calibrate_pairs or (),
            device=args.device,
            batch_size=args.batch_size,
            save=not args.no_save,
            on_progress=bar,
        )
    finally:
        bar.close()
    print(f"semantic-fill calibration of {fitted.model} on {fitted.data}:")
    for key, pair in fitted.pairs.items():
        if pair.threshold is None:
            print(f"  {key}: no fills ({pair.why})")
        else:
            print(
                f"  {key}: fills from cosine {pair.threshold:.3f} ({pair.held_out:,} held-out "
                f"pairs; precision {100 * pair.precision:.1f} %, recall "
                f"{100 * pair.recall:.1f} % of the true pairs)"
            )
    if fitted.stored is not None:
        print(f"calibration stored in {fitted.stored}", file=sys.stderr)
