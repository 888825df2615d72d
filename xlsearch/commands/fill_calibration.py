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
    from xlsearch.engine import load_encoder
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.models.cards import BUNDLED_TEACHER
    from xlsearch.engine.tm import fill_policy

    spec = args.model
    if not spec:
        from xlsearch.engine.models.catalog import active_model

        spec = active_model()
    enc = load_encoder(spec, device=args.device, batch_size=args.batch_size)
    if args.calibrate_pairs:
        groups = fill_policy.groups_from_files(args.calibrate_pairs)
        data = ", ".join(p.rsplit("/", 1)[-1] for p in args.calibrate_pairs)
    elif enc.id == BUNDLED_TEACHER:
        raise ConfigError(
            "the bundled teacher has no dev split to calibrate on",
            hint="name translation pairs it was not trained on: --calibrate-pairs en-de.tsv "
            f"(at least {fill_policy.MIN_PAIRS} pairs per language pair)",
        )
    else:
        groups = fill_policy.dev_groups(enc.path)
        data = "dev split"
    if not groups:
        raise ConfigError("no translation pairs to calibrate on", hint="check --calibrate-pairs")
    bar = ProgressBar()
    try:
        cal = fill_policy.fit(groups, lambda t: enc.encode(t, on_progress=bar), data=data)
    finally:
        bar.close()
    print(f"semantic-fill calibration of {enc.id} on {data}:")
    for key, pair in cal["pairs"].items():
        thr = pair.get("threshold")
        if thr is None:
            print(f"  {key}: no fills ({pair.get('why', '')})")
        else:
            print(
                f"  {key}: fills from cosine {thr:.3f} ({pair['held_out']:,} held-out pairs; "
                f"precision {100 * pair['precision']:.1f} %, recall "
                f"{100 * pair['recall']:.1f} % of the true pairs)"
            )
    if not args.no_save:
        where = fill_policy.store(enc.id, enc.path, cal)
        print(f"calibration stored in {where}", file=sys.stderr)
