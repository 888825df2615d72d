"""Distillation data: TSV reading, preprocessing, bad input, dev split, sampling, cache."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from xlsearch.engine.distill.data import (
    TrainFile,
    load_parallel,
    normalize_text,
    read_tsv,
    split_dev,
)
from xlsearch.engine.distill.sampler import PairStream
from xlsearch.engine.distill.teacher_cache import TeacherCache
from xlsearch.engine.errors import DataError


def test_normalisation_unifies_quotes_dashes_and_nfkc() -> None:
    assert normalize_text("  „Hallo“ — ‘world’  ﬁne\u00a0x ") == "\"Hallo\" - 'world' fine x"
    assert normalize_text("Ｆｕｌｌ－ｗｉｄｔｈ") == "Full-width"


def test_weights_columns_filters_and_gzip(tmp_path: Path) -> None:
    p = tmp_path / "multi.tsv.gz"
    rows = [
        "Hello\tHallo\tBonjour",
        "Hello\tHallo\tBonjour",  # exact duplicate
        "Same\tSame",  # src == tgt
        "Cat\t\tChat",  # empty German side, French kept
        "",
        "Dog\tHund",  # fewer columns
        "Long " * 80 + "\tLang",
    ]
    with gzip.open(p, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(rows) + "\n")
    spec = TrainFile.parse(f"{p}:3")
    assert spec.weight == 3 and spec.path == p
    groups, rep = read_tsv(spec, 0, too_long=lambda ts: [len(t.split()) > 50 for t in ts])
    by_col = {g.column: g for g in groups}
    assert list(zip(by_col[1].src, by_col[1].tgt, strict=True)) == [
        ("Hello", "Hallo"),
        ("Dog", "Hund"),
    ]
    assert by_col[2].src == ["Hello", "Cat"] and by_col[2].tgt == ["Bonjour", "Chat"]
    assert rep.dropped["duplicate pair"] == 2 and rep.dropped["source == translation"] == 1
    assert rep.dropped["over max_seq_length tokens"] == 1 and rep.bad == 0


def test_language_from_file_name(tmp_path: Path) -> None:
    p = tmp_path / "en-de.tsv"
    p.write_text("a\tb\nc\td\n", encoding="utf-8")
    groups, _ = read_tsv(TrainFile(p), 0)
    assert groups[0].lang == "de"


@pytest.mark.parametrize("name", ["fr-mem.en-fr.tsv", "my-tm.en-fr.tsv", "tm_2024.en-fr.tsv"])
def test_language_from_the_last_pair_in_a_collection_file_name(tmp_path: Path, name: str) -> None:
    """The wizard exports a collection as ``<collection>.<src>-<tgt>.tsv``: a hyphen in the
    collection's name is not a language pair (the card said ``languages: en,mem``)."""
    p = tmp_path / name
    p.write_text("Open the file\tOuvrir le fichier\nSave\tEnregistrer\n", encoding="utf-8")
    groups, _ = read_tsv(TrainFile(p), 0)
    assert groups[0].lang == "fr"


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR" * 10, r"bin\.tsv:3: binary"),
        ("Über\tüber-set\nGrüße\tgrüß\n".encode("latin-1") * 5, r"bin\.tsv:1: not UTF-8"),
        (
            b"just one column\nanother\nok\tok2\nmore\n",
            r"bin\.tsv: mostly bad .*bin\.tsv:1: no TAB",
        ),
        (b"", r"bin\.tsv: empty file"),
        (b"\tonly translation\n\t\n", r"no usable pairs .*bin\.tsv:1: empty first"),
    ],
    ids=["binary", "latin-1", "mostly-bad", "empty", "no-source"],
)
def test_bad_files_raise_data_error_with_file_and_line(
    tmp_path: Path, content: bytes, match: str
) -> None:
    p = tmp_path / "bin.tsv"
    p.write_bytes(content)
    with pytest.raises(DataError, match=match):
        load_parallel([str(p)])


