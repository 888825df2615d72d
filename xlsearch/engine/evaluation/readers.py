"""Readers for evaluation data: Tatoeba, STS (TSV, STSb, stsb-multi-mt, STS 2017), BUCC, TSV."""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from xlsearch.engine.errors import DataError

# ISO 639-3 (Tatoeba file names) ↔ ISO 639-1 (training files, cards)
ISO3_TO_ISO1: dict[str, str] = {
    "afr": "af", "ara": "ar", "bel": "be", "ben": "bn", "bul": "bg", "cat": "ca", "ces": "cs",
    "cmn": "zh", "cym": "cy", "dan": "da", "deu": "de", "ell": "el", "eng": "en", "epo": "eo",
    "est": "et", "eus": "eu", "fin": "fi", "fra": "fr", "gle": "ga", "glg": "gl", "heb": "he",
    "hin": "hi", "hrv": "hr", "hun": "hu", "hye": "hy", "ind": "id", "isl": "is", "ita": "it",
    "jpn": "ja", "kat": "ka", "kaz": "kk", "kor": "ko", "lat": "la", "lit": "lt", "lvs": "lv",
    "mal": "ml", "mar": "mr", "mkd": "mk", "nld": "nl", "nob": "nb", "pes": "fa", "pol": "pl",
    "por": "pt", "ron": "ro", "rus": "ru", "slk": "sk", "slv": "sl", "spa": "es", "sqi": "sq",
    "srp": "sr", "swe": "sv", "swh": "sw", "tam": "ta", "tel": "te", "tha": "th", "tur": "tr",
    "ukr": "uk", "urd": "ur", "vie": "vi", "zsm": "ms",
}  # fmt: skip
ISO1_TO_ISO3: dict[str, str] = {v: k for k, v in ISO3_TO_ISO1.items()}


def to_iso3(code: str) -> str:
    """``de`` → ``deu``; 3-letter codes (and unknown ones) are returned lower-cased."""
    code = code.strip().lower()
    return ISO1_TO_ISO3.get(code, code)


def to_iso1(code: str) -> str:
    """``deu`` → ``de``; codes without a 2-letter form are returned unchanged."""
    code = code.strip().lower()
    return ISO3_TO_ISO1.get(code, code)


@dataclass
class ParallelSet:
    """Line-aligned translations: ``src[i]`` translates ``tgt[i]``."""

    name: str
    src: list[str]
    tgt: list[str]
    src_lang: str = ""
    tgt_lang: str = ""


@dataclass
class StsSet:
    """Sentence pairs with gold similarity scores."""

    name: str
    s1: list[str]
    s2: list[str]
    scores: list[float]
    lang1: str = ""
    lang2: str = ""
    family: str = ""
    """Row-aligned sets (translations of one benchmark split) share a family."""

    def __len__(self) -> int:
        return len(self.scores)


@dataclass
class MiningSplit:
    """Two monolingual id→sentence maps and the gold (src_id, tgt_id) pairs among them."""

    src: dict[str, str]
    tgt: dict[str, str]
    gold: set[tuple[str, str]] = field(default_factory=set)


@dataclass
class MiningTask:
    """A bitext-mining task: tune the threshold on ``train``, report on ``test``."""

    name: str
    train: MiningSplit
    test: MiningSplit
    label: str = "BUCC"


def open_text(path: str | Path) -> io.TextIOBase:
    """Open a UTF-8 text file (``.gz`` transparently) for reading, or raise ``DataError``."""
    p = Path(path)
    try:
        if p.suffix == ".gz":
            return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8", newline="")
        return open(p, encoding="utf-8", newline="")  # noqa: SIM115
    except OSError as exc:
        raise DataError(f"{p}: cannot open ({exc.strerror or exc})") from exc


def _lines(path: Path) -> list[str]:
    with open_text(path) as fh:
        try:
            return [line.rstrip("\r\n") for line in fh]
        except UnicodeDecodeError as exc:
            raise DataError(f"{path}: not UTF-8 text ({exc})") from exc


def _score(text: str, path: Path, line: int) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise DataError(f"{path}, line {line}: score {text.strip()!r} is not a number") from None


# --------------------------------------------------------------------------- Tatoeba


def tatoeba_languages(folder: str | Path) -> list[str]:
    """ISO 639-3 codes that have both ``tatoeba.xxx-eng.xxx`` and ``.eng`` in ``folder``."""
    root = Path(folder)
    if not root.is_dir():
        raise DataError(f"{root}: Tatoeba folder not found")
    codes = []
    for p in root.glob("tatoeba.*-eng.eng"):
        code = p.name[len("tatoeba.") : -len("-eng.eng")]
        if (root / f"tatoeba.{code}-eng.{code}").is_file():
            codes.append(code)
    return sorted(codes)


