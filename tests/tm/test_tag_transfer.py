"""Tag transfer into targets taken from the memory (plain text): paired tags around text
that occurs once in the target, codes at the start/end; nothing placed by guesswork."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from xlsearch.engine.tm.documents import open_document
from xlsearch.engine.tm.documents.tags import set_target

N12 = "urn:oasis:names:tc:xliff:document:1.2"
N20 = "urn:oasis:names:tc:xliff:document:2.0"


def _source(xml: str, ns: str = N12) -> etree._Element:
    return etree.fromstring(f'<source xmlns="{ns}">{xml}</source>')


def _target(source: etree._Element, text: str) -> tuple[str, int]:
    ns = etree.QName(source).namespace
    target = etree.Element(f"{{{ns}}}target", nsmap={None: ns})
    moved = set_target(target, text, source)
    inner = etree.tostring(target, encoding="unicode")
    inner = inner[inner.index(">") + 1 : inner.rindex("<")]  # the content, without the wrapper
    return inner.replace(f' xmlns="{ns}"', ""), moved


@pytest.mark.parametrize(
    ("source", "target", "expected", "moved"),
    [
        # a paired tag around text the target has once: wrapped the same way
        ('Press the <g id="1">Start</g> button.', "Drücken Sie Start.",
         'Drücken Sie <g id="1">Start</g>.', 1),
        # the text twice, or not at all, or only inside a longer word: left out
        ('Press <g id="1">Start</g>.', "Start oder Start.", "Start oder Start.", 0),
        ('Press <g id="1">Save</g>.', "Drücken Sie Speichern.", "Drücken Sie Speichern.", 0),
        ('Set <g id="1">Port</g>.', "Portnummer setzen.", "Portnummer setzen.", 0),
        # begin/end codes with native content, text between them
        ('<bpt id="1">&lt;b&gt;</bpt>ACME<ept id="1">&lt;/b&gt;</ept> rocks.', "ACME rockt.",
         '<bpt id="1">&lt;b&gt;</bpt>ACME<ept id="1">&lt;/b&gt;</ept> rockt.', 2),
        # codes at the start and the end go to the start and the end
        ('<x id="1"/>Warning: hot surface<x id="2"/>', "Achtung: heiße Fläche",
         '<x id="1"/>Achtung: heiße Fläche<x id="2"/>', 2),
        # a pair around the whole source goes around the whole target
        ('<bpt id="1">&lt;b&gt;</bpt>Show hidden files<ept id="1">&lt;/b&gt;</ept>',
         "Afficher les fichiers cachés",
         '<bpt id="1">&lt;b&gt;</bpt>Afficher les fichiers cachés<ept id="1">&lt;/b&gt;</ept>', 2),
        (' <g id="1">Show hidden files</g> ', "Afficher les fichiers cachés",
         '<g id="1">Afficher les fichiers cachés</g>', 1),
        ('<x id="0"/><bpt id="1">&lt;i&gt;</bpt>Save all<ept id="1">&lt;/i&gt;</ept>',
         "Tout enregistrer",
         '<x id="0"/><bpt id="1">&lt;i&gt;</bpt>Tout enregistrer<ept id="1">&lt;/i&gt;</ept>', 3),
        # a code inside the sentence has no clear place: left to the translator
        ('Keep <x id="1"/> away.', "Fernhalten.", "Fernhalten.", 0),
        # two tags, in the target's order
        ('<g id="1">A1</g> and <g id="2">B2</g>', "B2 und A1",
         '<g id="2">B2</g> und <g id="1">A1</g>', 2),
        # nested tags are not taken apart
        ('<g id="1"><g id="2">Deep</g></g> text', "Deep Text", "Deep Text", 0),
    ],
)  # fmt: skip
def test_xliff12_tags_with_a_clear_place_are_transferred(source, target, expected, moved) -> None:
    assert _target(_source(source), target) == (expected, moved)


def test_xliff20_paired_and_begin_end_codes() -> None:
    src = _source('Pay <pc id="1">PayPal</pc> or <sc id="2"/>VISA<ec startRef="2"/>.', N20)
    assert _target(src, "Zahlen Sie mit VISA oder PayPal.") == (
        'Zahlen Sie mit <sc id="2"/>VISA<ec startRef="2"/> oder <pc id="1">PayPal</pc>.',
        3,
    )


XLIFF12 = f"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="{N12}"><file original="ui.html" source-language="en-GB"
 target-language="de-DE" datatype="html"><body>
<trans-unit id="1"><source>Press the <g id="1">Start</g> button to begin.</source></trans-unit>
<trans-unit id="2"><source>Close.</source><seg-source><mrk mtype="seg" mid="1">Click <g
 id="5">OK</g>.</mrk></seg-source></trans-unit>
</body></file></xliff>
"""


