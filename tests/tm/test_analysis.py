"""Analysis: CAT bands, repetitions, the semantic band; pre-translation; ``xlsearch analyze``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.memory import write_tmx, write_xliff
from lxml import etree

from xlsearch.engine.tm.analysis.analyze import analyze
from xlsearch.engine.tm.analysis.pretranslate import drafts_kept, pretranslate
from xlsearch.engine.tm.analysis.results import band_of
from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.matching.lookup import Lookup

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"

MEMORY = [
    ("the big dog sleeps", "der große hund schläft"),
    ("the cat runs", "die katze läuft"),
    ("the big red house and the small green tree", "das große rote haus und der kleine grüne baum"),
]
# segment → expected band (bag-of-words tiny model: a shuffled sentence has cosine 1)
DOC = [
    ("the big dog sleeps", "100%"),
    ("The big dog sleeps", "95-99%"),
    ("the big red house and the small green trees", "85-94%"),
    ("the big dog sleeps now", "75-84%"),
    ("the black cat runs fast", "50-74%"),
    ("hello world", "no match"),
    ("hello world", "repetitions"),
    ("sleeps dog big the", "no match"),
]


def _store(tmp_path: Path, model: Path):
    from xlsearch.engine.index.manager import build_index
    from xlsearch.engine.models.encoder import load_encoder
    from xlsearch.engine.store import Store

    enc = load_encoder(str(model))
    store = Store()
    store.import_file(write_tmx(tmp_path / "tm.tmx", MEMORY), "tm")
    build_index(store, enc, "tm")
    return store, enc


def test_band_edges() -> None:
    assert [band_of(f) for f in (100, 99, 95, 94, 85, 84, 75, 74, 50, 49, 0)] == [
        "100%", "95-99%", "95-99%", "85-94%", "85-94%", "75-84%", "75-84%",
        "50-74%", "50-74%", "no match", "no match",
    ]  # fmt: skip


def test_analysis_bands_repetitions_semantic_band_and_pretranslation(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    store, enc = _store(tmp_path, tiny_static_model)
    doc = open_document(write_xliff(tmp_path / "doc.xlf", [s for s, _ in DOC]))
    rep = analyze(doc, Lookup(store, enc, collection="tm"), threshold=0.95)
    assert [s.band for s in rep.segments] == [band for _, band in DOC]
    rows = {r["band"]: r for r in rep.table()}
    assert rows["100%"]["segments"] == 1 and rows["100%"]["words"] == 4
    assert rows["repetitions"] == {"band": "repetitions", "segments": 1, "words": 2, "percent": 5.7}
    assert rows["total"]["segments"] == 8 and rows["total"]["words"] == 35
    # the band no CAT tool has: no fuzzy ≥ 75 %, but a semantic match above the threshold
    sem = rep.semantic_segments()
    assert [(s.source, s.semantic.source) for s in sem] == [
        ("sleeps dog big the", "the big dog sleeps")
    ]
    assert rows["semantic"]["segments"] == 1
    md = rep.to_markdown()
    assert "| 85-94% | 1 | 9 |" in md and "sleeps dog big the" in md
    n = pretranslate(doc, rep)
    # 100, 99, 88, 80 from fuzzy matches; 50-74 and no match stay empty, and so does the
    # semantic one: the model has no fill calibration, so it is a suggestion
    # (tests/tm/test_fill_policy.py writes it with one)
    assert n == 4
    assert [s.origin for s in doc.segments] == ["fuzzy"] * 4 + ["", "", "", ""]
    assert "der große hund schläft (suggestion)" in md
    store.close()


def test_cli_analyze_writes_report_and_pretranslated_xliff(
    tmp_path: Path, tiny_static_model: Path, capsys
) -> None:
    from xlsearch.cli import main
    from xlsearch.engine.models.catalog import set_active_model

    store, _enc = _store(tmp_path, tiny_static_model)
    store.close()
    set_active_model(str(tiny_static_model))
    src = write_xliff(tmp_path / "doc.xlf", [s for s, _ in DOC])
    out, report = tmp_path / "job" / "pre.xlf", tmp_path / "reports" / "r.json"  # new folders
    argv = ["analyze", str(src), "--collection", "tm", "--report", str(report), "--out", str(out)]
    assert main([*argv, "--threshold", "0.99"]) == 0
    printed = capsys.readouterr()
    assert "| 100% | 1 | 4 |" in printed.out and "pre-translated 4 of 8" in printed.err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [r["band"] for r in data["bands"]][:7] == [
        "101%",
        "100%",
        "95-99%",
        "85-94%",
        "75-84%",
        "50-74%",
        "no match",
    ]
    ns = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
    targets = etree.parse(str(out)).getroot().findall(".//x:trans-unit/x:target", ns)
    assert len(targets) == 4 and all(t.get("state") == "needs-review-translation" for t in targets)
    assert main(["analyze", str(tmp_path / "missing.xlf")]) == 2


def test_cli_analyze_quiet_prints_no_progress(tmp_path: Path, tiny_static_model: Path, capsys):
    from xlsearch.cli import main
    from xlsearch.engine.models.catalog import set_active_model

    _store(tmp_path, tiny_static_model)[0].close()
    set_active_model(str(tiny_static_model))
    src = write_xliff(tmp_path / "doc.xlf", [s for s, _ in DOC])
    assert main(["analyze", str(src), "--collection", "tm"]) == 0
    assert "lookup:" in capsys.readouterr().err  # the progress lines a log gets
    assert main(["analyze", str(src), "--collection", "tm", "-q"]) == 0
    printed = capsys.readouterr()
    assert "lookup:" not in printed.err and "| 100% |" in printed.out


def test_cli_analyze_report_of_an_unknown_kind_is_refused_before_work(tmp_path: Path, capsys):
    from xlsearch.cli import main

    rc = main(["analyze", str(tmp_path / "job.xlf"), "--fuzzy-only", "--report", "r.pdf"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "r.pdf" in err and "report.md" in err and "Traceback" not in err
    assert not (tmp_path / "r.pdf").exists()


def test_cli_pretranslation_without_a_target_language_is_refused_before_work(
    tmp_path: Path, capsys
) -> None:
    """An XLIFF whose ``<file>`` has no target-language pre-translated 0 segments and wrote a
    useless copy (``de → ?``), exit 0: now a one-line error with the fix, nothing written."""
    from xlsearch.cli import main

    src = write_xliff(tmp_path / "job.xlf", ["the big dog sleeps"])
    src.write_text(src.read_text().replace(' target-language="de"', ""), encoding="utf-8")
    out = tmp_path / "pre.xlf"
    assert main(["analyze", str(src), "--fuzzy-only", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "job.xlf" in err and "target language" in err and "--tgt" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_cli_a_text_file_under_another_extension_is_read_with_format(
    tmp_path: Path, tiny_static_model: Path, capsys
) -> None:
    """``analyze segments.lst`` said "(or pass --format)", but analyze had no --format option."""
    from xlsearch.cli import main

    store, _enc = _store(tmp_path, tiny_static_model)
    store.close()
    notes = tmp_path / "segments.lst"
    notes.write_text("the big dog sleeps\n", encoding="utf-8")
    assert main(["analyze", str(notes), "--src", "en", "--tgt", "de", "--fuzzy-only"]) == 2
    assert "--format text" in capsys.readouterr().err
    argv = ["analyze", str(notes), "--format", "text", "--src", "en", "--tgt", "de"]
    assert main([*argv, "--fuzzy-only"]) == 0
    assert "| 100% | 1 | 4 |" in capsys.readouterr().out


def test_cli_pretranslation_leaves_locked_trados_segments_alone(
    tmp_path: Path, tiny_static_model: Path, capsys
) -> None:
    """A segment locked in Trados (``sdl:seg locked="true"``) was pre-translated like any
    other: the translator's CAT tool then shows a changed locked segment."""
    from xlsearch.cli import main

    store, _enc = _store(tmp_path, tiny_static_model)
    store.close()
    job = tmp_path / "job.sdlxliff"
    job.write_text(
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" '
        'xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0"><file original="a" '
        'source-language="en" target-language="de" datatype="x"><body><trans-unit id="1">'
        "<source>the big dog sleeps the cat runs</source><seg-source>"
        '<mrk mtype="seg" mid="1">the big dog sleeps</mrk> <mrk mtype="seg" mid="2">the cat runs'
        '</mrk></seg-source><target><mrk mtype="seg" mid="1"/> <mrk mtype="seg" mid="2"/>'
        '</target><sdl:seg-defs><sdl:seg id="1" locked="true"/><sdl:seg id="2"/></sdl:seg-defs>'
        "</trans-unit></body></file></xliff>",
        encoding="utf-8",
    )
    out = tmp_path / "pre.sdlxliff"
    assert main(["analyze", str(job), "--fuzzy-only", "--out", str(out)]) == 0
    assert "pre-translated 1 of 2" in capsys.readouterr().err
    marks = etree.parse(str(out)).getroot().findall(".//{*}target/{*}mrk")
    assert [m.text for m in marks] == [None, "die katze läuft"]