def read_tatoeba(
    folder: str | os.PathLike[str], langs: Iterable[str] | None = None
) -> list[ParallelSet]:
    """Read ``tatoeba.xxx-eng.xxx`` + ``.eng`` pairs (langs as 2- or 3-letter codes; default all).

    Each set's ``src`` is the non-English side. Unequal line counts → ``DataError``.
    """
    root = Path(folder)
    available = tatoeba_languages(root)
    wanted = [to_iso3(c) for c in langs] if langs else available
    missing = [c for c in wanted if c not in available]
    if missing:
        raise DataError(
            f"{root}: no Tatoeba files for {', '.join(missing)}",
            hint=f"expected tatoeba.{missing[0]}-eng.{missing[0]} and tatoeba.{missing[0]}-eng.eng",
        )
    sets = []
    for code in wanted:
        xx = root / f"tatoeba.{code}-eng.{code}"
        en = root / f"tatoeba.{code}-eng.eng"
        src, tgt = _lines(xx), _lines(en)
        while src and tgt and not src[-1] and not tgt[-1]:
            src.pop(), tgt.pop()
        if len(src) != len(tgt):
            raise DataError(
                f"{xx}: {len(src)} lines but {en.name} has {len(tgt)}; files must be line-aligned"
            )
        sets.append(ParallelSet(code, src, tgt, src_lang=code, tgt_lang="eng"))
    return sets


# --------------------------------------------------------------------------- STS


def read_sts_tsv(path: str | Path, name: str | None = None) -> StsSet:
    """Simple TSV: ``sentence1<TAB>sentence2<TAB>score`` (a non-numeric first line is a header)."""
    p = Path(path)
    s1, s2, scores = [], [], []
    for i, line in enumerate(_lines(p), start=1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) < 3:
            raise DataError(f"{p}, line {i}: expected sentence1<TAB>sentence2<TAB>score")
        if i == 1 and not _is_number(cols[2]):
            continue
        s1.append(cols[0])
        s2.append(cols[1])
        scores.append(_score(cols[2], p, i))
    return _nonempty(StsSet(name or p.stem, s1, s2, scores), p)


def read_stsb(path: str | Path, name: str | None = None) -> StsSet:
    """STS-benchmark layout: TAB-separated, columns 5–7 = score, s1, s2; extra columns ignored."""
    p = Path(path)
    s1, s2, scores = [], [], []
    with open_text(p) as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        try:
            for row in reader:
                i = reader.line_num
                if not row or not any(c.strip() for c in row):
                    continue
                if len(row) < 7:
                    raise DataError(f"{p}, line {i}: expected ≥7 TAB-separated columns")
                if i == 1 and not _is_number(row[4]):
                    continue  # header
                scores.append(_score(row[4], p, i))
                s1.append(row[5])
                s2.append(row[6])
        except UnicodeDecodeError as exc:
            raise DataError(f"{p}: not UTF-8 text ({exc})") from exc
    return _nonempty(StsSet(name or p.stem, s1, s2, scores, "en", "en"), p)


_MULTI_MT = re.compile(r"stsb-([a-z]{2,3})-(train|dev|test)\.csv$")


