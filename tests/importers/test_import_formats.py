"""Importers on small hand-made files of every format, good and broken."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from helpers.importing import read, write

from xlsearch.engine.errors import DataError
from xlsearch.engine.importers import ReadContext, detect_format, normalize_lang, read_records
from xlsearch.engine.importers.text import split_sentences

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4">
<header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en"
 creationtool="t" creationtoolversion="1" o-tmf="t"/>
<body>
<tu tuid="a"><tuv xml:lang="en-US"><seg>Click <bpt i="1">&lt;b&gt;</bpt>Save<ept i="1">&lt;/b&gt;\
</ept>
  now<ph>{0}</ph>.</seg></tuv>
<tuv xml:lang="DE-de"><seg>Klicken Sie auf <hi>Speichern</hi>.</seg></tuv></tu>
<tu srclang="fr"><tuv><seg>Bonjour</seg></tuv><tuv lang="it"><seg>Ciao</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>   </seg></tuv><tuv xml:lang="de"><seg>Leer</seg></tuv></tu>
</body>
</tmx>
"""


def test_tmx_inline_tags_languages_and_units(tmp_path: Path) -> None:
    recs, ctx = read(write(tmp_path, "a.tmx", TMX))
    assert recs == [
        (0, "en-US", "Click Save now{0}."),  # a placeholder's code is its text
        (0, "de-DE", "Klicken Sie auf Speichern."),
        (1, "fr", "Bonjour"),
        (1, "it", "Ciao"),
        (2, "de", "Leer"),
    ]
    assert ctx.skipped == 1
    assert "a.tmx (tu 3, line 10)" in ctx.warnings[0] and "empty" in ctx.warnings[0]


def test_tmx_language_filter_and_utf16(tmp_path: Path) -> None:
    recs, _ = read(write(tmp_path, "a.tmx", TMX), langs=["de"])
    assert [r[2] for r in recs] == ["Klicken Sie auf Speichern.", "Leer"]
    utf16 = TMX.replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16")
    recs16, _ = read(write(tmp_path, "b.tmx", utf16))
    assert recs16 == read(write(tmp_path, "c.tmx", TMX))[0]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (TMX[: TMX.index("<tu srclang")] + "<tu><tuv><seg>cut", "bad.tmx:9: malformed XML"),
        ("", "bad.tmx:1: the file is empty"),
        ("<html><body/></html>", "not a TMX"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00", "binary"),
        (TMX.replace("</body>", "</bdy>"), "mismatched tag"),
    ],
    ids=["truncated", "empty", "not-tmx", "binary", "mismatched"],
)
def test_tmx_broken(tmp_path: Path, data: str | bytes, message: str) -> None:
    path = write(tmp_path, "bad.tmx", data)
    with pytest.raises(DataError) as info:
        read(path)
    assert str(path) in str(info.value) and message in str(info.value)


