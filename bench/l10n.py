"""Pre-translate real software catalogues from the translation team's other catalogues.

    python bench/l10n.py [--langs fr de] [--modules thunar mousepad] \\
        [--model none] [--model bundled:teacher] [--peers] [--fragments] [--json out.json]

For each language of ``$XLSEARCH_BENCH_DATA/l10n/xfce`` (default ``../shared/data``) and
each module: the **memory** is the other modules' translated, non-fuzzy entries in that
language (what a team keeps as its compendium), the **job** the module's catalogue with
every msgstr cleared, the **reference** what its translators wrote (translated, non-fuzzy
entries only are scored). ``xlsearch analyze --out`` is run on the job as a user runs it
(``--model none``: fuzzy matches only, no model). ``--peers``: GNU gettext's ``msgmerge
--compendium`` and translate-toolkit's ``pretranslate --tm`` on the same jobs.

Figures (job entries split by whether their msgid is verbatim in the memory):

* **new entries** (no verbatim source): per 100 of them, how many got a target *close*
  to the reference (character similarity ≥ 90, rapidfuzz ``ratio``) and how many a
  *wrong* one (< 50);
* **semantic fills**: of the targets written from a semantic match, the share close and
  the share wrong;
* **verbatim entries**: the share whose written target equals the reference;
* **fragments** (``--fragments``; without it they are not looked for: they are shown,
  never written, so the targets are the same): of the new entries without a fuzzy match ≥ 75 %, the
  share shown at least one fragment, the share of the reference's words the fragments'
  target words cover, and the share of fragment target words found in the reference.

Prints one Markdown table; nothing is written into the benchmark folder.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir, machine, private_home  # noqa: E402

CLOSE = 90
WRONG = 50


def key(entry: Any) -> tuple[str, str]:
    return (entry.msgctxt or "", entry.msgid)


def reference(entry: Any) -> str:
    if entry.msgid_plural:
        return entry.msgstr_plural.get(0, "") or ""
    return entry.msgstr or ""


def job_files(base: Path, lang: str, module: str, modules: list[str]) -> tuple[Path, list[Path]]:
    """A job's catalogue and its memory: the other modules' catalogues in that language."""
    memory = [base / m / f"{lang}.po" for m in modules if m != module]
    return base / module / f"{lang}.po", [f for f in memory if f.is_file()]


def scored(entry: Any) -> bool:
    """A job entry with a reference to compare with (translated, not fuzzy, not the
    header)."""
    return bool(entry.msgid) and not entry.obsolete and not entry.fuzzy and bool(reference(entry))


def sim(a: str, b: str) -> float:
    from rapidfuzz import fuzz

    return float(fuzz.ratio(a, b))


@dataclass
class Tally:
    """Counts for one tool over some jobs."""

    new: int = 0
    new_close: int = 0
    new_wrong: int = 0
    new_filled: int = 0
    verbatim: int = 0
    verbatim_equal: int = 0
    semantic: int = 0
    semantic_close: int = 0
    semantic_wrong: int = 0
    frag_todo: int = 0
    frag_any: int = 0
    frag_ref_words: int = 0
    frag_ref_covered: int = 0
    frag_words: int = 0
    frag_words_right: int = 0
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            if isinstance(value, (int, float)):
                setattr(self, name, getattr(self, name) + value)
            else:
                getattr(self, name).extend(value)

    def row(self) -> dict[str, Any]:
        def per(a: int, b: int, scale: float = 100.0) -> float | None:
            return round(scale * a / b, 1) if b else None

        return {
            "new entries": self.new,
            "close /100 new": per(self.new_close, self.new),
            "wrong /100 new": per(self.new_wrong, self.new),
            "filled /100 new": per(self.new_filled, self.new),
            "semantic fills": self.semantic,
            "semantic close %": per(self.semantic_close, self.semantic),
            "semantic wrong %": per(self.semantic_wrong, self.semantic),
            "verbatim entries": self.verbatim,
            "verbatim = reference %": per(self.verbatim_equal, self.verbatim),
            "fragments: entries %": per(self.frag_any, self.frag_todo),
            "fragments: coverage %": per(self.frag_ref_covered, self.frag_ref_words),
            "fragments: precision %": per(self.frag_words_right, self.frag_words),
            "seconds": round(self.seconds, 1),
        }


def score(
    job: list[Any],
    out: dict[tuple[str, str], str],
    memory_ids: set[str],
    origins: dict[tuple[str, str], str] | None = None,
) -> Tally:
    """Compare the targets written (``out``) with the reference."""
    t = Tally()
    origins = origins or {}
    for e in job:
        if not scored(e):
            continue
        ref = reference(e)
        got = out.get(key(e), "")
        if e.msgid in memory_ids:
            t.verbatim += 1
            t.verbatim_equal += got == ref
            continue
        t.new += 1
        if not got:
            continue
        s = sim(got, ref)
        t.new_filled += 1
        t.new_close += s >= CLOSE
        t.new_wrong += s < WRONG
        if origins.get(key(e)) == "semantic":
            t.semantic += 1
            t.semantic_close += s >= CLOSE
            t.semantic_wrong += s < WRONG
            if s < WRONG and len(t.examples) < 20:
                t.examples.append(f"{e.msgid!r} → {got!r} (ref {ref!r})")
    return t


def read_out(path: Path) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """Targets written into a PO file, and where each came from (xlsearch's comment)."""
    import polib

    po = polib.pofile(str(path))
    out: dict[tuple[str, str], str] = {}
    origin: dict[tuple[str, str], str] = {}
    for e in po:
        if e.obsolete or not e.msgid:
            continue
        tgt = reference(e)
        if tgt:
            out[key(e)] = tgt
            note = (e.comment or "") + (e.tcomment or "")
            origin[key(e)] = "semantic" if "semantic match" in note else "fuzzy"
    return out, origin


# -- the jobs -----------------------------------------------------------------------------------
def write_job(src: Path, dest: Path) -> list[Any]:
    """The module's catalogue with every msgstr cleared (and fuzzy flags dropped); returns
    the original entries (the reference)."""
    import polib

    po = polib.pofile(str(src))
    ref = [e for e in po if not e.obsolete]
    job = polib.pofile(str(src))
    for e in job:
        if e.msgid_plural:
            e.msgstr_plural = dict.fromkeys(e.msgstr_plural or {0: ""}, "")
        else:
            e.msgstr = ""
        if "fuzzy" in e.flags:
            e.flags.remove("fuzzy")
        e.previous_msgid = e.previous_msgid_plural = e.previous_msgctxt = None
    job[:] = [e for e in job if not e.obsolete]
    job.save(str(dest))
    return ref


def write_memory(files: list[Path], dest: Path) -> set[str]:
    """One compendium of the translated, non-fuzzy entries of ``files`` (for the peers);
    returns the msgids."""
    import polib

    comp = polib.POFile()
    comp.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    seen: set[tuple[str, str]] = set()
    ids: set[str] = set()
    for f in files:
        for e in polib.pofile(str(f)):
            if not scored(e):
                continue
            ids.add(e.msgid)
            if key(e) in seen:  # msgmerge refuses duplicate definitions
                continue
            seen.add(key(e))
            comp.append(e)
    comp.save(str(dest))
    return ids


def run_xlsearch(
    store: Any, enc: Any, collection: str, job: Path, out: Path, fragments: bool
) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str], Any]:
    from unittest import mock

    from xlsearch.engine.tm.analysis import report as report_stage
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.engine.tm.matching.lookup import Lookup

    doc = open_document(job)
    lookup = Lookup(store, enc, collection=collection, semantic=enc is not None)
    if fragments:
        rep = analyze(doc, lookup)
    else:  # fragments are shown, never written: the targets are the same without them
        with mock.patch.object(report_stage, "add_fragments", lambda results, *_: results):
            rep = analyze(doc, lookup)
    pretranslate(doc, rep)
    doc.save(out)
    got, origin = read_out(out)
    return got, origin, rep


