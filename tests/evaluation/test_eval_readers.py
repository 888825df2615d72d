"""Evaluation data readers on tiny files, including each format's quirks."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.engine.errors import DataError
from xlsearch.engine.evaluation import readers as R


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_language_codes_map_both_ways() -> None:
    pairs = "ar ara cs ces de deu es spa fr fra is isl it ita ja jpn ko kor nl nld pl pol "
    pairs += "pt por ru rus tr tur zh cmn"
    items = pairs.split()
    for two, three in zip(items[0::2], items[1::2], strict=True):
        assert R.to_iso3(two) == three and R.to_iso1(three) == two
    assert R.to_iso3("DEU") == "deu" and R.to_iso1("xyz") == "xyz"


def test_tatoeba_reader(tmp_path: Path) -> None:
    _write(tmp_path / "tatoeba.deu-eng.deu", "Hallo Welt\nGuten Morgen\n")
    _write(tmp_path / "tatoeba.deu-eng.eng", "Hello world\nGood morning\n")
    _write(tmp_path / "tatoeba.fra-eng.fra", "Bonjour\n")  # no .eng side: not listed
    assert R.tatoeba_languages(tmp_path) == ["deu"]
    (s,) = R.read_tatoeba(tmp_path, ["de"])
    assert (s.name, s.src) == ("deu", ["Hallo Welt", "Guten Morgen"])
    assert s.tgt == ["Hello world", "Good morning"]
    with pytest.raises(DataError, match="fra"):
        R.read_tatoeba(tmp_path, ["fr"])
    _write(tmp_path / "tatoeba.deu-eng.eng", "Hello world\n")
    with pytest.raises(DataError, match=r"tatoeba\.deu-eng\.deu: 2 lines"):
        R.read_tatoeba(tmp_path)


def test_simple_sts_tsv_with_header_and_bad_score(tmp_path: Path) -> None:
    f = _write(tmp_path / "s.tsv", "s1\ts2\tscore\nA cat.\tA dog.\t1.5\n\nRed.\tRot.\t5\n")
    data = R.read_sts_tsv(f)
    assert (data.s1, data.s2, data.scores) == (["A cat.", "Red."], ["A dog.", "Rot."], [1.5, 5.0])
    bad = _write(tmp_path / "bad.tsv", "a\tb\t1\nc\td\tlots\n")
    with pytest.raises(DataError, match=r"bad\.tsv, line 2: score 'lots'"):
        R.read_sts_tsv(bad)
    with pytest.raises(DataError, match="line 1"):
        R.read_sts_tsv(_write(tmp_path / "short.tsv", "only one column\n"))


def test_stsbenchmark_layout_extra_columns_and_quotes(tmp_path: Path) -> None:
    f = _write(
        tmp_path / "sts-test.csv",
        'main-news\tMSRvid\t2012\t0001\t2.500\t"Quoted start.\tA girl.\textra\tmore\n'
        "main-forums\tx\t2016\t0002\t4\tOne.\tTwo.\n",
    )
    data = R.read_stsb(f)
    assert data.s1 == ['"Quoted start.', "One."]
    assert data.s2 == ["A girl.", "Two."]
    assert data.scores == [2.5, 4.0]
    assert R.read_sts(f).s1 == data.s1  # layout detected from the columns
    with pytest.raises(DataError, match="line 1"):
        R.read_stsb(_write(tmp_path / "x.csv", "a\tb\tc\n"))


def test_stsb_multi_mt_csv_with_and_without_header(tmp_path: Path) -> None:
    with_header = _write(
        tmp_path / "stsb-de-test.csv",
        'sentence1,sentence2,score\n"Ein Hund, groß.",Ein Hund.,3.2\nA,B,0\n',
    )
    data = R.read_stsb_multi_mt(with_header)
    assert data.s1 == ["Ein Hund, groß.", "A"] and data.scores == [3.2, 0.0]
    assert (data.lang1, data.family) == ("de", "stsb-multi-mt-test")
    en = R.read_sts(_write(tmp_path / "stsb-en-test.csv", "A dog big.,A dog.,3.2\nA,B,0\n"))
    assert en.lang1 == "en" and en.s1 == ["A dog big.", "A"]
    cross = R.cross_lingual(en, data)
    assert (cross.name, cross.s1, cross.s2) == ("en-de", en.s1, data.s2)
    with pytest.raises(DataError, match="not row-aligned"):
        R.cross_lingual(en, R.StsSet("x", ["a"], ["b"], [1.0]))
    with pytest.raises(DataError, match="line 2: expected 3 CSV fields"):
        R.read_stsb_multi_mt(_write(tmp_path / "bad.csv", "a,b,1\na,b\n"))


def test_sts17_gold_shorter_than_input(tmp_path: Path) -> None:
    _write(tmp_path / "STS.input.en-de.txt", "a\tb\nc\td\ne\tf\ng\th\n")
    _write(tmp_path / "STS.gs.en-de.txt", "4.2\n\n1\n")  # line 2 empty, line 4 missing
    _write(tmp_path / "STS.input.track5.en-en.txt", "x\ty\n")
    _write(tmp_path / "STS.gs.track5.en-en.txt", "5\n")
    sets = {s.name: s for s in R.read_sts17(tmp_path)}
    ende = sets["sts17-en-de"]
    assert (ende.s1, ende.s2, ende.scores) == (["a", "e"], ["b", "f"], [4.2, 1.0])
    assert (ende.lang1, ende.lang2) == ("en", "de")
    assert sets["sts17-en-en"].scores == [5.0]
    _write(tmp_path / "STS.input.xx-yy.txt", "a\tb\n")
    with pytest.raises(DataError, match=r"STS\.gs\.xx-yy\.txt is missing"):
        R.read_sts17(tmp_path)


def test_bucc_layout(tmp_path: Path) -> None:
    for split in ("training", "test"):
        _write(tmp_path / f"de-en.{split}.de", "de-1\tHallo\nde-2\tKatze\n")
        _write(tmp_path / f"de-en.{split}.en", "en-1\tcat\nen-2\thello\n")
        _write(tmp_path / f"de-en.{split}.gold", "de-1\ten-2\n")
    (task,) = R.read_bucc(tmp_path)
    assert task.name == "de-en" and task.train.gold == {("de-1", "en-2")}
    assert task.test.src == {"de-1": "Hallo", "de-2": "Katze"}
    _write(tmp_path / "de-en.test.de", "de-1\tHallo\nno tab here\n")
    with pytest.raises(DataError, match=r"de-en\.test\.de, line 2"):
        R.read_bucc(tmp_path)


def test_parallel_tsv_and_missing_file(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.tsv", "cat\tKatze\tchat\ndog\tHund\tchien\n")
    sets = R.read_parallel_tsv(f)
    assert [s.tgt for s in sets] == [["Katze", "Hund"], ["chat", "chien"]]
    assert sets[0].src == ["cat", "dog"]
    with pytest.raises(DataError, match="line 2: 2 columns"):
        R.read_parallel_tsv(_write(tmp_path / "q.tsv", "a\tb\tc\nd\te\n"))
    with pytest.raises(DataError, match="cannot open"):
        R.read_sts_tsv(tmp_path / "nope.tsv")
