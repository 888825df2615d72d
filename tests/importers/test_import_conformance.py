"""Conformance: every inline construct, entity, encoding and segmentation rule of TMX 1.4,
XLIFF 1.2 (incl. SDLXLIFF seg-source) and XLIFF 2.0 on small hand-written fixtures (written
the way OmegaT, Trados, memoQ, Okapi and translate-toolkit write them), plus PO/POT."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.cat_files import XLIFF12, XLIFF20
from helpers.importing import read, write

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers import ReadContext, detect_format, read_records


def tmx(body: str, doctype: bool = False, encoding: str = "UTF-8") -> str:
    dt = '<!DOCTYPE tmx SYSTEM "tmx14.dtd">\n' if doctype else ""
    return (
        f'<?xml version="1.0" encoding="{encoding}"?>\n{dt}<tmx version="1.4">\n'
        '<header creationtool="OmegaT" creationtoolversion="6" segtype="sentence" '
        'o-tmf="OmegaT TMX" adminlang="EN-US" srclang="en" datatype="plaintext"/>\n'
        f"<body>\n{body}\n</body>\n</tmx>\n"
    )


def tu(en: str, de: str = "Satz") -> str:
    return (
        f'<tu><tuv xml:lang="en"><seg>{en}</seg></tuv><tuv xml:lang="de"><seg>{de}</seg></tuv></tu>'
    )


@pytest.mark.parametrize(
    ("seg", "text"),
    [
        ("close this<ph>&lt;br&gt;</ph>dialog box", "close this dialog box"),
        ("close this<ph x='1'>&lt;br /&gt;</ph>dialog", "close this dialog"),
        ("Elysian Collection<ph>\t</ph>Bahnhofstrasse", "Elysian Collection Bahnhofstrasse"),
        ("A<ph>&amp;nbsp;</ph>B", "A\u00a0B"),  # a no-break space stays one (« %s », Nom :)
        ("end.<ept i='1'>&lt;/p&gt;</ept><bpt i='2'>&lt;p&gt;</bpt>Next", "end. Next"),
        ("one<ph type='lb'/>two", "one two"),
        ("one<it pos='begin'>&lt;li&gt;</it>two", "one two"),
        ("one<ut>{\\par }</ut>two", "one two"),
        ("Click <bpt i='1'>&lt;b&gt;</bpt>S<ept i='1'>&lt;/b&gt;</ept>ave", "Click Save"),
        ("Press <hi type='bold'>Enter</hi> now<ph>{0}</ph>.", "Press Enter now{0}."),
        ('memo<ph>&lt;mq:ch val=" " /&gt;</ph>Q', "memo Q"),
    ],
    ids=[
        "br",
        "br-self-closing",
        "tab",
        "nbsp-code",
        "block",
        "type-lb",
        "it-li",
        "rtf-par",
        "bold-inside-word",
        "hi-and-placeholder",
        "memoq-ch",
    ],
)
def test_tmx_codes_that_stand_for_whitespace(tmp_path: Path, seg: str, text: str) -> None:
    recs, _ = read(write(tmp_path, "a.tmx", tmx(tu(seg))))
    assert recs[0] == (0, "en", text)


def test_tmx_sub_text_becomes_its_own_unit(tmp_path: Path) -> None:
    body = tu(
        'See the picture<ph>&lt;img alt="<sub>A red car.</sub>"&gt;</ph> below.',
        'Siehe Bild<ph>&lt;img alt="<sub>Ein rotes Auto.</sub>"&gt;</ph> unten.',
    ) + tu("Next unit.", "Nächste Einheit.")
    path = write(tmp_path, "s.tmx", tmx(body))
    ctx = ReadContext(path)
    recs = list(read_records(ctx, "tmx"))
    assert [(r.tu, r.lang, r.text) for r in recs] == [
        (0, "en", "See the picture below."),
        (0, "de", "Siehe Bild unten."),
        (1, "en", "A red car."),
        (1, "de", "Ein rotes Auto."),
        (2, "en", "Next unit."),
        (2, "de", "Nächste Einheit."),
    ]
    assert recs[2].meta == {"sub_of": 0}


def test_entities_from_an_external_doctype(tmp_path: Path) -> None:
    body = tu("Press&nbsp;Enter &hellip; &copy; 2024 &amp; &#233;t&#xE9;") + tu("a&bogus;b")
    for doctype in (True, False):
        recs, ctx = read(write(tmp_path, "e.tmx", tmx(body, doctype=doctype)))
        assert recs[0][2] == "Press\u00a0Enter … © 2024 & été"
        assert recs[2][2] == "a&bogus;b"  # kept as written, with a warning naming the line
        assert ctx.warnings == [
            f"{tmp_path}/e.tmx:{5 + doctype}: undefined entity &bogus; kept as written"
        ]
        assert ctx.skipped == 0


@pytest.mark.parametrize(
    "encoding",
    [
        "shift_jis",
        "euc-jp",
        "gb2312",
        "gbk",
        "euc-kr",
        "big5",
        "cp1251",
        "iso-8859-7",
        "utf-16-le",
        "utf-16-be",
    ],
)
def test_tmx_in_legacy_encodings(tmp_path: Path, encoding: str) -> None:
    texts = {
        "shift_jis": "日本語の文です。",
        "euc-jp": "日本語の文です。",
        "gb2312": "这是中文句子。",
        "gbk": "這是中文句子。",
        "euc-kr": "한국어 문장입니다.",
        "big5": "這是中文句子。",
        "cp1251": "Это русское предложение.",
        "iso-8859-7": "Αυτή είναι μια πρόταση.",
        "utf-16-le": "Ünïcödé ohne BOM",
        "utf-16-be": "Ünïcödé ohne BOM",
    }
    text = texts[encoding]
    declared = "UTF-16" if encoding.startswith("utf-16") else encoding.upper()
    data = tmx(tu(text, "Satz"), encoding=declared).encode(encoding)
    recs, _ = read(write(tmp_path, "l.tmx", data))
    assert recs[0] == (0, "en", text)
    # the XML declaration is overruled by --encoding
    wrong = tmx(tu(text), encoding="ISO-8859-1").encode(encoding)
    if not encoding.startswith("utf-16"):
        assert read(write(tmp_path, "w.tmx", wrong), encoding=encoding)[0][0][2] == text


def test_xml_encoding_errors_are_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "u.tmx", tmx(tu("x"), encoding="klingon-8"))
    with pytest.raises(DataError, match=r"u\.tmx: unknown encoding 'klingon-8' \(declared"):
        read(path)
    with pytest.raises(DataError, match=r"u\.tmx: unknown encoding 'nope' \(--encoding\)"):
        read(path, encoding="nope")
    latin = write(tmp_path, "l.tmx", tmx("\n" * 3 + tu("Café")).encode("latin-1"))
    with pytest.raises(DataError, match=r"l\.tmx:8: not valid utf-8 \(byte 0xe9\)") as info:
        read(latin)
    assert "--encoding" in str(info.value)
    assert read(latin, encoding="latin-1")[0][0][2] == "Café"


def test_xliff_12_inline_codes_subs_translate_no_and_seg_source(tmp_path: Path) -> None:
    path = write(tmp_path, "a.sdlxliff", XLIFF12)
    ctx = ReadContext(path)
    recs = list(read_records(ctx, "xliff"))
    assert [(r.tu, r.lang, r.text) for r in recs] == [
        (0, "en-US", "close this dialog box"),
        (0, "de-DE", "Dialog schließen"),
        (1, "en-US", "Open the file now!menu"),
        (1, "de-DE", "Öffnen"),
        (2, "en-US", "Image."),
        (2, "de-DE", "Bild."),
        (3, "en-US", "Logo"),
        (3, "de-DE", "Logo DE"),
        (4, "en-US", "First sentence."),
        (4, "de-DE", "Erster Satz."),
        (5, "en-US", "Second one."),
        (5, "de-DE", "Zweiter Satz."),
        (6, "en-US", "Last."),
    ]
    assert recs[6].meta == {"unit": "ph-sub", "sub_of": 2}
    assert ctx.warnings == [f'{path}: 3 segments marked translate="no" not imported']
    assert ctx.skipped == 3


def test_xliff_20_codes_cp_and_translate_no(tmp_path: Path) -> None:
    recs, ctx = read(write(tmp_path, "b.xlf", XLIFF20))
    assert recs == [
        (0, "en", "Elysian Collection Bahnhofstrasse"),
        (0, "fr", "Collection Elysian Bahnhofstrasse"),
        (1, "en", "Tab here, bold and span term x y z"),
        (1, "fr", "Tab ici"),
        (2, "en", "Ctrlchar"),  # a control character from <cp> is not text
    ]
    assert ctx.skipped == 2 and "2 segments marked translate" in ctx.warnings[0]


PO = r"""# Translator comment
msgid ""
msgstr ""
"Project-Id-Version: demo 1.0\n"
"Language: de_AT\n"
"Content-Type: text/plain; charset=ISO-8859-1\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#. extracted comment
#: src/main.c:12
#, fuzzy
msgctxt "menu|file"
msgid "Open"
msgstr "Öffnen"

