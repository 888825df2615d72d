"""Parallel TSV data for distillation: reading, Ham & Kim preprocessing, filters, dev split.

Format: column 1 a sentence in the teacher's language, every further column a translation
(rows may differ in column count); plain or gzip; each file may carry an integer weight
(``file.tsv.gz:2``). Bad lines are counted and reported as ``file:line``; a file that is
binary, not UTF-8, empty or mostly bad raises ``DataError`` before any training starts.
Monolingual files (``--mono``: one sentence per line, any language — for a multilingual
teacher) become groups whose two sides are the same sentence (``Group.mono``).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xlsearch.engine.errors import DataError

# Ham & Kim 2021 preprocessing: one symbol each for the many quotes, hyphens and dashes.
_CHAR_MAP = str.maketrans(
    {
        **dict.fromkeys("“”„‟«»〝〞〟＂❝❞⹂", '"'),
        **dict.fromkeys("‘’‚‛‹›`´′❛❜", "'"),
        **dict.fromkeys("‐‑‒–—―⁃−﹘﹣－⸺⸻", "-"),
    }
)
_SPACES = re.compile(r"\s+")
_LANG_IN_NAME = re.compile(r"(?<![a-z])([a-z]{2,3})[-_]([a-z]{2,3})(?![a-z])")
MAX_BAD_FRACTION = 0.5  # a file with more bad lines than this stops before training
SNIFF_BYTES = 1 << 16


def normalize_text(text: str) -> str:
    """NFKC, unified quotes/hyphens/dashes, collapsed whitespace, stripped."""
    text = unicodedata.normalize("NFKC", text).translate(_CHAR_MAP)
    return _SPACES.sub(" ", text).strip()


def text_key(text: str) -> int:
    """A 64-bit hash of ``text`` (the teacher-cache key)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


@dataclass(frozen=True)
class TrainFile:
    """One ``--train`` argument: a path and its sampling weight."""

    path: Path
    weight: int = 1

    @classmethod
    def parse(cls, spec: str | Path) -> TrainFile:
        """``a.tsv`` → weight 1; ``b.tsv.gz:2`` → weight 2 (a weight is a positive integer)."""
        text = str(spec)
        head, sep, tail = text.rpartition(":")
        if sep and tail.isdigit() and head:
            if int(tail) < 1:
                raise DataError(f"{text}: the weight after ':' must be a positive integer")
            return cls(Path(head), int(tail))
        return cls(Path(text), 1)


@dataclass
class FileReport:
    """What reading one file found: usable pairs and the bad lines (first few located)."""

    path: Path
    lines: int = 0
    pairs: int = 0
    bad: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    cleaned: list[tuple[str, str, str, str]] = field(default_factory=list)
    """Pairs ``--clean`` left out: (kind, why, source, target)."""

    def add_bad(self, line: int, why: str) -> None:
        self.bad += 1
        if len(self.examples) < 5:
            self.examples.append(f"{self.path}:{line}: {why}")

    def drop(self, why: str, n: int = 1) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + n

    def notice(self) -> str | None:
        """One line for the user when lines were skipped (bad, first located), else None."""
        if not self.bad:
            return None
        more = f" (+{self.bad - 1:,} more)" if self.bad > 1 else ""
        return (
            f"{self.path}: {self.bad:,} of {self.lines:,} lines skipped: {self.examples[0]}{more}"
        )


@dataclass
class Group:
    """The pairs of one (file, translation column): one target language."""

    file: int
    column: int
    lang: str
    src: list[str] = field(default_factory=list)
    tgt: list[str] = field(default_factory=list)
    mono: bool = False  # monolingual sentences: tgt is src, the teacher embeds them itself


