"""Where are semantic matches right? Job entries and the memory's own held-out units, by
cosine, fuzzy %, length and fragility.

    python bench/fill_regions.py [--langs fr de ja] [--modules thunar mousepad] \\
        [--model assets/models/multilingual] [--loo 0] [--json rows.json]

For each Xfce job (``bench/l10n.py``'s: the module's catalogue, the other modules as the
memory): every new entry (msgid not verbatim in the memory) whose best fuzzy match is
< 75 % and whose best semantic match (units of its shape, with a target) has cosine ≥
``--floor`` is a row: its cosine, the fuzzy % of that match's source, its words, its
calibration group (``tm.calibration.memory.group``), and whether the match's target is
close to the reference (character similarity ≥ 90, as ``bench/l10n.py`` scores) or the
same translation (``same_translation``). ``--loo N``: also look N memory units of each
language (all: 0) up against the rest of the memory, as the memory calibration does, and
row them the same way (right = the unit's own target). Prints the tables by region.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir, machine, private_home  # noqa: E402
from l10n import job_files, reference, scored, sim, write_job, write_memory  # noqa: E402

COS_BINS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.01)
FUZZY_BINS = (0, 50, 60, 75)
WORD_BINS = (1, 2, 4, 8, 1000)


def _bin(x: float, edges: tuple[float, ...]) -> str:
    for n, (lo, hi) in enumerate(zip(edges, edges[1:], strict=False)):
        if lo <= x < hi:
            return f"{n + 1}: {lo:g}–{hi:g}"
    return f"0: <{edges[0]:g}" if x < edges[0] else f"9: ≥{edges[-1]:g}"


def _features(text: str, top: Any) -> dict[str, Any]:
    from xlsearch.engine.tm.calibration.memory import group
    from xlsearch.engine.tm.matching.fuzzy import words

    return {
        "cos": round(float(top.semantic or 0.0), 4),
        "fz": int(top.fuzzy),
        "words": int(words(text)),
        "group": group(text),
        "src": text,
        "match": top.source,
        "target": top.target,
    }


def job_rows(store: Any, enc: Any, job: Path, ref: list[Any], ids: set[str], floor: float) -> list:
    from unittest import mock

    from xlsearch.engine.tm.analysis import segment as seg_stage
    from xlsearch.engine.tm.analysis.candidates import find_candidates
    from xlsearch.engine.tm.analysis.choose import choose
    from xlsearch.engine.tm.analysis.score import score_matches
    from xlsearch.engine.tm.calibration.memory import same_translation
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.engine.tm.matching.lookup import Lookup

    doc = open_document(job)
    lookup = Lookup(store, enc, collection="memory", semantic=True)
    with mock.patch.object(seg_stage, "memory_evidence", lambda *a, **k: None):
        segmentation = seg_stage.segment_document(doc, "auto", lookup, 0.8)
    cands = find_candidates(doc, segmentation, lookup)
    results = choose(doc, score_matches(doc, cands, lookup), floor)
    refs = {e.msgid: reference(e) for e in ref if scored(e) and e.msgid not in ids}
    rows = []
    for res in results:
        if res.source not in refs or res.semantic is None or not res.semantic.target:
            continue
        r = _features(res.source, res.semantic)
        r["best_fz"] = int(res.fuzzy)
        r["close"] = sim(res.semantic.target, refs[res.source]) >= 90
        r["right"] = same_translation(res.semantic.target, refs[res.source])
        rows.append(r)
    return rows


def loo_rows(
    store: Any, enc: Any, src: str, tgt: str, n: int, floor: float
) -> tuple[list[dict[str, Any]], int]:
    """The memory calibration's evidence, over ``n`` units (0: all), every cosine ≥ floor."""
    from xlsearch.engine.tm.calibration.memory import (
        _units,
        held_out_jobs,
        held_out_matches,
        same_translation,
    )
    from xlsearch.engine.tm.matching.lookup import Lookup

    lookup = Lookup(store, enc, collection="memory", semantic=True)
    units = _units(lookup, src)
    sample = random.Random(0).sample(units, min(n, len(units))) if n else units
    jobs = held_out_jobs(lookup, sample, tgt)
    out = []
    for text, own, top, fuzzy in held_out_matches(lookup, jobs, src, tgt, floor):
        r = _features(text, top)
        r["best_fz"] = fuzzy
        r["right"] = same_translation(top.target, own)
        r["close"] = sim(top.target, own) >= 90
        out.append(r)
    return out, len(jobs)