def test_cli_out_in_another_format_than_the_document_is_refused_before_work(
    tmp_path: Path, capsys
) -> None:
    """``analyze job.xlf --out job.po`` wrote XLIFF into a file named .po (exit 0)."""
    from xlsearch.cli import main

    src = write_xliff(tmp_path / "job.xlf", ["the big dog sleeps"])
    for name in ("pre.po", "pre.docx"):
        assert main(["analyze", str(src), "--fuzzy-only", "--out", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert name in err and ".xlf" in err and "Traceback" not in err
        assert not (tmp_path / name).exists()


def test_a_tag_only_segment_does_not_stop_the_analysis(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    """A Trados segment holding only a tag (a picture, a line break) made the whole analysis
    fail: "the segment to look up is empty". It is counted, with no words and no match."""
    store, enc = _store(tmp_path, tiny_static_model)
    doc = open_document(write_xliff(tmp_path / "job.xlf", ['<x id="1"/>', "the big dog sleeps"]))
    report = analyze(doc, Lookup(store, enc, collection="tm"))
    assert [(r.band, r.words) for r in report.segments] == [("no match", 0), ("100%", 4)]
    assert pretranslate(doc, report) == 1 and doc.segments[0].target == ""
    store.close()


def test_a_target_that_is_a_copy_of_the_source_in_state_new_is_pretranslated(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    """memoQ and Trados export targets copied from the source with state="new" (2.0:
    "initial"): pre-translation kept them as if translated, and filled nothing."""
    store, enc = _store(tmp_path, tiny_static_model)
    house = MEMORY[2][0]  # a draft in the translator's words (no source copy) is kept
    path = write_xliff(tmp_path / "job.xlf", ["the big dog sleeps", "the cat runs", house])
    text = path.read_text(encoding="utf-8")
    text = (
        text.replace(
            "<source>the big dog sleeps</source>",
            '<source>the big dog sleeps</source><target state="new">the big dog sleeps</target>',
        )
        .replace(
            "<source>the cat runs</source>",
            '<source>the cat runs</source><target state="translated">die Katze rennt</target>',
        )
        .replace(
            f"<source>{house}</source>",
            f'<source>{house}</source><target state="needs-translation">ein rotes Haus</target>',
        )
    )
    path.write_text(text, encoding="utf-8")
    doc = open_document(path)
    report = analyze(doc, Lookup(store, enc, collection="tm"))
    assert pretranslate(doc, report) == 1 and report.segments[2].fuzzy == 100
    got = [s.target for s in doc.segments]
    assert got == ["der große hund schläft", "die Katze rennt", "ein rotes Haus"]
    assert drafts_kept(doc) == 1  # analyze --out names it, and --overwrite
    store.close()


def test_a_tagged_segment_is_never_an_exact_match_of_untagged_memory_text(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    """A memory segment without the new segment's inline codes gives a target that lacks
    them: like a CAT tool's tag penalty, that is 99 % (``fuzzy-match``), never
    ``exact-match``."""
    store, enc = _store(tmp_path, tiny_static_model)
    path = tmp_path / "job.xlf"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="d" source-language="en" '
        'target-language="de" datatype="plaintext"><body>'
        '<trans-unit id="1"><source>the <g id="1">cat</g> runs</source></trans-unit>'
        '<trans-unit id="2"><source>the big dog sleeps</source></trans-unit>'
        "</body></file></xliff>",
        encoding="utf-8",
    )
    doc = open_document(path)
    report = analyze(doc, Lookup(store, enc, collection="tm"))
    assert [(r.fuzzy, r.band) for r in report.segments] == [(99, "95-99%"), (100, "100%")]
    pretranslate(doc, report)
    out = doc.save(tmp_path / "pre.xlf")
    ns = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
    root = etree.parse(str(out)).getroot()
    quals = [t.get("state-qualifier") for t in root.findall(".//x:trans-unit/x:target", ns)]
    alts = [a.get("match-quality") for a in root.findall(".//x:alt-trans", ns)]
    assert (quals, alts) == (["fuzzy-match", "exact-match"], ["99", "100"])
    store.close()


def test_report_lists_written_matches_to_check_numbers_tags_other_translations(
    tmp_path: Path, tiny_static_model: Path, capsys
) -> None:
    """A fuzzy match is written as it stands: "every 6 months" got "alle 3 Monate". The
    lookup flags it (numbers: new 6 · stored 3) and the JSON report had it, but the Markdown
    report a translator reads listed only placeholder problems. It now lists the matches to
    check — and a 100 % match whose source the memory also translates otherwise (a CAT
    tool's ambiguous exact match); a match without a difference is not listed."""
    from xlsearch.cli import main
    from xlsearch.engine.store import Store

    store = Store()
    memory = [
        ("descale the machine every 3 months", "entkalken sie die maschine alle 3 monate"),
        ("the grinder has 12 levels and a timer", "das mahlwerk hat 12 stufen und einen timer"),
        ("use only fresh cold water", "verwenden sie nur frisches kaltes wasser"),
        ("use only fresh cold water", "verwenden sie nur frisches kaltes wasser"),
        ("use only fresh cold water", "nur frisches kaltes wasser verwenden"),
        ("press start to begin", "drücken sie start, um zu beginnen"),
    ]
    store.import_file(write_tmx(tmp_path / "tm.tmx", memory), "tm")
    store.close()
    job = write_xliff(
        tmp_path / "job.xlf",
        [
            "descale the machine every 6 months",
            "the grinder has 15 levels and a timer",
            "use only fresh cold water",
            "use only fresh warm water",
            "press start to begin",
        ],
    )
    report, out = tmp_path / "job.md", tmp_path / "job.de.xlf"
    argv = ["analyze", str(job), "-c", "tm", "--fuzzy-only", "--report", str(report)]
    assert main([*argv, "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    text = report.read_text("utf-8")
    title = "## Repaired, substituted and in-context matches, matches whose numbers or tags"
    assert title in text
    section = text.split(title)[1].split("\n## ")[0]
    # a source that differs only in its numbers: the target's numbers are repaired
    assert "- **descale the machine every 6 months** (98 %): repaired: numbers 6" in section
    assert "the grinder has 15 levels and a timer" in section and "numbers 15" in section
    assert (
        "- **use only fresh cold water** (100 %): other 100 % translations in the memory: 1"
        in section
    )
    assert "warm" not in section and "press" not in section  # nothing to check there
    targets = (
        etree.parse(str(out)).getroot().findall(".//{urn:oasis:names:tc:xliff:document:1.2}target")
    )
    assert "entkalken sie die maschine alle 6 monate" in [t.text for t in targets]  # written


def test_a_pre_translated_text_or_word_file_says_it_carries_no_review_mark(
    tmp_path: Path, capsys
) -> None:
    """``analyze doc.en.docx --out doc.de.docx`` wrote German sentences among the English
    ones with nothing to tell a reviewer which were filled from the memory (XLIFF and PO
    mark each one). It says so and names the XLIFF output that keeps the marks; an XLIFF
    output says nothing."""
    from xlsearch.cli import main
    from xlsearch.engine.store import Store

    with Store() as store:
        store.import_file(write_tmx(tmp_path / "tm.tmx", MEMORY), "tm")
    doc = tmp_path / "notes.en.txt"
    doc.write_text("the cat runs\n\nthe weather is nice today\n", encoding="utf-8")
    argv = ["analyze", str(doc), "-c", "tm", "--fuzzy-only", "--tgt", "de", "-q", "--out"]
    assert main([*argv, str(tmp_path / "notes.de.txt")]) == 0
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if x.startswith("notice:") and "review" in x]
    assert "its 1 pre-translated segments carry no review mark" in line
    assert "the other 1 stay in the source language" in line and "--out notes.de.xlf" in line
    assert (tmp_path / "notes.de.txt").read_text("utf-8").startswith("die katze läuft")
    assert main([*argv, str(tmp_path / "notes.de.xlf")]) == 0
    assert "notice:" not in capsys.readouterr().err


def test_quiet_analyze_still_prints_the_notice_when_it_indexes_on_the_spot(
    tmp_path: Path, tiny_static_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.cli import main
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.store import Store

    set_active_model(str(tiny_static_model))
    with Store() as store:
        store.import_file(CAT / "nc_memory.tmx", "acme")  # no index for any model yet
    assert main(["analyze", str(CAT / "nc_cms_job.xlf"), "--collection", "acme", "-q"]) == 0
    printed = capsys.readouterr()
    notices = [line for line in printed.err.splitlines() if line.startswith("notice:")]
    assert "acme" in notices[0] and "indexing" in notices[0]
    assert notices[1:] == [  # then its words, for the fragments of what has no match
        "notice: learning which words your memory translates how (first use of 'acme', once)…"
    ]
    assert "embed:" not in printed.err and "lookup:" not in printed.err  # still no bars
    assert "| 100% |" in printed.out