XLIFF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file source-language="en-GB" target-language="fr-FR" datatype="plaintext" original="x">
<body><group id="g">
<trans-unit id="1"><source>Open the <g id="1">file</g><x id="2"/> menu</source>
<target>Ouvrez le menu <g id="1">fichier</g></target>
<alt-trans><source>Open</source><target>Suggestion MT</target></alt-trans></trans-unit>
<trans-unit id="2"><source>Untranslated</source></trans-unit>
<trans-unit id="3"><source>Empty target</source><target/></trans-unit>
<trans-unit id="4"><source>Copied</source><target state="new">Copied</target></trans-unit>
</group></body></file></xliff>
"""

XLIFF20 = """<?xml version="1.0"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="ja">
<file id="f1"><unit id="u1">
<segment><source>Hello <pc id="1">world</pc>.</source>
<target>こんにちは<pc id="1">世界</pc>。</target></segment>
<ignorable><source> </source></ignorable>
<segment><source>Bye<ph id="2"/>!</source><target>さようなら！</target></segment>
<segment state="initial"><source>Later</source><target>Later</target></segment>
</unit></file></xliff>
"""


def test_xliff_12(tmp_path: Path) -> None:
    recs, ctx = read(write(tmp_path, "a.xlf", XLIFF12))
    assert recs == [
        (0, "en-GB", "Open the file menu"),
        (0, "fr-FR", "Ouvrez le menu fichier"),
        (1, "en-GB", "Untranslated"),
        (2, "en-GB", "Empty target"),
        (3, "en-GB", "Copied"),
    ]
    assert len(ctx.warnings) == 2 and "target of trans-unit 3" in ctx.warnings[0]
    assert "trans-unit 4, line 10): untranslated target (state=new)" in ctx.warnings[1]


def test_xliff_20_segments_are_units(tmp_path: Path) -> None:
    recs, _ = read(write(tmp_path, "a.xliff", XLIFF20))
    assert recs == [
        (0, "en", "Hello world."),
        (0, "ja", "こんにちは世界。"),
        (1, "en", "Bye!"),
        (1, "ja", "さようなら！"),
        (2, "en", "Later"),
    ]


def test_xliff_truncated(tmp_path: Path) -> None:
    path = write(tmp_path, "a.xlf", XLIFF12[:300])
    with pytest.raises(DataError, match=r"a\.xlf:\d+: malformed XML") as err:
        read(path)
    assert "export it again" in str(err.value.hint)  # the fix, not only the fault


def test_tsv_header_distillation_and_ragged(tmp_path: Path) -> None:
    recs, ctx = read(
        write(tmp_path, "h.tsv", "en\tde-AT\r\nHello\tServus\r\nonly one\n\nA\tB\tC\nX\tY\n")
    )
    assert recs == [
        (0, "en", "Hello"),
        (0, "de-AT", "Servus"),
        (1, "en", "X"),
        (1, "de-AT", "Y"),
    ]
    assert [w.split(": ")[0] for w in ctx.warnings] == [
        f"{tmp_path}/h.tsv:3",
        f"{tmp_path}/h.tsv:5",
    ]
    recs, _ = read(write(tmp_path, "d.tsv", "Good day\tGuten Tag\n"), langs=["en", "de"])
    assert recs == [(0, "en", "Good day"), (0, "de", "Guten Tag")]
    with pytest.raises(DataError, match=r"d\.tsv:1: 2 columns but 3 languages"):
        read(tmp_path / "d.tsv", langs=["en", "de", "fr"])


def test_tsv_first_row_with_lang_given_is_data_unless_those_languages(tmp_path: Path) -> None:
    # "Yes" / "Ja" look like tags (Yendang, Japanese), but --lang en,de says what the columns are
    recs, _ = read(write(tmp_path, "n.tsv", "Yes\tJa\nNo\tNein\n"), langs=["en", "de"])
    assert recs == [(0, "en", "Yes"), (0, "de", "Ja"), (1, "en", "No"), (1, "de", "Nein")]
    recs, _ = read(write(tmp_path, "h.csv", "de,en-GB\nJa,Yes\n"), langs=["en", "de"])
    assert recs == [(0, "de", "Ja"), (0, "en-GB", "Yes")]


def test_csv_with_semicolons_as_excel_writes_it(tmp_path: Path) -> None:
    data = 'en;de\r\nThank you;Danke\r\n"Yes; really";"Ja; wirklich"\r\n'.encode("cp1252")
    recs, _ = read(write(tmp_path, "excel.csv", data), encoding="cp1252")
    assert recs == [
        (0, "en", "Thank you"),
        (0, "de", "Danke"),
        (1, "en", "Yes; really"),
        (1, "de", "Ja; wirklich"),
    ]
    # without a header, commas inside the sentences: still split at the semicolons
    recs, _ = read(
        write(tmp_path, "b.csv", "Hello, world;Hallo, Welt\nGood day, sir;Guten Tag, Herr\n"),
        langs=["en", "de"],
    )
    assert [r[2] for r in recs][:2] == ["Hello, world", "Hallo, Welt"]
    # a comma CSV whose text has semicolons stays a comma CSV
    recs, _ = read(write(tmp_path, "c.csv", 'en,de\n"a; b",c\nd,"e; f"\n'))
    assert [r[2] for r in recs] == ["a; b", "c", "d", "e; f"]


def test_tsv_first_row_of_capitalised_words_is_data(tmp_path: Path) -> None:
    recs, _ = read(write(tmp_path, "n.tsv", "Yes\tJa\nNo\tNein\n"))
    assert [r[2] for r in recs] == ["Yes", "Ja", "No", "Nein"]  # not languages yes/ja
    recs, _ = read(write(tmp_path, "h.tsv", "EN\tde_at\nYes\tJa\n"))
    assert recs == [(0, "en", "Yes"), (0, "de-AT", "Ja")]


def test_tsv_without_languages_identifies_them(tmp_path: Path) -> None:
    recs, _ = read(
        write(
            tmp_path,
            "x.tsv",
            "The weather is lovely today and we walk.\tDas Wetter ist heute schön und wir gehen.\n",
        )
    )
    assert [r[1] for r in recs] == [None, None]  # the store runs langid in batches
    from xlsearch.engine.lang.identify import identify

    assert identify([r[2] for r in recs]) == ["en", "de"]


def test_gzip_bom_and_encodings(tmp_path: Path) -> None:
    body = "en\tfr\nCoffee\tCafé\n"
    gz = write(tmp_path, "g.tsv.gz", gzip.compress(body.encode("utf-8")))
    bom = write(tmp_path, "b.tsv", b"\xef\xbb\xbf" + body.encode("utf-8"))
    u16 = write(tmp_path, "u.tsv", body.encode("utf-16"))
    expected = [(0, "en", "Coffee"), (0, "fr", "Café")]
    for path in (gz, bom, u16):
        assert read(path)[0] == expected, path
    latin = write(tmp_path, "l.tsv", body.encode("latin-1"))
    recs, ctx = read(latin)  # no encoding declared: charset-normalizer decides
    assert recs == expected and "pass --encoding if that is wrong" in ctx.warnings[0]
    assert ctx.skipped == 0
    tail = "Coffee\tCafé\n".encode("latin-1")
    late = write(tmp_path, "m.tsv", b"en\tfr\n" + b"Tea\tThe\n" * 9000 + tail)
    message = r"m\.tsv:9002: not valid utf-8 at column 11 \(byte 0xe9\)"
    with pytest.raises(DataError, match=message) as info:
        read(late)
    assert "--encoding" in str(info.value)
    assert read(latin, encoding="latin-1")[0] == expected
    with pytest.raises(DataError, match="binary"):
        read(write(tmp_path, "z.tsv", b"a\tb\n\x00\x01\x02"))


def test_csv_quoting(tmp_path: Path) -> None:
    recs, _ = read(write(tmp_path, "a.csv", 'en,es\n"Hello, friend","Hola,\namigo"\nYes,Sí\n'))
    assert recs == [
        (0, "en", "Hello, friend"),
        (0, "es", "Hola, amigo"),
        (1, "en", "Yes"),
        (1, "es", "Sí"),
    ]


def test_text_lines_paragraphs_and_huge_line(tmp_path: Path) -> None:
    recs, ctx = read(
        write(tmp_path, "a.txt", "First  line\n\n  Second\n" + "x" * 100_001 + "\n"), langs=["en"]
    )
    assert recs == [(0, "en", "First line"), (1, "en", "Second")]
    assert ctx.warnings == [
        f"{tmp_path}/a.txt:4: a segment (100,001 characters) is over the limit of 100,000 "
        "characters; skipped"
    ]
    para = (
        "Dr. Smith came. He left at 5 p.m. yesterday! Did he?\nYes.\n\n"
        "我爱猫。你呢？好的\n\nهل أنت بخير؟ نعم"
    )
    recs, _ = read(write(tmp_path, "p.txt", para), paragraphs=True)
    assert [r[2] for r in recs] == [
        "Dr. Smith came.",
        "He left at 5 p.m. yesterday!",
        "Did he?",
        "Yes.",
        "我爱猫。",
        "你呢？",
        "好的",
        "هل أنت بخير؟",
        "نعم",
    ]
    assert read(write(tmp_path, "e.txt", ""))[0] == []


def test_split_sentences_keeps_quotes_and_initials() -> None:
    assert split_sentences('He said "stop." Then J. R. R. Tolkien wrote.') == [
        'He said "stop."',
        "Then J. R. R. Tolkien wrote.",
    ]
    assert split_sentences("Wie geht's? Gut.») Ok") == ["Wie geht's?", "Gut.»)", "Ok"]


def test_jsonl_fields_units_and_bad_lines(tmp_path: Path) -> None:
    data = (
        '{"text": " Hello ", "lang": "en", "tu": 7, "source": "web"}\n'
        '{"text": "Hallo", "lang": "de", "tu": 7}\n'
        "not json\n"
        '{"lang": "en"}\n'
        "[1, 2]\n"
        '{"text": "Sans langue"}\n'
    )
    path = write(tmp_path, "a.jsonl", data)
    ctx = ReadContext(path)
    recs = list(read_records(ctx, "jsonl"))
    assert [(r.tu, r.lang, r.text, r.meta) for r in recs] == [
        (0, "en", "Hello", {"source": "web", "tu": "7"}),
        (0, "de", "Hallo", {"tu": "7"}),
        (1, None, "Sans langue", None),
    ]
    assert [w.split(": ", 1)[0].rsplit(":", 1)[1] for w in ctx.warnings] == ["3", "4", "5"]


def test_jsonl_parallel_lines_as_hugging_face_datasets_write_them(tmp_path: Path) -> None:
    data = (
        '{"id": "1", "translation": {"en": "Good morning", "de-AT": "Servus"}}\n'
        '{"translation": {"en": "Thank you", "fr": "Merci", "??": "x"}}\n'
        '{"en": "Hello", "de": "Hallo"}\n'
    )
    ctx = ReadContext(write(tmp_path, "p.jsonl", data))
    recs = list(read_records(ctx, "jsonl"))
    assert [(r.tu, r.lang, r.text, r.meta) for r in recs] == [
        (0, "en", "Good morning", {"id": "1"}),
        (0, "de-AT", "Servus", {"id": "1"}),
        (1, "en", "Thank you", None),
        (1, "fr", "Merci", None),
    ]
    assert "p.jsonl:2: translation '??'" in ctx.warnings[0]
    # a language-keyed object is not guessed at ("id" is Indonesian): the warning shows how
    assert 'p.jsonl:3: no "text" string' in ctx.warnings[1]
    assert '{"translation": {"en": …, "de": …}}' in ctx.warnings[1]


def test_format_detection_and_language_tags(tmp_path: Path) -> None:
    assert detect_format(Path("x.TMX")) == "tmx"
    assert detect_format(Path("x.tsv.gz")) == "tsv"
    assert detect_format(Path("x.sdlxliff")) == "xliff"
    assert detect_format(Path("x.data"), "txt") == "text"
    with pytest.raises(DataError, match="--format"):
        detect_format(Path("x.data"))
    assert [normalize_lang(t) for t in ("en-US", "zh_Hant_TW", "deu", "EN", "x y", None)] == [
        "en-US",
        "zh-Hant-TW",
        "de",
        "en",
        None,
        None,
    ]


@pytest.mark.parametrize("fmt", ["tmx", "xliff"])
def test_xml_streaming_memory_is_flat(tmp_path: Path, fmt: str) -> None:
    import tracemalloc

    def build(n: int) -> Path:
        path = tmp_path / f"{n}.{fmt}"
        with open(path, "w", encoding="utf-8") as fh:
            if fmt == "tmx":
                fh.write('<tmx version="1.4"><header srclang="en"/><body>\n')
                unit = '<tu><tuv xml:lang="en"><seg>s {i} <ph>x</ph></seg></tuv></tu>\n'
                end = "</body></tmx>"
            else:
                fh.write('<xliff version="1.2"><file source-language="en"><body>\n')
                unit = '<trans-unit id="{i}"><source>s {i}</source></trans-unit>\n'
                end = "</body></file></xliff>"
            fh.writelines(unit.format(i=i) for i in range(n))
            fh.write(end)
        return path

    peaks = []
    for n in (1_000, 15_000):
        path = build(n)
        tracemalloc.start()
        count = sum(1 for _ in read_records(ReadContext(path), fmt))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert count == n
    assert peaks[1] < 1.3 * peaks[0] + 256 * 1024, peaks  # 15× the units, ~same memory


PO_CUT = (
    'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    'msgid "Use only fresh, cold water."\nmsgstr "Nur frisches, kaltes Wasser verwenden."\n\n'
    '#, python-format\nmsgid "Your order %s has '
)


def test_a_po_cut_in_the_middle_of_a_string_is_one_line_naming_it(tmp_path: Path) -> None:
    """A catalogue cut short inside a string (an interrupted copy) was imported with the
    text cut and its last character dropped ("Your order %s ha"): msgfmt says "end-of-file
    within string". One line naming the line and the fix; nothing imported."""
    from xlsearch.engine.errors import DataError
    from xlsearch.engine.importers import ReadContext, read_records
    from xlsearch.engine.importers.po import unclosed_string

    path = tmp_path / "app.de.po"
    path.write_text(PO_CUT, encoding="utf-8")
    with pytest.raises(DataError, match=r"app\.de\.po:10: a string is not closed") as err:
        list(read_records(ReadContext(path), "po"))
    assert "cut short" in str(err.value.hint)
    assert unclosed_string('msgid "a \\\\"\nmsgstr "b \\" c"\n"d"\n#. a "note\n') is None
    assert unclosed_string('msgid "a \\"\n') == 1  # the quote is escaped: still open
    assert unclosed_string('#~ msgid "old\n') == 1


def test_a_po_keeps_the_no_break_spaces_of_french_typography(tmp_path: Path) -> None:
    po = (
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"X-Source-Language: en\\n"\n\n'
        'msgid "Name:  \\"%s\\""\nmsgstr "Nom\u00a0: «\u00a0%s\u00a0»"\n'
    )
    recs, _ = read(write(tmp_path, "fr.po", po))
    assert [r[2] for r in recs] == ['Name: "%s"', "Nom\u00a0: «\u00a0%s\u00a0»"]