def test_a_pretranslated_document_keeps_the_source_tags_it_can_place(tmp_path: Path) -> None:
    path = tmp_path / "ui.xlf"
    path.write_text(XLIFF12, encoding="utf-8")
    doc = open_document(path)
    doc.set_target(0, "Drücken Sie Start, um zu beginnen.", quality=99, origin="fuzzy",
                   match_source="Press the Start button to begin.")  # fmt: skip
    doc.set_target(1, "Klicken Sie auf OK.", quality=99, origin="fuzzy", match_source="Click OK.")
    out = doc.save(tmp_path / "ui.pre.xlf")
    root = etree.parse(str(out)).getroot()
    t1 = root.find(f".//{{{N12}}}trans-unit[@id='1']/{{{N12}}}target")
    assert etree.tostring(t1, encoding="unicode").count('<g id="1">Start</g>') == 1
    mrk = root.find(f".//{{{N12}}}trans-unit[@id='2']/{{{N12}}}target/{{{N12}}}mrk")
    assert mrk.get("mid") == "1" and "".join(mrk.itertext()) == "Klicken Sie auf OK."
    assert mrk.find(f"{{{N12}}}g").get("id") == "5"
    # the alt-trans keeps the memory's own (plain) target; reading back gives the text
    alt = root.find(f".//{{{N12}}}alt-trans/{{{N12}}}target")
    assert alt.text == "Drücken Sie Start, um zu beginnen." and len(alt) == 0
    again = open_document(out)
    assert [s.target for s in again.segments] == [
        "Drücken Sie Start, um zu beginnen.",
        "Klicken Sie auf OK.",
    ]


TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header creationtool="SDL Language Platform" creationtoolversion="8.0"
 o-tmf="SDL TM8 Format" datatype="xml" segtype="sentence" adminlang="en-GB" srclang="en-GB"/>
<body>
<tu><tuv xml:lang="en-GB"><seg>Click <bpt i="1" type="1" x="1">&lt;b&gt;</bpt>Save<ept
 i="1">&lt;/b&gt;</ept> to keep <ph x="2" type="2">&lt;img/&gt;</ph> changes.</seg></tuv>
<tuv xml:lang="de-DE"><seg>Klicken Sie auf <bpt i="1" type="1" x="1">&lt;b&gt;</bpt>Speichern<ept
 i="1">&lt;/b&gt;</ept>, um <ph x="2"
 type="2">&lt;img/&gt;</ph> Änderungen zu behalten.</seg></tuv></tu>
<tu><tuv xml:lang="en-GB"><seg>Close the <bpt i="1">&lt;i&gt;</bpt>lid<ept
 i="1">&lt;/i&gt;</ept>.</seg></tuv>
<tuv xml:lang="de-DE"><seg>Schließen Sie den Deckel.</seg></tuv></tu>
</body></tmx>
"""

JOB = f"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="{N12}"><file original="ui.html" source-language="en-GB"
 target-language="de-DE" datatype="html"><body>
<trans-unit id="1"><source>Click <g id="5" ctype="bold">Save</g> to keep <x id="6"/>
 changes.</source></trans-unit>
<trans-unit id="2"><source>Click <g id="5">Save</g> to keep changes.</source></trans-unit>
<trans-unit id="3"><source>Close the <g id="1">lid</g>.</source></trans-unit>
</body></file></xliff>
"""