def _open_lines(path: Path) -> Iterator[bytes]:
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    with open(path, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    is_gzip = head[:2] == b"\x1f\x8b"
    if is_gzip:
        try:
            with gzip.open(path, "rb") as fh:
                head = fh.read(SNIFF_BYTES)
        except (OSError, EOFError) as exc:
            raise DataError(f"{path}:1: corrupt gzip file ({exc})") from exc
    if b"\x00" in head:
        line = head[: head.index(b"\x00")].count(b"\n") + 1
        raise DataError(
            f"{path}:{line}: binary data (NUL byte); expected UTF-8 TSV text",
            hint="one pair per line: sentence<TAB>translation[<TAB>translation…]",
        )
    try:
        with gzip.open(path, "rb") if is_gzip else open(path, "rb") as fh:
            yield from fh
    except (OSError, EOFError) as exc:
        raise DataError(f"{path}: unreadable ({exc})") from exc


def guess_lang(path: Path, column: int, ncols: int, sample: list[str]) -> str:
    """Target language of a column: from ``en-de.tsv`` style names (the last such pair, so
    that ``fr-mem.en-fr.tsv`` reads ``fr``, not ``mem``), else py3langid."""
    name = path.name.lower()
    found = list(_LANG_IN_NAME.finditer(name))
    if found and ncols == 2:
        return found[-1].group(2)
    if sample:
        try:
            from collections import Counter

            import py3langid

            votes = Counter(py3langid.classify(s)[0] for s in sample[:200])
            return votes.most_common(1)[0][0]
        except Exception:  # pragma: no cover - langid is optional here
            pass
    return f"{path.stem.split('.')[0]}#{column}"


def read_tsv(
    train: TrainFile, index: int, *, too_long: Callable[[list[str]], list[bool]] | None = None
) -> tuple[list[Group], FileReport]:
    """Read one TSV into groups (one per translation column), normalised and filtered.

    ``too_long(texts)`` flags texts over the token limit (both sides are checked).
    Raises ``DataError`` for binary / non-UTF-8 / empty / mostly-bad files.
    """
    from xlsearch.engine.importers.tabular import header_languages

    report = FileReport(train.path)
    groups: dict[int, Group] = {}
    named: list[str | None] | None = None  # a header's column languages (None: a score)
    first_bad_decode: int | None = None
    for lineno, raw in enumerate(_open_lines(train.path), start=1):
        report.lines = lineno
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            first_bad_decode = first_bad_decode or lineno
            report.add_bad(lineno, f"not UTF-8 ({exc.reason} at byte {exc.start})")
            continue
        line = line.rstrip("\r\n")
        if lineno == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if not line.strip():
            report.drop("blank line")
            continue
        cols = line.split("\t")
        if lineno == 1 and (named := header_languages(cols)) is not None:
            if named[0]:  # en<TAB>de[<TAB>score]: the columns' languages, a score no text
                continue
            named = None  # the first column is no language: no distillation header
        if len(cols) < 2:
            report.add_bad(lineno, "no TAB: expected sentence<TAB>translation")
            continue
        src = normalize_text(cols[0])
        if not src:
            report.add_bad(lineno, "empty first column")
            continue
        for c, tgt_raw in enumerate(cols[1:], start=1):
            if named is not None and (c >= len(named) or named[c] is None):
                continue
            tgt = normalize_text(tgt_raw)
            if not tgt:
                report.drop("empty side")
                continue
            if tgt == src:
                report.drop("source == translation")
                continue
            g = groups.setdefault(c, Group(index, c, ""))
            g.src.append(src)
            g.tgt.append(tgt)
    if report.lines == 0:
        raise DataError(f"{train.path}: empty file", hint="expected sentence<TAB>translation lines")
    if first_bad_decode is not None and report.bad > MAX_BAD_FRACTION * report.lines:
        raise DataError(
            f"{train.path}:{first_bad_decode}: not UTF-8 text "
            f"({report.bad:,} of {report.lines:,} lines undecodable)",
            hint="convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)",
        )
    if report.bad > MAX_BAD_FRACTION * report.lines:
        raise DataError(
            f"{train.path}: mostly bad ({report.bad:,} of {report.lines:,} lines), e.g. "
            + "; ".join(report.examples[:3]),
            hint="one pair per line: sentence<TAB>translation[<TAB>translation…]",
        )
    out: list[Group] = []
    ncols = max(groups, default=0) + 1
    for c in sorted(groups):
        g = groups[c]
        _dedupe_and_limit(g, report, too_long)
        if g.src:
            g.lang = (named[c] if named else None) or guess_lang(train.path, c, ncols, g.tgt)
            out.append(g)
            report.pairs += len(g.src)
    if report.pairs == 0:
        raise DataError(
            f"{train.path}: no usable pairs in {report.lines:,} lines"
            + (" (e.g. " + "; ".join(report.examples[:3]) + ")" if report.examples else ""),
        )
    return out, report


_MONO_LANG = re.compile(r"(?:^|[._-])([a-z]{2,3})$")
_EXTENSIONS = {"txt", "gz", "tsv", "text", "mono"}


def read_mono(
    train: TrainFile, index: int, *, too_long: Callable[[list[str]], list[bool]] | None = None
) -> tuple[list[Group], FileReport]:
    """One sentence per line (first TAB column if any), any language: one ``mono`` group.

    Language: the last 2–3-letter part of the name (``news.de.txt``, ``mono-ko.gz``), else
    py3langid's majority over the first lines. Same checks as ``read_tsv``.
    """
    report = FileReport(train.path)
    sents: list[str] = []
    seen: set[str] = set()
    for lineno, raw in enumerate(_open_lines(train.path), start=1):
        report.lines = lineno
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            report.add_bad(lineno, f"not UTF-8 ({exc.reason} at byte {exc.start})")
            continue
        text = normalize_text(line.lstrip("\ufeff").split("\t", 1)[0])
        if not text:
            report.drop("blank line")
        elif text in seen:
            report.drop("duplicate sentence")
        else:
            seen.add(text)
            sents.append(text)
    if report.lines == 0:
        raise DataError(f"{train.path}: empty file", hint="expected one sentence per line")
    if report.bad > MAX_BAD_FRACTION * report.lines:
        raise DataError(
            f"{train.path}: mostly bad ({report.bad:,} of {report.lines:,} lines), e.g. "
            + "; ".join(report.examples[:3]),
            hint="convert the file to UTF-8 text, one sentence per line",
        )
    if too_long is not None and sents:
        ok = [not x for x in too_long(sents)]
        if len(ok) - sum(ok):
            report.drop("over max_seq_length tokens", len(ok) - sum(ok))
            sents = [s for s, k in zip(sents, ok, strict=True) if k]
    if not sents:
        raise DataError(f"{train.path}: no usable sentences in {report.lines:,} lines")
    stem = ".".join(p for p in train.path.name.lower().split(".") if p not in _EXTENSIONS)
    m = _MONO_LANG.search(stem)
    lang = m.group(1) if m else guess_lang(train.path, 0, 0, sents)
    report.pairs = len(sents)
    return [Group(index, 0, lang, sents, sents, mono=True)], report


def _dedupe_and_limit(
    g: Group, report: FileReport, too_long: Callable[[list[str]], list[bool]] | None
) -> None:
    seen: set[tuple[str, str]] = set()
    keep = []
    for i, pair in enumerate(zip(g.src, g.tgt, strict=True)):
        if pair in seen:
            report.drop("duplicate pair")
            continue
        seen.add(pair)
        keep.append(i)
    src = [g.src[i] for i in keep]
    tgt = [g.tgt[i] for i in keep]
    if too_long is not None:
        long_src = too_long(src)
        long_tgt = too_long(tgt)
        ok = [not (a or b) for a, b in zip(long_src, long_tgt, strict=True)]
        n_long = len(ok) - sum(ok)
        if n_long:
            report.drop("over max_seq_length tokens", n_long)
            src = [s for s, k in zip(src, ok, strict=True) if k]
            tgt = [t for t, k in zip(tgt, ok, strict=True) if k]
    g.src, g.tgt = src, tgt


@dataclass
class ParallelData:
    """All training groups (per file and column) plus the held-out dev pairs per group."""

    files: list[TrainFile]
    groups: list[Group]
    dev: list[Group]
    reports: list[FileReport]

    @property
    def languages(self) -> list[str]:
        return sorted({g.lang for g in self.groups})

    @property
    def n_pairs(self) -> int:
        return sum(len(g.src) for g in self.groups)

    def all_texts(self) -> Iterator[str]:
        """Every sentence on every side (train and dev) — the vocabulary's corpus."""
        for g in [*self.groups, *self.dev]:
            yield from g.src
            yield from g.tgt

    def source_texts(self) -> list[str]:
        """Unique teacher-language sentences (train + dev), in first-seen order."""
        return list(dict.fromkeys(s for g in [*self.groups, *self.dev] for s in g.src))

    def summary(self) -> str:
        """``1,200 pairs (600 de, 600 fr)``: one count per language (columns or files with
        the same language added up, not listed twice)."""
        counts: dict[str, int] = {}
        for g in self.groups:
            label = g.lang + (" mono" if g.mono else "")
            counts[label] = counts.get(label, 0) + len(g.src)
        parts = [f"{n:,} {label}" for label, n in counts.items()]
        return f"{self.n_pairs:,} pairs ({', '.join(parts)})"


def split_dev(groups: list[Group], per_group: int, seed: int) -> tuple[list[Group], list[Group]]:
    """Hold out ``per_group`` pairs of each group (at most 10% of it) whose source sentence
    is not used for training (no leakage through shared English sides)."""
    dev: list[Group] = []
    train: list[Group] = []
    for g in groups:
        n_dev = min(per_group, len(g.src) // 10)
        rng = np.random.default_rng([seed, g.file, g.column])
        pick = set(rng.permutation(len(g.src))[:n_dev].tolist()) if n_dev else set()
        dev_src = {g.src[i] for i in pick}
        d = Group(g.file, g.column, g.lang)
        t = Group(g.file, g.column, g.lang)
        for i, (s, x) in enumerate(zip(g.src, g.tgt, strict=True)):
            target = d if i in pick else (None if s in dev_src else t)
            if target is not None:
                target.src.append(s)
                target.tgt.append(x)
        train.append(t)
        if d.src:
            dev.append(d)
    return train, dev


def load_parallel(
    specs: list[str | Path | TrainFile],
    *,
    dev_per_lang: int = 1000,
    dev_file: str | Path | None = None,
    langs: list[str] | None = None,
    too_long: Callable[[list[str]], list[bool]] | None = None,
    seed: int = 0,
    mono: list[str | Path | TrainFile] | None = None,
    clean: bool = False,
) -> ParallelData:
    """Read every training file (all checked before returning) and split off the dev set.

    ``mono`` files are added to the training groups after the split (never to dev).
    ``clean``: drop the training pairs the model-free checks flag (``qa.clean``: copies,
    other-language targets, misaligned pairs, length outliers, lost placeholders), counted
    and listed in the reports."""
    files = [s if isinstance(s, TrainFile) else TrainFile.parse(s) for s in specs]
    if not files:
        raise DataError("no training files given", hint="--train a.tsv [b.tsv.gz:2 …]")
    groups: list[Group] = []
    reports: list[FileReport] = []
    for i, f in enumerate(files):
        gs, rep = read_tsv(f, i, too_long=too_long)
        groups.extend(gs)
        reports.append(rep)
    if langs:
        wanted = set(langs)
        groups = [g for g in groups if g.lang in wanted]
        if not groups:
            raise DataError(f"no training pairs for languages {sorted(wanted)}")
    if dev_file is not None:
        dev, rep = read_tsv(TrainFile.parse(dev_file), -1, too_long=too_long)
        dev_src = {s for g in dev for s in g.src}
        for g in groups:
            keep = [i for i, s in enumerate(g.src) if s not in dev_src]
            g.src = [g.src[i] for i in keep]
            g.tgt = [g.tgt[i] for i in keep]
        train = [g for g in groups if g.src]
    else:
        train, dev = split_dev(groups, dev_per_lang, seed)
    if clean:
        from xlsearch.engine.qa.clean import find_noisy

        for g in train:
            noisy = find_noisy(g.src, g.tgt, "en", g.lang)
            for i in sorted(noisy.kind):
                reports[g.file].cleaned.append((noisy.kind[i], noisy.why[i], g.src[i], g.tgt[i]))
            g.src = [x for x, k in zip(g.src, noisy.keep, strict=True) if k]
            g.tgt = [x for x, k in zip(g.tgt, noisy.keep, strict=True) if k]
            for why, n in noisy.counts().items():
                reports[g.file].drop(f"--clean: {why}", n)
    for spec in mono or []:
        f = spec if isinstance(spec, TrainFile) else TrainFile.parse(spec)
        gs, mrep = read_mono(f, len(files), too_long=too_long)
        files.append(f)
        reports.append(mrep)
        held_out = {t for g in dev for t in (*g.src, *g.tgt)}
        for g in gs:
            g.src = g.tgt = [s for s in g.src if s not in held_out]
            if g.src and (not langs or g.lang in langs):
                train.append(g)
    if dev_file is not None:
        reports.append(rep)
    return ParallelData(files, train, dev, reports)


def write_clean_report(path: str | Path, reports: list[FileReport]) -> int:
    """Every pair ``--clean`` left out, as TSV (file, kind, why, source, target); how many."""
    rows = [
        "\t".join(" ".join(x.split()) for x in (str(r.path), *c))
        for r in reports
        for c in r.cleaned
    ]
    text = "file\tkind\twhy\tsource\ttarget\n" + "".join(f"{row}\n" for row in rows)
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise DataError(
            f"{path}: cannot write the --clean report ({exc.strerror or exc})",
            hint="give --clean-report a file in a folder you can write to",
        ) from exc
    return len(rows)