def table(rows: list[dict[str, Any]], keys: list[str], title: str) -> None:
    cells: dict[tuple[str, ...], list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in rows:
        k = []
        for name in keys:
            if name == "cos":
                k.append(_bin(r["cos"], COS_BINS))
            elif name == "fz":
                k.append(_bin(r["fz"], FUZZY_BINS))
            elif name == "words":
                k.append(_bin(r["words"], WORD_BINS))
            else:
                k.append(str(r[name]))
        c = cells[tuple(k)]
        c[0] += 1
        c[1] += bool(r["close"])
        c[2] += bool(r["right"])
    print(f"\n{title}\n")
    print("| " + " | ".join(keys) + " | n | close % | same translation % |")
    print("|" + "---|" * len(keys) + "---:|---:|---:|")
    for k in sorted(cells):
        n, c, s = cells[k]
        print(f"| {' | '.join(k)} | {n} | {100 * c / n:.1f} | {100 * s / n:.1f} |")


def main() -> None:
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--langs", nargs="+", default=["fr", "de", "ja"])
    p.add_argument("--modules", nargs="+", default=["thunar", "mousepad"])
    p.add_argument("--model", default="assets/models/multilingual")
    p.add_argument("--floor", type=float, default=0.5, help="lowest cosine kept")
    p.add_argument("--loo", type=int, default=-1, help="memory units per language (0: all)")
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args()
    base = data_dir() / "l10n" / "xfce"
    modules_all = sorted(d.name for d in base.iterdir() if d.is_dir())
    enc = load_encoder(args.model)
    private_home()  # after the model is found by name: the indexes are this run's
    rows: dict[str, list[dict[str, Any]]] = {"job": [], "memory": []}
    held = 0
    tmp = Path(tempfile.mkdtemp(prefix="regions-"))
    start = time.perf_counter()
    try:
        for lang in args.langs:
            for m, module in enumerate(args.modules):
                job_src, mem_files = job_files(base, lang, module, modules_all)
                work = tmp / f"{lang}-{module}"
                work.mkdir()
                ref = write_job(job_src, work / "job.po")
                ids = write_memory(mem_files, work / "memory.po")
                with Store(work / "store.db") as store:
                    for f in mem_files:
                        store.import_file(f, "memory")
                    build_index(store, enc, "memory")
                    got = job_rows(store, enc, work / "job.po", ref, ids, args.floor)
                    for r in got:
                        r["job"] = f"{lang}-{module}"
                    rows["job"].extend(got)
                    if args.loo >= 0 and m == 0:
                        t0 = time.perf_counter()
                        mem, looked = loo_rows(store, enc, "en", lang, args.loo, args.floor)
                        held += looked
                        for r in mem:
                            r["job"] = lang
                        rows["memory"].extend(mem)
                        print(
                            f"… {lang}: {looked} units looked up in "
                            f"{time.perf_counter() - t0:.0f} s, {len(mem)} in the band",
                            file=sys.stderr,
                            flush=True,
                        )
                shutil.rmtree(work, ignore_errors=True)
                print(f"… {lang} {module}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{machine()}; {time.perf_counter() - start:.0f} s; memory units looked up: {held}")
    for name, rs in rows.items():
        if not rs:
            continue
        band = [r for r in rs if r["cos"] >= 0.8]
        table(rs, ["cos"], f"{name}: by cosine ({len(rs)} rows)")
        table(band, ["group", "cos"], f"{name}: cosine ≥ 0.8 by group")
        table(band, ["fz", "cos"], f"{name}: cosine ≥ 0.8 by fuzzy % of the match")
        table(band, ["words", "cos"], f"{name}: cosine ≥ 0.8 by words")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, ensure_ascii=False, indent=0), "utf-8")


if __name__ == "__main__":
    main()