def test_a_tmx_memory_puts_the_tags_where_its_target_had_them(tmp_path: Path) -> None:
    """Tags around translated words: only the memory knows where they go. Its TMX codes are
    kept at import, and the new segment's tags take their counterparts' places in the
    target; where the tags do not correspond, the text rule applies (nothing guessed)."""
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.matching.lookup import Lookup

    (tmp_path / "tm.tmx").write_text(TMX, encoding="utf-8")
    (tmp_path / "job.xlf").write_text(JOB, encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(tmp_path / "tm.tmx", "tm")
        rows = store.conn.execute("SELECT text, meta FROM segments ORDER BY id").fetchall()
        assert rows[0][0] == "Click Save to keep changes."  # the text stays plain
        tags = json.loads(rows[0][1])["tags"]  # offset, kind, id, spaced, the code as written
        assert tags == [
            [6, "open", "i:1", 0, '<bpt i="1" type="1" x="1">&lt;b&gt;</bpt>'],
            [10, "close", "i:1", 0, '<ept i="1">&lt;/b&gt;</ept>'],
            [19, "ph", "x:2", 1, '<ph x="2" type="2">&lt;img/&gt;</ph>'],
        ]
        doc = open_document(tmp_path / "job.xlf")
        lookup = Lookup(store, None, collection="tm", semantic=False)
        pretranslate(doc, analyze(doc, lookup))
        out = doc.save(tmp_path / "job.pre.xlf")
    root = etree.parse(str(out)).getroot()

    def target(tid: str) -> str:
        t = root.find(f".//{{{N12}}}trans-unit[@id='{tid}']/{{{N12}}}target")
        inner = etree.tostring(t, encoding="unicode")
        return inner[inner.index(">") + 1 : inner.rindex("<")].replace(f' xmlns="{N12}"', "")

    assert target("1") == (
        'Klicken Sie auf <g id="5" ctype="bold">Speichern</g>, um <x id="6"/> Änderungen zu '
        "behalten."
    )
    # one tag fewer than the memory's source: no correspondence, and "Save" is not in the
    # target, so the tag is left for the translator
    assert target("2") == "Klicken Sie auf Speichern, um Änderungen zu behalten."
    # the memory's target has no codes at all: nothing to place by, the text rule finds no
    # "lid" either
    assert target("3") == "Schließen Sie den Deckel."


@pytest.mark.parametrize(
    ("seg", "text", "tags"),
    [
        ('<ph x="1">&lt;img/&gt;</ph> Warning: <ph x="2"/>hot', "Warning: hot",
         [[0, "ph", "x:1", 1], [9, "ph", "x:2", 0]]),
        # a code that stands for a placeholder is text of the segment, not a code
        ('<ph x="1">{1}</ph> Warning: <ph x="2"/>hot', "{1} Warning: hot",
         [[13, "ph", "x:2", 0]]),
        ('A<bpt i="3">&lt;b&gt;</bpt><ept i="3">&lt;/b&gt;</ept>B', "AB",
         [[1, "open", "i:3", 0], [1, "close", "i:3", 0]]),
        ("Line<ph>&lt;br/&gt;</ph>two", "Line two", None),  # a code for a break is a space
        ("no codes", "no codes", None),
        ("private \ue000 use<ph x='1'/>", "private \ue000 use", None),  # the mark is taken
    ],
)  # fmt: skip
def test_tmx_codes_are_anchored_in_the_plain_text(seg: str, text: str, tags) -> None:  # type: ignore[no-untyped-def]
    import xml.etree.ElementTree as ET

    from xlsearch.engine.importers.base import ReadContext, normalize
    from xlsearch.engine.importers.inline import inline_text, segment_text_tags

    node = ET.fromstring(f"<seg>{seg}</seg>")
    assert normalize(inline_text(node)) == text
    assert segment_text_tags(ReadContext(Path("m.tmx")), node, "tu 1") == (text, tags)


def test_an_xliff_memory_places_paired_tags_too(tmp_path: Path) -> None:
    """A translated XLIFF imported as a memory keeps its ``g``/``x`` positions as well."""
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.matching.lookup import Lookup

    memory = f"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="{N12}"><file original="old.html" source-language="en-GB"
 target-language="de-DE" datatype="html"><body>
<trans-unit id="1"><source>Open the <g id="1">Settings</g> menu first.</source>
<target state="translated">Öffnen Sie zuerst das Menü <g id="1">Einstellungen</g>.</target>
</trans-unit></body></file></xliff>
"""
    (tmp_path / "old.xlf").write_text(memory, encoding="utf-8")
    job = JOB.replace(
        '<trans-unit id="1">', '<trans-unit id="0"><source>Open the <g id="9">Settings</g> '
        'menu first.</source></trans-unit><trans-unit id="1">', 1
    )  # fmt: skip
    (tmp_path / "job.xlf").write_text(job, encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(tmp_path / "old.xlf", "tm")
        doc = open_document(tmp_path / "job.xlf")
        pretranslate(doc, analyze(doc, Lookup(store, None, collection="tm", semantic=False)))
        out = doc.save(tmp_path / "job.pre.xlf")
    t = etree.parse(str(out)).getroot().find(f".//{{{N12}}}trans-unit[@id='0']/{{{N12}}}target")
    assert etree.tostring(t, encoding="unicode").endswith(
        'Öffnen Sie zuerst das Menü <g id="9">Einstellungen</g>.</target>'
    )


def test_a_100_percent_match_with_the_same_tags_stays_100(tmp_path: Path) -> None:
    """CAT tools' tag penalty applies only when the tags differ: the memory's source with the
    same codes at the same places (ids aside) is a 100 % match and an exact match in the
    file; the same words with a code elsewhere, or a memory without codes, are 99 %."""
    from xlsearch.engine.store import Store
    from xlsearch.engine.tm.analysis.analyze import analyze
    from xlsearch.engine.tm.analysis.pretranslate import pretranslate
    from xlsearch.engine.tm.matching.lookup import Lookup

    def unit(uid: str, source: str, target: str = "") -> str:
        tgt = f'<target state="translated">{target}</target>' if target else ""
        return f'<trans-unit id="{uid}"><source>{source}</source>{tgt}</trans-unit>'

    def xliff(units: str) -> str:
        return (
            f'<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2" xmlns="{N12}">'
            '<file original="a.html" source-language="en" target-language="de" '
            f'datatype="html"><body>{units}</body></file></xliff>'
        )

    memory = unit(
        "1",
        'Open the <g id="1">Settings</g> menu first.',
        'Öffnen Sie zuerst das Menü <g id="1">Einstellungen</g>.',
    )
    memory += unit("2", "Save your work often.", "Speichern Sie oft.")
    (tmp_path / "old.xlf").write_text(xliff(memory), encoding="utf-8")
    job = unit("a", 'Open the <g id="7">Settings</g> menu first.')  # same place, own id
    job += unit("c", 'Save your <x id="4"/>work often.')  # the memory has no code
    (tmp_path / "job.xlf").write_text(xliff(job), encoding="utf-8")
    moved = unit("b", 'Open the Settings <g id="3">menu</g> first.')  # same words, tag moved
    (tmp_path / "moved.xlf").write_text(xliff(moved), encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(tmp_path / "old.xlf", "tm")
        lookup = Lookup(store, None, collection="tm", semantic=False)
        other = analyze(open_document(tmp_path / "moved.xlf"), lookup).segments[0]
        assert (other.fuzzy, other.band) == (99, "95-99%")
        assert other.best.flags[-1] == "tags: new 2 · stored 2"
        doc = open_document(tmp_path / "job.xlf")
        report = analyze(doc, lookup)
        assert [(r.fuzzy, r.band) for r in report.segments] == [(100, "100%"), (99, "95-99%")]
        assert report.segments[1].best.flags[-1] == "tags: new 1 · stored —"
        pretranslate(doc, report)
        out = doc.save(tmp_path / "job.pre.xlf")
    root = etree.parse(str(out)).getroot()
    targets = root.findall(f".//{{{N12}}}trans-unit/{{{N12}}}target")
    assert [t.get("state-qualifier") for t in targets] == ["exact-match", "fuzzy-match"]
    target = etree.tostring(targets[0], encoding="unicode")
    assert 'Menü <g id="7">Einstellungen</g>.</target>' in target


def test_a_tmx_exported_again_keeps_its_inline_codes(tmp_path: Path) -> None:
    """Lossless: the codes of an imported TMX are written back where they stood."""
    from xlsearch.engine.export.writer import export_store
    from xlsearch.engine.store import Store

    (tmp_path / "tm.tmx").write_text(TMX, encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(tmp_path / "tm.tmx", "tm")
        export_store(store, tmp_path / "out.tmx", "tm")
    segs = [
        etree.tostring(s, encoding="unicode").split(">", 1)[1].rsplit("<", 1)[0]
        for s in etree.parse(str(tmp_path / "out.tmx")).getroot().iter("seg")
    ]
    assert segs[:2] == [
        'Click <bpt i="1" type="1" x="1">&lt;b&gt;</bpt>Save<ept i="1">&lt;/b&gt;</ept> to keep '
        '<ph x="2" type="2">&lt;img/&gt;</ph> changes.',
        'Klicken Sie auf <bpt i="1" type="1" x="1">&lt;b&gt;</bpt>Speichern<ept i="1">&lt;/b&gt;'
        '</ept>, um <ph x="2" type="2">&lt;img/&gt;</ph> Änderungen zu behalten.',
    ]


@pytest.mark.parametrize(
    "hint", [([["x"]], [[0, "ph"]]), ("junk", 5), ([[0, "ph", "x:1"]], [[99, "ph", "x:1"]])]
)
def test_memory_tags_that_make_no_sense_fall_back_to_the_text_rule(hint) -> None:  # type: ignore[no-untyped-def]
    src = _source('Press <g id="1">Start</g> now<x id="2"/>')
    target = etree.Element(f"{{{N12}}}target", nsmap={None: N12})
    assert set_target(target, "Drücken Sie jetzt Start", src, hint) == 2  # g by text, x at end
    assert "".join(target.itertext()) == "Drücken Sie jetzt Start"


MEM_SRC = [[9, "open", "id:1", 0], [17, "close", "id:1", 0], [23, "ph", "id:2", 0]]
MEM_TGT_TEXT = "Öffnen Sie zuerst das Menü Einstellungen und dann die Liste."
MEM_TGT = [[27, "open", "id:1", 0], [40, "close", "id:1", 0], [45, "ph", "id:2", 0]]


def _marked(hint, text: str) -> str | None:  # type: ignore[no-untyped-def]
    if hint is None:
        return None
    out = text
    for offset, kind, *_ in sorted(hint[1], key=lambda t: -t[0]):
        out = out[:offset] + {"open": "<g>", "close": "</g>", "ph": "<x/>"}[kind] + out[offset:]
    return out


@pytest.mark.parametrize(
    ("edited", "expected"),
    [
        # words inserted before a tag stay outside it; the tag keeps its words
        ("Öffnen Sie bitte zuerst das Menü Einstellungen und dann die Liste.",
         "Öffnen Sie bitte zuerst das Menü <g>Einstellungen</g> und <x/>dann die Liste."),
        # the tagged word replaced: the tag wraps the new word
        ("Öffnen Sie zuerst das Menü Optionen und dann die Liste.",
         "Öffnen Sie zuerst das Menü <g>Optionen</g> und <x/>dann die Liste."),
        # words dropped around the tags
        ("Öffnen Sie das Menü Einstellungen und dann die Liste.",
         "Öffnen Sie das Menü <g>Einstellungen</g> und <x/>dann die Liste."),
        # a tag's neighbours rewritten: no clear place, the text rule decides
        ("Danach die Liste, vorher das Menü Einstellungen.", None),
    ],
)  # fmt: skip
def test_tags_follow_the_words_when_the_translator_edits_a_match(edited, expected) -> None:  # type: ignore[no-untyped-def]
    from xlsearch.engine.tm.documents.tags import follow_edit

    assert _marked(follow_edit((MEM_SRC, MEM_TGT), MEM_TGT_TEXT, edited), edited) == expected


def test_an_edited_match_is_saved_with_its_tags_where_the_words_went(tmp_path: Path) -> None:
    """The Translate screen's path: a match inserted, then edited; the saved XLIFF has the
    memory's tag placement carried through the edit (before, the text rule left it out)."""
    job = JOB.replace(
        '<trans-unit id="1">', '<trans-unit id="0"><source>Open the <g id="9">Settings</g> '
        'menu <x id="8"/>and then the list.</source></trans-unit><trans-unit id="1">', 1
    )  # fmt: skip
    (tmp_path / "job.xlf").write_text(job, encoding="utf-8")
    doc = open_document(tmp_path / "job.xlf")
    edited = "Öffnen Sie bitte das Menü Optionen und dann die Liste."
    doc.set_target(0, edited, origin="edited", tag_hint=(MEM_SRC, MEM_TGT),
                   edited_from=MEM_TGT_TEXT)  # fmt: skip
    out = doc.save(tmp_path / "job.out.xlf")
    t = etree.parse(str(out)).getroot().find(f".//{{{N12}}}trans-unit[@id='0']/{{{N12}}}target")
    assert etree.tostring(t, encoding="unicode").endswith(
        'Öffnen Sie bitte das Menü <g id="9">Optionen</g> und <x id="8"/>dann die Liste.</target>'
    )