msgid "One file"
msgid_plural "%d files"
msgstr[0] "Eine Datei"
msgstr[1] "%d Dateien"

msgid "Untranslated text"
msgstr ""

msgid ""
"Multi-line "
"entry"
msgstr "Mehrzeiliger "
"Eintrag"

#~ msgid "Obsolete"
#~ msgstr "Veraltet"
"""


def test_po_entries_plurals_context_fuzzy_obsolete(tmp_path: Path) -> None:
    path = write(tmp_path, "de.po", PO.encode("latin-1"))
    ctx = ReadContext(path)
    recs = list(read_records(ctx, detect_format(path)))
    assert [(r.tu, r.lang, r.text, r.line) for r in recs] == [
        (0, "en", "Open", 9),  # fuzzy: its draft translation "Öffnen" is not a translation
        (1, "en", "One file", 16),
        (1, "de-AT", "Eine Datei", 16),
        (2, "en", "%d files", 16),
        (2, "de-AT", "%d Dateien", 16),
        (3, "en", "Untranslated text", 21),
        (4, "en", "Multi-line entry", 24),
        (4, "de-AT", "Mehrzeiliger Eintrag", 24),
    ]
    assert recs[0].meta == {"context": "menu|file", "fuzzy": True, "project": "demo"}
    assert recs[3].meta == {"plural": 1, "project": "demo"}
    assert ctx.warnings == [
        f"{path}: 1 obsolete (#~) entries not imported",
        f"{path}: 1 fuzzy entries: their source only (a fuzzy translation is a draft)",
    ]
    recs, _ = read(path, langs=["en", "de"])
    assert recs[0] == (0, "en", "Open")
    pot = write(tmp_path, "t.pot", PO.replace("ISO-8859-1", "CHARSET").replace("Öffnen", ""))
    assert [r[2] for r in read(pot)[0]][:2] == ["Open", "One file"]


def test_po_broken_and_unknown_formats(tmp_path: Path) -> None:
    bad = write(tmp_path, "b.po", 'msgid "a"\nmsgstr "b\ngarbage here\n')
    with pytest.raises(DataError, match=r"b\.po:2: a string is not closed"):  # opened there
        read(bad)
    bad = write(tmp_path, "c.po", 'msgid "a"\nmsgstr "b"\ngarbage here\n')
    with pytest.raises(DataError, match=r"c\.po:3: not a valid PO file"):
        read(bad)
    with pytest.raises(DataError) as info:
        detect_format(Path("memory.pdf"))
    message = str(info.value)
    assert "'.pdf' files are not a supported format" in message
    assert "po (.po .pot)" in message and "tmx (.tmx)" in message


@pytest.mark.parametrize(
    ("encoding", "text"),
    [
        ("shift_jis", "今日は良い天気ですね。明日も晴れるでしょう。"),
        ("gb18030", "今天天气很好。我们去公园散步吧。"),
        ("euc-kr", "오늘 날씨가 좋네요. 내일도 맑을 거예요."),
        ("cp1251", "Сегодня хорошая погода. Завтра тоже будет солнечно."),
        ("utf-16-le", "Grüße aus Köln, ohne BOM."),
        ("utf-16-be", "Grüße aus Köln, ohne BOM."),
    ],
)
def test_text_and_tsv_encodings_are_detected(tmp_path: Path, encoding: str, text: str) -> None:
    body = "en\txx\n" + f"Good weather today.\t{text}\n" * 3
    recs, ctx = read(write(tmp_path, "d.tsv", body.encode(encoding)))
    assert recs[:2] == [(0, "en", "Good weather today."), (0, "xx", text)]
    if not encoding.startswith("utf-16"):  # a guess: said so in the report
        assert "(detected)" in ctx.warnings[0] and ctx.skipped == 0
    lines, _ = read(write(tmp_path, "d.txt", ((text + "\n") * 3).encode(encoding)), langs=["xx"])
    assert [r[2] for r in lines] == [text] * 3


def test_cli_encoding_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from xlsearch.cli import main

    sjis = write(
        tmp_path, "ja.tmx", tmx(tu("日本語の文です。"), encoding="Shift_JIS").encode("cp932")
    )
    assert main(["import", str(sjis), "-q"]) == 0
    assert "+2 -0" in capsys.readouterr().out
    assert main(["import", str(sjis), "-q", "--encoding", "no-such-codec"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: Bad input data: {sjis}: unknown encoding 'no-such-codec'")
    assert "Traceback" not in err


def test_po_single_plural_form_and_bad_bytes(tmp_path: Path) -> None:
    ja = (
        'msgid ""\nmsgstr ""\n"Language: ja\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
        'msgid "one file"\nmsgid_plural "%d files"\nmsgstr[0] "%d 個のファイル"\n'
    )
    recs, _ = read(write(tmp_path, "ja.po", ja))
    assert [r[1:] for r in recs] == [
        ("en", "one file"),  # msgids: English, by gettext's convention
        ("ja", "%d 個のファイル"),
        ("en", "%d files"),  # the plural msgid is kept even with one plural form
    ]
    bad = write(tmp_path, "bad.po", ja.encode("utf-8") + b'\nmsgid "caf\xe9"\nmsgstr ""\n')
    with pytest.raises(DataError, match=r"bad\.po:10: not valid utf-8 \(byte 0xe9\)") as info:
        read(bad)
    assert "--encoding" in str(info.value)
