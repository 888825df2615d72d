"""TSVs xlsearch itself writes come back in as text of their languages only: ``search --out
hits.tsv`` (rank, score, the languages, collection, document) was imported as six segments a
row — "1", "0.7972", "tm", "memory.tmx" among them."""

from __future__ import annotations

from pathlib import Path

from helpers.importing import read, write

HITS = (
    "rank\tscore\ten\tde\tcollection\tdocument\n"
    "1\t0.7972\tRestart the router after the update.\tStarten Sie den Router nach dem Update "
    "neu.\ttm\tmemory.tmx\n"
    "2\t0.2884\tPress the power button for 5 seconds.\tHalten Sie die Ein-/Aus-Taste 5 "
    "Sekunden lang gedrückt.\ttm\tmemory.tmx\n"
)


def test_a_search_hits_tsv_imports_its_language_columns_only(tmp_path: Path) -> None:
    rows, ctx = read(write(tmp_path, "hits.tsv", HITS))
    assert [(tu, lang, text[:12]) for tu, lang, text in rows] == [
        (0, "en", "Restart the "),
        (0, "de", "Starten Sie "),
        (1, "en", "Press the po"),
        (1, "de", "Halten Sie d"),
    ]
    assert not ctx.warnings


def test_a_header_is_language_codes_and_xlsearch_s_own_column_names() -> None:
    """``distill`` reads column 1 as the teacher's language: a header whose first column is
    no language is no distillation header (its row is data, as before)."""
    from xlsearch.engine.importers.tabular import header_languages

    assert header_languages(HITS.splitlines()[0].split("\t")) == [
        None, None, "en", "de", None, None
    ]  # fmt: skip
    assert header_languages(["score", "en"]) is None  # one language beside a score
    assert header_languages(["Rank", "Yes"]) is None  # a word, not a language