def test_a_few_bad_lines_are_counted_and_located(tmp_path: Path) -> None:
    p = tmp_path / "x.tsv"
    p.write_bytes(b"a\tb\nno tab here\nc\td\ne\t\xff\xfe\n")
    _, rep = read_tsv(TrainFile(p), 0)
    assert rep.bad == 2 and rep.pairs == 2
    assert rep.examples[0].endswith("x.tsv:2: no TAB: expected sentence<TAB>translation")
    assert "x.tsv:4: not UTF-8" in rep.examples[1]
    # the user is told (a notice line of the run), not only the model card
    assert rep.notice() == (
        f"{p}: 2 of 4 lines skipped: {p}:2: no TAB: expected sentence<TAB>translation (+1 more)"
    )
    clean = tmp_path / "ok.tsv"
    clean.write_text("a\tb\n")
    assert read_tsv(TrainFile(clean), 0)[1].notice() is None
    with pytest.raises(DataError, match="no such file"):
        load_parallel([str(tmp_path / "missing.tsv")])


def test_summary_counts_each_language_once(tmp_path: Path) -> None:
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text("".join(f"s{i}\tde{i}\tfr{i}\n" for i in range(5)), encoding="utf-8")
    b.write_text("".join(f"t{i}\tde{i}\n" for i in range(3)), encoding="utf-8")
    data = load_parallel([a, b], dev_per_lang=0)
    for g, lang in zip(data.groups, ["de", "fr", "de"], strict=True):
        g.lang = lang  # German in a.tsv's first column and in b.tsv
    assert data.summary() == "13 pairs (8 de, 5 fr)"  # was "(5 de, 5 fr, 3 de)"


def test_dev_split_holds_out_per_language_without_source_leakage(tmp_path: Path) -> None:
    p = tmp_path / "en-fr.tsv"
    p.write_text("".join(f"s{i % 150}\tt{i}\n" for i in range(300)), encoding="utf-8")
    data = load_parallel([str(p)], dev_per_lang=20)
    (train,), (dev,) = data.groups, data.dev
    assert len(dev.src) == 20 and not set(dev.src) & set(train.src)
    train2, dev2 = split_dev(load_parallel([str(p)], dev_per_lang=0).groups, 20, seed=0)
    assert dev2[0].src == dev.src  # deterministic for a seed


def test_stream_is_deterministic_weighted_and_resumable() -> None:
    s = PairStream([5, 50], [1, 2], seed=3)
    g, i = s.take(0, 300)
    assert (g == 0).sum() == 100 and (g == 1).sum() == 200  # per-round weights, small repeated
    g2, i2 = s.take(120, 60)
    np.testing.assert_array_equal(g[120:180], g2)
    np.testing.assert_array_equal(i[120:180], i2)
    first_pass = i[:15][g[:15] == 0]
    assert sorted(first_pass.tolist()) == [0, 1, 2, 3, 4]  # a permutation per pass


class _FakeEncoder:
    dim = 4

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls += len(texts)
        v = np.array([[len(t), t.count("a"), 1.0, 0.5] for t in texts], np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_teacher_cache_reuses_rows_and_survives_a_torn_append(tmp_path: Path) -> None:
    enc = _FakeEncoder()
    cache = TeacherCache(tmp_path / "c", 4, "fake")
    texts = ["banana", "apple", "kiwi", "banana"]
    stats = cache.ensure(texts, enc)
    assert stats["encoded"] == 3 and len(cache) == 3
    again = TeacherCache(tmp_path / "c", 4)
    assert again.ensure(["kiwi", "apple"], enc)["encoded"] == 0 and enc.calls == 3
    np.testing.assert_allclose(again.get(["apple"]), enc.encode(["apple"]), atol=1e-3)
    assert again.rows(["nope"])[0] == -1
    with open(tmp_path / "c" / "vectors.f16", "ab") as fh:  # a killed writer's partial row
        fh.write(b"\x01\x02\x03")
    again.ensure(["pear"], enc)
    fresh = TeacherCache(tmp_path / "c", 4)
    np.testing.assert_allclose(fresh.get(["pear", "kiwi"]), enc.encode(["pear", "kiwi"]), atol=1e-3)


def test_teacher_cache_creation_never_resets_a_filled_cache(tmp_path: Path) -> None:
    """Two processes may open a new cache at once (DDP ranks): the late creator must not
    overwrite the row count the other one already committed."""
    enc = _FakeEncoder()
    cache = TeacherCache(tmp_path / "c", 4, "fake")
    cache.ensure(["banana", "apple"], enc)
    late = object.__new__(TeacherCache)  # as if it had seen no meta.json a moment ago
    late.folder, late.dim, late.meta_path = cache.folder, 4, cache.meta_path
    late._create_meta("fake")
    assert len(TeacherCache(tmp_path / "c", 4)) == 2
    assert not list(cache.folder.glob("*.tmp"))  # no temporary file left behind
