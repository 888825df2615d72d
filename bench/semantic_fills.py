"""Semantic fills at the calibrated threshold: wrong fills on unrelated text, recall on
paraphrases, per model.

    python bench/semantic_fills.py --model demo-student --model bundled:teacher \\
        [--calibrate-pairs 2000] [--langs de fr ru]

For each model and language (``$XLSEARCH_BENCH_DATA``, default ``../shared/data``):

* **calibration**: the model's stored fill calibration; with ``--calibrate-pairs N`` first
  re-fitted on N random pairs per language from ``train/en-XX.tsv.gz`` (pairs no Tatoeba or
  STS sentence is in; the bundled teacher was never trained on them, a student distilled
  without them neither) and stored with the model.
* **unrelated text** (every fill is wrong): a memory of Tatoeba's everyday sentences
  (``tatoeba.XXX-eng``, ≤ 1,000 en–XX units) and a job of the STS benchmark's test sentences
  (news headlines, captions, forum posts; English → XX), analysed and pre-translated as
  ``xlsearch analyze --out`` does; then the reverse direction with a job of Bleualign's
  German mountaineering prose against the de–en memory. Every semantic fill counts as
  wrong.
* **paraphrases**: a memory of the STS test's second sentences with their (machine)
  translation (``stsb-multi-mt``), for the rows whose gold similarity is ≥ 4.0, and a job
  of the first sentences: a semantic fill is right when it writes the row's own target.
  Recall = right semantic fills / job segments with no fuzzy match ≥ 75 %.
* **translations** (``de`` only): a memory of fr–de units (the STS test's first sentences
  in both machine translations) and a job of the English originals: the only matches are
  cross-language ones (French source), and a fill is right when it is the row's German.

Prints one Markdown table; nothing is written into the benchmark folder.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import random
import sys
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _data import data_dir, machine  # noqa: E402

ISO3 = {"de": "deu", "fr": "fra", "ru": "rus", "es": "spa", "zh": "cmn", "ja": "jpn"}


def write_tmx(path: Path, units: list[tuple[str, str]], src: str, tgt: str) -> Path:
    tus = "".join(
        f'<tu><tuv xml:lang="{src}"><seg>{escape(a)}</seg></tuv>'
        f'<tuv xml:lang="{tgt}"><seg>{escape(b)}</seg></tuv></tu>\n'
        for a, b in units
    )
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="{src}" '
        'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="bench" '
        f'creationtoolversion="1" o-tmf="bench"/><body>\n{tus}</body></tmx>\n',
        encoding="utf-8",
    )
    return path


def write_xliff(path: Path, segments: list[str], src: str, tgt: str) -> Path:
    units = "".join(
        f'<trans-unit id="{i + 1}"><source>{escape(s)}</source></trans-unit>\n'
        for i, s in enumerate(segments)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="job" '
        f'source-language="{src}" target-language="{tgt}" datatype="plaintext"><body>\n'
        f"{units}</body></file></xliff>\n",
        encoding="utf-8",
    )
    return path


def lines(path: Path) -> list[str]:
    return [" ".join(x.split()) for x in path.read_text("utf-8").splitlines()]


def sts_rows(lang: str) -> list[tuple[str, str, str, float]]:
    """(en s1, en s2, lang s2, gold) of the STS test split (rows aligned across languages)."""
    folder = data_dir() / "dev" / "stsb-multi-mt"
    with open(folder / "stsb-en-test.csv", encoding="utf-8", newline="") as fh:
        en = list(csv.reader(fh))
    with open(folder / f"stsb-{lang}-test.csv", encoding="utf-8", newline="") as fh:
        xx = list(csv.reader(fh))
    return [(a[0], a[1], b[1], float(a[2])) for a, b in zip(en, xx, strict=True)]


def _first_sentences(lang: str) -> list[str]:
    """The first sentence of every STS test row in ``lang`` (machine translation)."""
    folder = data_dir() / "dev" / "stsb-multi-mt"
    with open(folder / f"stsb-{lang}-test.csv", encoding="utf-8", newline="") as fh:
        return [r[0] for r in csv.reader(fh)]


def sample_pairs(lang: str, n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    path = data_dir() / "train" / f"en-{lang}.tsv.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [r.rstrip("\n").split("\t") for r in fh]
    rows = [r for r in rows if len(r) >= 2 and r[0].strip() and r[1].strip()]
    random.Random(seed).shuffle(rows)
    rows = rows[:n]
    return [r[0] for r in rows], [r[1] for r in rows]


def run_job(store, enc, name, memory, src, tgt, job, tmp, mem_src=None):  # noqa: ANN001, ANN201
    """Import ``memory`` (``mem_src``–``tgt`` units) as collection ``name``, analyse +
    pre-translate ``job`` (``src`` → ``tgt``); returns (analysis, document)."""
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.engine.tm.matching.lookup import Lookup

    if store.collection_id(name) is None:
        store.import_file(write_tmx(tmp / f"{name}.tmx", memory, mem_src or src, tgt), name)
    build_index(store, enc, name)
    doc = open_document(write_xliff(tmp / f"{name}-job.xlf", job, src, tgt))
    rep = analyze(doc, Lookup(store, enc, collection=name))
    pretranslate(doc, rep)
    return rep, doc


def shared_translations(
    lang: str, singles: int, seed: int = 0
) -> tuple[list[tuple[str, str]], list[str], dict[str, str]]:
    """A memory where a semantic match is often right, and a job: the ``train/en-XX`` pairs
    whose translation has several English sources (Tatoeba's "I'm hungry." and "I am
    hungry." → "Ich habe Hunger.", news with two references), split by translation into
    those whose every source goes to the memory and those whose first source goes to the
    job (its reference: the translation), the others to the memory; plus ``singles`` pairs
    of one source each in the memory, and as many job sentences as the second half whose
    translation the memory does not hold (every semantic fill of them is wrong). Returns
    (memory units, job sentences, reference by job sentence)."""
    path = data_dir() / "train" / f"en-{lang}.tsv.gz"
    by_target: dict[str, list[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = line.rstrip("\n").split("\t")
            if len(row) < 2 or not row[0].strip() or not row[1].strip():
                continue
            a, b = " ".join(row[0].split()), " ".join(row[1].split())
            if a not in by_target.setdefault(b, []):
                by_target[b].append(a)
    rng = random.Random(seed)
    shared = sorted(t for t, s in by_target.items() if len(s) >= 2)
    single = sorted(t for t, s in by_target.items() if len(s) == 1)
    rng.shuffle(shared)
    rng.shuffle(single)
    half = shared[: len(shared) // 2]
    memory = [(a, t) for t in shared[len(shared) // 2 :] for a in by_target[t]]
    want: dict[str, str] = {}
    for t in half:
        first, *rest = by_target[t]
        memory += [(a, t) for a in rest]
        want.setdefault(first, t)
    memory += [(by_target[t][0], t) for t in single[:singles]]
    for t in single[singles : singles + len(half)]:
        want.setdefault(by_target[t][0], t)
    rng.shuffle(memory)
    sources = {a for a, _ in memory}
    want = {a: t for a, t in want.items() if a not in sources}
    return memory, list(want), want


def run_shared(store, enc, name, lang, singles, tmp) -> str:  # noqa: ANN001
    """One Markdown row of the shared-translations experiment (``shared_translations``)."""
    from rapidfuzz import fuzz

    memory, job, want = shared_translations(lang, singles)
    rep, doc = run_job(store, enc, f"{name}-shared-{lang}", memory, "en", lang, job, tmp)
    held = {t for _, t in memory}
    filled = close = wrong = possible = 0
    for s in rep.segments:
        if s.repetition_of is not None or s.fuzzy >= 75 or s.source not in want:
            continue  # (a sentence of a job segment split in sentences: not scored)
        possible += want[s.source] in held
        d = doc.segments[s.index]
        if d.origin != "semantic":
            continue
        ratio = fuzz.ratio(d.target, want[s.source])
        filled += 1
        close += ratio >= 90
        wrong += ratio < 50
    pol = rep.fill_policy
    why = pol.memory.describe() if pol is not None and pol.memory is not None else "—"
    share = f"{100 * close / filled:.1f} % · {100 * wrong / filled:.1f} %" if filled else "—"
    return (
        f"| {name} | en-{lang} | {len(memory):,} units, job {len(job):,} | {possible} | "
        f"{filled} | {share} | {why} |"
    )


def main() -> None:
    from xlsearch.engine.calibration import fill as fill_policy
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", action="append", required=True)
    p.add_argument("--langs", nargs="+", default=["de", "fr", "ru"])
    p.add_argument("--calibrate-pairs", type=int, default=0)
    p.add_argument("--job-size", type=int, default=600)
    p.add_argument(
        "--shared",
        type=int,
        metavar="N",
        help="only the shared-translations memory (N single pairs with it; see "
        "shared_translations)",
    )
    args = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="semfill-"))
    if args.shared is not None:
        print(f"a memory whose translations recur with other sources; {machine()}\n")
        print(
            "| model | pair | memory, job | job segments < 75 % whose translation the "
            "memory holds | semantic fills | close · wrong | the memory's evidence |"
        )
        print("|---|---|---|---:|---:|---|---|")
        with Store() as store:
            for spec in args.model:
                enc = load_encoder(spec)
                name = Path(str(enc.id)).name.replace(":", "-")
                for lang in args.langs:
                    print(run_shared(store, enc, name, lang, args.shared, tmp), flush=True)
        return
    print(f"semantic fills at calibrated precision ≥ 95 % (95 % confidence); {machine()}\n")
    print(
        "| model | pair | threshold (held-out pairs) | unrelated: semantic fills (all wrong) "
        "| paraphrases: right / wrong fills | recall at threshold | translations via a fr "
        "memory: right / wrong, recall | suggestions |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with Store() as store:
        for spec in args.model:
            enc = load_encoder(spec)
            name = Path(str(enc.id)).name.replace(":", "-")
            if args.calibrate_pairs:
                groups = {
                    fill_policy.pair_key("en", lang): sample_pairs(lang, args.calibrate_pairs)
                    for lang in args.langs
                }
                data = f"{args.calibrate_pairs} random train/en-XX pairs"
                fill_policy.store(enc.id, enc.path, fill_policy.fit(groups, enc.encode, data=data))
                enc = load_encoder(spec)
            for lang in args.langs:
                pol = fill_policy.policy_for(enc, "en", lang)
                cal = pol.calibration or {}
                thr = (
                    f"{pol.threshold:.3f} ({cal.get('held_out', 0):,})"
                    if pol.threshold is not None
                    else f"none ({pol.why})"
                )
                t3 = ISO3[lang]
                folder = data_dir() / "dev" / "tatoeba"
                mem = list(
                    zip(
                        lines(folder / f"tatoeba.{t3}-eng.eng"),
                        lines(folder / f"tatoeba.{t3}-eng.{t3}"),
                        strict=True,
                    )
                )
                rows = sts_rows(lang)
                job = list(dict.fromkeys(r[0] for r in rows))[: args.job_size]
                rep, doc = run_job(store, enc, f"{name}-tat-{lang}", mem, "en", lang, job, tmp)
                wrong = sum(s.origin == "semantic" for s in doc.segments)
                sugg = sum(not s.fill for s in rep.semantic_segments())
                if lang == "de":
                    mem_de = [(b, a) for a, b in mem]
                    prose = lines(data_dir() / "dev" / "bleualign" / "dev.de")[: args.job_size]
                    rep2, doc2 = run_job(
                        store, enc, f"{name}-tat-de-en", mem_de, "de", "en", prose, tmp
                    )
                    wrong += sum(s.origin == "semantic" for s in doc2.segments)
                    sugg += sum(not s.fill for s in rep2.semantic_segments())
                para = [r for r in rows if r[3] >= 4.0 and r[0] != r[1]]
                mem_p = list(dict.fromkeys((r[1], r[2]) for r in para))
                want = {r[0]: r[2] for r in para}
                rep3, doc3 = run_job(
                    store, enc, f"{name}-sts-{lang}", mem_p, "en", lang, list(want), tmp
                )
                need = [s for s in rep3.segments if s.fuzzy < 75 and s.repetition_of is None]
                right = sum(
                    doc3.segments[s.index].origin == "semantic"
                    and doc3.segments[s.index].target == want[s.source]
                    for s in need
                )
                bad = sum(
                    doc3.segments[s.index].origin == "semantic"
                    and doc3.segments[s.index].target != want[s.source]
                    for s in need
                )
                sugg += sum(not s.fill for s in rep3.semantic_segments())
                trans = "—"
                if lang == "de":
                    de1 = _first_sentences("de")
                    mem_t = list(dict.fromkeys(zip(_first_sentences("fr"), de1, strict=True)))
                    truth: dict[str, set[str]] = {}
                    for r, d in zip(rows, de1, strict=True):
                        truth.setdefault(r[0], set()).add(d)
                    jt = list(dict.fromkeys(r[0] for r in rows))[: args.job_size]
                    rep4, doc4 = run_job(
                        store, enc, f"{name}-frde", mem_t, "en", "de", jt, tmp, mem_src="fr"
                    )
                    ok = bad_t = 0
                    for s in rep4.segments:
                        d = doc4.segments[s.index]
                        if d.origin == "semantic":
                            ok += d.target in truth.get(s.source, set())
                            bad_t += d.target not in truth.get(s.source, set())
                    trans = f"{ok} / {bad_t}, {100 * ok / max(1, len(jt)):.1f} % of {len(jt)}"
                print(
                    f"| {name} | en-{lang} | {thr} | {wrong} of {len(job)} + "
                    f"{len(prose) if lang == 'de' else 0} segments | {right} / {bad} | "
                    f"{100 * right / max(1, len(need)):.1f} % of {len(need)} | {trans} | {sugg} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