def score_fragments(t: Tally, job: list[Any], rep: Any, memory_ids: set[str]) -> None:
    """Fragment figures for new entries without a fuzzy match ≥ 75 %."""
    by_source: dict[str, Any] = {}
    for s in rep.segments:
        by_source.setdefault(s.source, s)
    for e in job:
        if not scored(e) or e.msgid in memory_ids:
            continue
        res = by_source.get(e.msgid)
        if res is None or res.fuzzy >= 75:
            continue
        t.frag_todo += 1
        frags = getattr(res, "fragments", None) or []
        if not frags:
            continue
        t.frag_any += 1
        ref_words = reference_words(reference(e))
        shown = [w for f in frags for w in tokens(f.target)]
        t.frag_ref_words += len(ref_words)
        have = Counter(shown)
        t.frag_ref_covered += sum(1 for w in ref_words if have[w] > 0)
        ref_set = set(ref_words)
        t.frag_words += len(shown)
        t.frag_words_right += sum(1 for w in shown if w in ref_set)


_TOKEN = re.compile(r"\w+", re.UNICODE)
_MARKUP = re.compile(r"</?[A-Za-z][^<>]*>")


def reference_words(text: str) -> list[str]:
    """The reference's words (``tokens``) without its placeholders, markup tags and CJK
    mnemonics ``(_F)``: what a translator copies or places, not what fragments translate
    (``%s`` is no word ``s``, ``<b>`` no word ``b``)."""
    from xlsearch.engine.importers.placeholders import PLACEHOLDER
    from xlsearch.engine.tm.matching.repair import CJK_MNEMONIC

    text = re.sub(PLACEHOLDER, " ", CJK_MNEMONIC.sub("", text))
    return tokens(_MARKUP.sub(" ", text))