def read_stsb_multi_mt(path: str | Path, name: str | None = None) -> StsSet:
    """stsb-multi-mt CSV: ``sentence1,sentence2,score`` (header optional, quoted fields)."""
    p = Path(path)
    s1: list[str] = []
    s2: list[str] = []
    scores: list[float] = []
    with open_text(p) as fh:
        reader = csv.reader(fh)
        try:
            for row in reader:
                i = reader.line_num
                if not row:
                    continue
                if len(row) != 3:
                    raise DataError(f"{p}, line {i}: expected 3 CSV fields, found {len(row)}")
                if not scores and not s1 and not _is_number(row[2]):
                    continue  # header
                s1.append(row[0])
                s2.append(row[1])
                scores.append(_score(row[2], p, i))
        except csv.Error as exc:
            raise DataError(f"{p}, line {reader.line_num}: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise DataError(f"{p}: not UTF-8 text ({exc})") from exc
    m = _MULTI_MT.search(p.name)
    lang = m.group(1) if m else ""
    family = f"stsb-multi-mt-{m.group(2)}" if m else ""
    return _nonempty(StsSet(name or p.stem, s1, s2, scores, lang, lang, family), p)


def read_sts(path: str | os.PathLike[str]) -> StsSet:
    """Read an STS file, guessing the layout: STSb (≥7 TAB columns), CSV, or simple TSV."""
    p = Path(path)
    first = next((line for line in _lines(p) if line.strip()), "")
    if first.count("\t") >= 6:
        return read_stsb(p)
    if "\t" not in first and p.suffix.lower() in (".csv", ".gz"):
        return read_stsb_multi_mt(p)
    return read_sts_tsv(p)


def cross_lingual(a: StsSet, b: StsSet) -> StsSet:
    """Row-aligned cross-lingual set: sentence1 from ``a``, sentence2 from ``b`` (same row)."""
    if len(a) != len(b) or any(abs(x - y) > 1e-6 for x, y in zip(a.scores, b.scores, strict=True)):
        raise DataError(f"{a.name} and {b.name} are not row-aligned (different rows or scores)")
    name = f"{a.lang1 or a.name}-{b.lang2 or b.name}"
    return StsSet(name, a.s1, b.s2, list(a.scores), a.lang1, b.lang2, a.family)


def read_sts17(folder: str | os.PathLike[str]) -> list[StsSet]:
    """SemEval STS 2017: ``STS.input.X.txt`` (s1<TAB>s2) + ``STS.gs.X.txt`` (one score a line).

    Gold files may be shorter than the input or hold empty lines: those pairs are skipped.
    """
    root = Path(folder)
    inputs = sorted(root.glob("STS.input.*.txt"))
    if not inputs:
        raise DataError(f"{root}: no STS.input.*.txt files")
    sets = []
    for inp in inputs:
        key = inp.name[len("STS.input.") : -len(".txt")]
        gs = root / f"STS.gs.{key}.txt"
        if not gs.is_file():
            raise DataError(f"{inp}: gold file {gs.name} is missing")
        gold = _lines(gs)
        s1, s2, scores = [], [], []
        for i, line in enumerate(_lines(inp), start=1):
            if i > len(gold) or not gold[i - 1].strip():
                continue
            cols = line.split("\t")
            if len(cols) < 2:
                raise DataError(f"{inp}, line {i}: expected sentence1<TAB>sentence2")
            s1.append(cols[0])
            s2.append(cols[1])
            scores.append(_score(gold[i - 1], gs, i))
        lang = key.split(".")[-1]
        l1, _, l2 = lang.partition("-")
        sets.append(_nonempty(StsSet(f"sts17-{lang}", s1, s2, scores, l1, l2 or l1), inp))
    return sets


# --------------------------------------------------------------------------- BUCC / mining


def read_id_sentences(path: str | Path) -> dict[str, str]:
    """``id<TAB>sentence`` lines → dict (duplicate ids → ``DataError``)."""
    p = Path(path)
    out: dict[str, str] = {}
    for i, line in enumerate(_lines(p), start=1):
        if not line.strip():
            continue
        ident, sep, text = line.partition("\t")
        if not sep:
            raise DataError(f"{p}, line {i}: expected id<TAB>sentence")
        if ident in out:
            raise DataError(f"{p}, line {i}: duplicate id {ident!r}")
        out[ident] = text
    return out


def read_gold_pairs(path: str | Path) -> set[tuple[str, str]]:
    """``src_id<TAB>tgt_id`` lines → set of pairs."""
    p = Path(path)
    pairs = set()
    for i, line in enumerate(_lines(p), start=1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != 2:
            raise DataError(f"{p}, line {i}: expected src_id<TAB>tgt_id")
        pairs.add((cols[0], cols[1]))
    return pairs


_SPLITS = {"train": ("training", "train"), "test": ("test", "sample", "dev")}


def read_bucc(folder: str | os.PathLike[str]) -> list[MiningTask]:
    """BUCC layout: ``L1-L2.{training|train}.{L1,L2,gold}`` and ``L1-L2.{test|sample}.…``."""
    root = Path(folder)
    tasks = []
    pairs = sorted({p.name.split(".")[0] for p in root.glob("*-*.*.gold")})
    for pair in pairs:
        l1, _, l2 = pair.partition("-")
        found = {}
        for split, names in _SPLITS.items():
            for nm in names:
                base = root / f"{pair}.{nm}"
                if Path(f"{base}.gold").is_file():
                    found[split] = MiningSplit(
                        read_id_sentences(f"{base}.{l1}"),
                        read_id_sentences(f"{base}.{l2}"),
                        read_gold_pairs(f"{base}.gold"),
                    )
                    break
        if len(found) == 2:
            tasks.append(MiningTask(pair, found["train"], found["test"], "BUCC"))
    if not tasks:
        raise DataError(
            f"{root}: no BUCC tasks found",
            hint="expected L1-L2.training.{L1,L2,gold} and L1-L2.test.{L1,L2,gold}",
        )
    return tasks


# --------------------------------------------------------------------------- parallel TSV


def read_parallel_tsv(path: str | os.PathLike[str], limit: int | None = None) -> list[ParallelSet]:
    """``English<TAB>translation[<TAB>…]`` (``.gz`` ok) → one set per translation column."""
    p = Path(path)
    cols: list[list[str]] = []
    for i, line in enumerate(_iter_lines(p), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if not cols:
            cols = [[] for _ in parts]
        if len(parts) != len(cols):
            raise DataError(f"{p}, line {i}: {len(parts)} columns, expected {len(cols)}")
        for c, text in zip(cols, parts, strict=True):
            c.append(text)
        if limit and len(cols[0]) >= limit:
            break
    if len(cols) < 2:
        raise DataError(f"{p}: expected at least two TAB-separated columns")
    return [ParallelSet(f"{p.name}:{j}", cols[0], cols[j]) for j in range(1, len(cols))]


def _iter_lines(p: Path) -> Iterator[str]:
    with open_text(p) as fh:
        try:
            for line in fh:
                yield line.rstrip("\r\n")
        except UnicodeDecodeError as exc:
            raise DataError(f"{p}: not UTF-8 text ({exc})") from exc


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _nonempty(data: StsSet, path: Path) -> StsSet:
    if not data.scores:
        raise DataError(f"{path}: no scored sentence pairs")
    return data
