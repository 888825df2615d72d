"""Pre-translations nobody confirmed stay out of the memory: xlsearch's own (``analyze
--out``), and a CAT tool's (XLIFF 1.2 ``needs-review-*`` with a match ``state-qualifier``,
SDLXLIFF ``Draft`` from a memory or MT, memoQ ``Pretranslated``). A confirmed target, and a
translator's own draft, are translations."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.cli import main
from xlsearch.engine.importers import ReadContext, read_records

MEMORY = (
    "en\tde\n"
    "descale the machine every 3 months\tentkalken sie die maschine alle 3 monate\n"
    "use only fresh cold water\tverwenden sie nur frisches kaltes wasser\n"
)

CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"
JOB_SEGMENTS = ["descale the machine every 6 months", "use only fresh cold water"]


def _xliff12(path: Path) -> Path:
    units = "".join(
        f'<trans-unit id="{i}"><source>{s}</source></trans-unit>'
        for i, s in enumerate(JOB_SEGMENTS, 1)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="m.html" '
        f'source-language="en" target-language="de" datatype="html"><body>{units}</body></file>'
        "</xliff>\n",
        encoding="utf-8",
    )
    return path


def _xliff20(path: Path) -> Path:
    units = "".join(
        f'<unit id="u{i}"><segment id="s{i}"><source>{s}</source></segment></unit>'
        for i, s in enumerate(JOB_SEGMENTS, 1)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="2.0" '
        'xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" trgLang="de">'
        f'<file id="f1">{units}</file></xliff>\n',
        encoding="utf-8",
    )
    return path


def _sdlxliff(path: Path) -> Path:
    units = "".join(
        f'<trans-unit id="a{i}"><source>{s}</source><seg-source><mrk mtype="seg" mid="{i}">{s}'
        f'</mrk></seg-source><target><mrk mtype="seg" mid="{i}"/></target><sdl:seg-defs>'
        f'<sdl:seg id="{i}"/></sdl:seg-defs></trans-unit>'
        for i, s in enumerate(JOB_SEGMENTS, 1)
    )
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<xliff xmlns:sdl="http://sdl.com/FileTypes/'
        'SdlXliff/1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2" '
        'sdl:version="1.0"><file original="m.docx" datatype="x-sdlfilterframework2" '
        f'source-language="en-US" target-language="de-DE"><body>{units}</body></file></xliff>\n',
        encoding="utf-8",
    )
    return path


def _memoq(path: Path) -> Path:
    units = "".join(
        f'<trans-unit id="{i}" mq:status="NotStarted" mq:segmentguid="g-{i}" mq:percent="0">'
        f'<source xml:space="preserve">{s}</source><target xml:space="preserve"></target>'
        "</trans-unit>"
        for i, s in enumerate(JOB_SEGMENTS, 1)
    )
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2" xmlns:mq="MQXliff"><file '
        'original="m.docx" source-language="en-US" target-language="de-DE" datatype="x-docx">'
        f"<body>{units}</body></file></xliff>\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("job.xlf", _xliff12),
        ("job20.xlf", _xliff20),
        ("job.sdlxliff", _sdlxliff),
        ("job.mqxliff", _memoq),
    ],
)
def test_xlsearch_s_own_pre_translation_is_not_imported_as_a_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, make
) -> None:
    """``analyze --out`` wrote "every 6 months" → "alle 3 monate" (87 %, for review); importing
    that file stored it as a translation, so the wrong number came back as a 100 % match and
    went into distillation data. Only the sources are imported, each draft named."""
    (tmp_path / "tm.tsv").write_text(MEMORY, encoding="utf-8")
    assert main(["import", str(tmp_path / "tm.tsv"), "-c", "tm", "-q"]) == 0
    job, out = make(tmp_path / name), tmp_path / f"pre.{name}"
    assert main(["analyze", str(job), "-c", "tm", "--fuzzy-only", "--out", str(out), "-q"]) == 0
    assert "alle 6 monate" in out.read_text("utf-8")  # pre-translated (number repaired)
    capsys.readouterr()
    assert main(["import", str(out), "-c", "back"]) == 0
    err = capsys.readouterr().err
    assert "unconfirmed pre-translation" in err, err
    ctx = ReadContext(out)
    texts = [r.text for r in read_records(ctx, "xliff")]
    assert texts == JOB_SEGMENTS, texts


SDL_CONFIRMED = """<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" version="1.2"
 xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="m.docx"
 datatype="x-sdlfilterframework2" source-language="en-US" target-language="de-DE"><body>
<trans-unit id="a1"><source>One. Two. Three.</source><seg-source><mrk mtype="seg" mid="1">One.</mrk>
 <mrk mtype="seg" mid="2">Two.</mrk> <mrk mtype="seg" mid="3">Three.</mrk></seg-source>
<target state="needs-review-translation" state-qualifier="fuzzy-match">
<mrk mtype="seg" mid="1">Eins.</mrk> <mrk mtype="seg" mid="2">Zwei.</mrk>
 <mrk mtype="seg" mid="3">Drei.</mrk></target>
<sdl:seg-defs><sdl:seg id="1" conf="Translated" origin="tm" percent="87"/>
<sdl:seg id="2" conf="Draft" origin="interactive"/>
<sdl:seg id="3" conf="Draft" origin="tm" percent="92"/></sdl:seg-defs></trans-unit>
<trans-unit id="a2"><source>Four.</source><target state="needs-review-translation"
 state-qualifier="leveraged-mt">Vier.</target></trans-unit>
<trans-unit id="a3"><source>Five.</source><target state="needs-review-translation">Fünf.</target>
</trans-unit>
</body></file></xliff>
"""


def test_confirmed_targets_and_a_translator_s_own_draft_are_kept(tmp_path: Path) -> None:
    """Each SDLXLIFF sentence by its own status (not the unit's target state): a confirmed
    one is kept even where the unit still says needs-review, a translator's own Draft too; a
    memory match left as Draft is not. An MT match for review is not; a target to review
    that no tool put there is."""
    path = tmp_path / "m.sdlxliff"
    path.write_text(SDL_CONFIRMED, encoding="utf-8")
    ctx = ReadContext(path)
    texts = [r.text for r in read_records(ctx, "xliff")]
    assert texts == ["One.", "Eins.", "Two.", "Zwei.", "Three.", "Four.", "Five.", "Fünf."]
    assert sum("unconfirmed pre-translation" in w for w in ctx.warnings) == 2, ctx.warnings


def test_drafts_do_not_enter_the_memory_as_translations() -> None:
    """A PO ``#, fuzzy`` msgstr and a memoQ PartiallyEdited half target were imported as
    translations, and lookup then offered them (even as 100 % matches)."""
    from xlsearch.engine.store import Store

    with Store() as store:
        po = store.import_file(CAT / "nc_portal.de.po", "jobs")
        memoq = store.import_file(CAT / "nc_ui_strings.mqxliff", "jobs")
        texts = {row[0] for row in store.conn.execute("SELECT text FROM segments")}
    assert "Hochladen fehlgeschlagen." not in texts  # fuzzy in the PO
    assert "Hochladen fehlgeschlagen:" not in texts  # PartiallyEdited in memoQ
    assert "Upload failed: the file is larger than {max_size} MB." in texts  # source kept
    assert {"Einstellungen"} <= texts  # confirmed translations stay
    assert any("1 fuzzy entries" in w for w in po.problems)
    assert any("memoQ status PartiallyEdited" in w for w in memoq.problems)