def tokens(text: str) -> list[str]:
    """Words (lower case, mnemonics removed); CJK text: characters."""
    text = text.replace("_", "").replace("&", "").lower()
    out: list[str] = []
    for w in _TOKEN.findall(text):
        if any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in w):
            out.extend(ch for ch in w if not ch.isspace())
        else:
            out.append(w)
    return out


def run_msgmerge(comp: Path, job: Path, out: Path) -> dict[tuple[str, str], str]:
    subprocess.run(
        ["msgmerge", "--quiet", f"--compendium={comp}", "-o", str(out), "/dev/null", str(job)],
        check=True,
        capture_output=True,
    )
    return read_out(out)[0]


def run_pretranslate(comp: Path, job: Path, out: Path) -> dict[tuple[str, str], str]:
    exe = Path(sys.executable).parent / "pretranslate"
    subprocess.run(
        [
            str(exe),
            "--progress=none",
            f"--tm={comp}",
            "-i",
            str(job),
            "-t",
            str(job),
            "-o",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    return read_out(out)[0]


def main() -> None:
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--langs", nargs="+", help="default: every language")
    p.add_argument("--modules", nargs="+", help="jobs (default: every module)")
    p.add_argument(
        "--model", action="append", help="'none' = fuzzy only (default: none)", default=[]
    )
    p.add_argument("--peers", action="store_true", help="msgmerge and pretranslate too")
    p.add_argument("--fragments", action="store_true")
    p.add_argument("--json", help="write the figures (and wrong semantic fills) here")
    p.add_argument("--examples", type=int, default=0, help="print wrong semantic fills")
    args = p.parse_args()
    base = data_dir() / "l10n" / "xfce"
    modules_all = sorted(d.name for d in base.iterdir() if d.is_dir())
    langs = args.langs or sorted({f.stem for m in modules_all for f in (base / m).glob("*.po")})
    jobs = args.modules or modules_all
    specs = args.model or ["none"]
    encoders = {s: (None if s == "none" else load_encoder(s)) for s in specs}
    private_home()  # after the models are found by name: the indexes are this run's
    tools = [f"xlsearch ({s})" for s in specs] + (
        ["msgmerge", "pretranslate"] if args.peers else []
    )
    totals = {t: Tally() for t in tools}
    tmp = Path(tempfile.mkdtemp(prefix="l10n-"))
    try:
        for lang in langs:
            for module in jobs:
                job_src, mem_files = job_files(base, lang, module, modules_all)
                if not job_src.is_file() or not mem_files:
                    continue
                work = tmp / f"{lang}-{module}"
                work.mkdir()
                job = work / "job.po"
                ref = write_job(job_src, job)
                comp = work / "memory.po"
                ids = write_memory(mem_files, comp)
                for spec, enc in encoders.items():
                    start = time.perf_counter()
                    with Store(work / f"store-{len(spec)}.db") as store:
                        for f in mem_files:
                            store.import_file(f, "memory")
                        if enc is not None:
                            build_index(store, enc, "memory")
                        got, origin, rep = run_xlsearch(
                            store, enc, "memory", job, work / "out.po", args.fragments
                        )
                    t = score(ref, got, ids, origin)
                    if args.fragments:
                        score_fragments(t, ref, rep, ids)
                    t.seconds = time.perf_counter() - start
                    totals[f"xlsearch ({spec})"].add(t)
                if args.peers:
                    for name, fn in (
                        ("msgmerge", run_msgmerge),
                        ("pretranslate", run_pretranslate),
                    ):
                        start = time.perf_counter()
                        t = score(ref, fn(comp, job, work / f"{name}.po"), ids)
                        t.seconds = time.perf_counter() - start
                        totals[name].add(t)
                shutil.rmtree(work, ignore_errors=True)
                print(f"… {lang} {module}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = {t: totals[t].row() for t in tools}
    print(f"Xfce: {len(langs)} languages × {len(jobs)} jobs ({', '.join(langs)}); {machine()}\n")
    cols = list(next(iter(rows.values())))
    print("| tool | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for t, r in rows.items():
        print(f"| {t} | " + " | ".join("—" if v is None else str(v) for v in r.values()) + " |")
    for t in tools:
        for ex in totals[t].examples[: args.examples]:
            print(f"- {t}: wrong semantic fill {ex}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "langs": langs,
                    "jobs": jobs,
                    "rows": rows,
                    "examples": {t: totals[t].examples for t in tools},
                },
                indent=1,
                ensure_ascii=False,
            ),  # fmt: skip
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
