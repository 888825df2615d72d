"""Whole units first: 100 % units kept on a paragraph memory and on a sentence memory.

From consecutive English–German news sentences (``train/en-de.tsv.gz``, document order) it
builds paragraphs of three sentences; a paragraph memory (TMX, one unit a paragraph, as
OmegaT writes with paragraph segmentation), a sentence memory (one unit a sentence) and a
job (XLIFF 1.2, one trans-unit a paragraph, as Okapi or a CMS exports): paragraphs the
memory has word for word, edited ones (a word added) and new ones. Each is analysed with
``--segment always`` (every unit split into sentences first: what analysis did before) and
``auto`` (whole units first), fuzzy only and with each model given.

    python bench/whole_units.py [--model bundled:teacher] [--model NAME] [--paragraphs 240]
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import data_dir, machine  # noqa: E402


def _paragraphs(n: int) -> list[tuple[list[str], list[str]]]:
    """``n`` paragraphs of three consecutive sentence pairs (only sentences that end in a
    full stop and are no headline, so a paragraph splits back into the same three)."""
    from xlsearch.engine.lang.sentences import split_sentences

    out: list[tuple[list[str], list[str]]] = []
    en: list[str] = []
    de: list[str] = []
    with gzip.open(data_dir() / "train" / "en-de.tsv.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 2 or not parts[0].endswith(".") or len(parts[0].split()) < 6:
                en, de = [], []
                continue
            en.append(parts[0])
            de.append(parts[1])
            if len(en) == 3:
                if split_sentences(" ".join(en), "en") == en:
                    out.append((en, de))
                en, de = [], []
            if len(out) == n:
                break
    return out


def _tmx(path: Path, units: list[tuple[str, str]], segtype: str) -> Path:
    body = "".join(
        f'<tu><tuv xml:lang="en-US"><seg>{escape(s)}</seg></tuv>'
        f'<tuv xml:lang="de-DE"><seg>{escape(t)}</seg></tuv></tu>\n'
        for s, t in units
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header creationtool='
        f'"bench" o-tmf="bench" adminlang="en-US" datatype="plaintext" segtype="{segtype}" '
        f'srclang="en-US"/><body>\n{body}</body></tmx>\n',
        encoding="utf-8",
    )
    return path


def _job(path: Path, sources: list[str]) -> Path:
    units = "".join(
        f'<trans-unit id="p{i}" xml:space="preserve"><source xml:lang="en-US">{escape(s)}'
        "</source></trans-unit>\n"
        for i, s in enumerate(sources)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="news.html" '
        'source-language="en-US" target-language="de-DE" datatype="x-text/html"><body>\n'
        f"{units}</body></file></xliff>\n",
        encoding="utf-8",
    )
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", default=[], help="model spec (repeatable)")
    ap.add_argument("--paragraphs", type=int, default=240)
    args = ap.parse_args()
    paras = _paragraphs(args.paragraphs)
    with tempfile.TemporaryDirectory(prefix="whole-units-") as folder:
        run(args, Path(folder), paras)


def run(args: argparse.Namespace, tmp: Path, paras: list[tuple[list[str], list[str]]]) -> None:
    """Build the memories and the job in ``tmp`` and print the table."""
    n = len(paras)
    exact, edited = n // 2, n // 4  # the rest is new
    os.environ.setdefault("XLSEARCH_HOME", str(tmp / "home"))
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.documents import open_document
    from xlsearch.engine.tm.matching.lookup import Lookup

    known = paras[: exact + edited]
    para_tm = _tmx(tmp / "para.tmx", [(" ".join(e), " ".join(d)) for e, d in known], "paragraph")
    sent_tm = _tmx(
        tmp / "sent.tmx", [(s, t) for e, d in known for s, t in zip(e, d, strict=True)], "sentence"
    )
    sources = [" ".join(e) for e, _ in paras[:exact]]
    sources += [" ".join(e)[:-1] + " today." for e, _ in paras[exact : exact + edited]]
    sources += [" ".join(e) for e, _ in paras[exact + edited :]]
    job = _job(tmp / "job.xlf", sources)
    print(f"# whole units first — {machine()}, load {os.getloadavg()[0]:.1f}")
    print(f"job: {n} paragraph units of 3 sentences: {exact} in the memory word for word, "
          f"{edited} edited (a word added), {n - exact - edited} new")  # fmt: skip
    print("| model | memory | segment | segments | 100 % segments | 100 % whole units "
          "| edited units ≥ 75 % whole | s |")  # fmt: skip
    print("|---|---|---|---:|---:|---:|---:|---:|")
    with Store() as store:
        store.import_file(para_tm, "para")
        store.import_file(sent_tm, "sent")
        for spec in [None, *args.model]:
            enc = load_encoder(spec) if spec else None
            if enc is not None:
                for name in ("para", "sent"):
                    build_index(store, enc, name)
            for memory in ("para", "sent"):
                for segment in ("always", "auto"):
                    doc = open_document(job, segment=segment)
                    lk = Lookup(store, enc, collection=memory, semantic=enc is not None)
                    start = time.perf_counter()
                    rep = analyze(doc, lk, segment=segment)
                    secs = time.perf_counter() - start
                    segs = list(zip(doc.segments, rep.segments, strict=True))
                    hundred = sum(r.band == "100%" for _, r in segs)
                    whole = sum(r.band == "100%" and "/" not in s.key for s, r in segs)
                    edits = {f"p{i}" for i in range(exact, exact + edited)}
                    fuzzy = sum(s.key in edits and r.fuzzy >= 75 for s, r in segs)
                    label = (spec or "fuzzy only").rsplit("/", 1)[-1]
                    print(f"| {label} | {memory} | {segment} | {len(segs)} | {hundred} | {whole} "
                          f"| {fuzzy} | {secs:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
