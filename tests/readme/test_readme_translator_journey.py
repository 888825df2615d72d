"""The translators' guide runs verbatim: the sections "Align old translations", then
"Translate with your memory" of ``docs/translators.md`` (the README's translator chapter) — as
a new user types them, in a fresh XLSEARCH_HOME with the default (bundled) model, on
documents written the way Word, Markdown editors and CAT tools write them.

Between the two sections the test does what the Translate section's prose asks for
(``xlsearch import tm.tmx --collection tm``, then ``xlsearch index``). Each step's output is
checked against what the README promises (files, languages, fuzzy %, flags, bands, states).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.journey import ROOT, Journey, section_blocks, shell_steps, subcommand

GUIDE = ROOT / "docs" / "translators.md"
"""Where the README's translator chapter lives."""
ALIGN = "## Align old translations"
TRANSLATE = "## Translate with your memory"

CONTRACT = [  # (German, French) paragraphs; the second French paragraph joins two sentences
    (
        ["Dieser Vertrag gilt ab dem 1. Januar 2025.", "Er ersetzt alle früheren Vereinbarungen."],
        ["Ce contrat s'applique à partir du 1er janvier 2025.",
         "Il remplace tous les accords antérieurs."],
    ),
    (
        ["Der Mieter zahlt die Miete monatlich im Voraus.", "Die Zahlung erfolgt per Überweisung.",
         "Bei Verzug werden Zinsen von 5 Prozent fällig."],
        ["Le locataire paie le loyer mensuellement d'avance, par virement bancaire.",
         "En cas de retard, des intérêts de 5 pour cent sont dus."],
    ),
    (
        ["Die Kündigungsfrist beträgt drei Monate.", "Jede Kündigung bedarf der Schriftform."],
        ["Le délai de préavis est de trois mois.", "Toute résiliation doit être faite par écrit."],
    ),
]  # fmt: skip

REPORT_EN = """# Annual report

The company grew by twelve percent last year. Most of the growth came from exports.

## Outlook

We expect another good year. The board will meet again in March.
"""
BERICHT_DE = """# Jahresbericht

Das Unternehmen ist im letzten Jahr um zwölf Prozent gewachsen. Der größte Teil des Wachstums kam aus dem Export.

## Ausblick

Wir erwarten ein weiteres gutes Jahr. Der Vorstand tritt im März wieder zusammen.
"""  # noqa: E501

TM_UNITS = [
    ("Press the power button for 5 seconds.",
     "Halten Sie die Ein-/Aus-Taste 5 Sekunden lang gedrückt."),
    ("The battery is almost empty.", "Der Akku ist fast leer."),
    ("Close the cover before you start the device.",
     "Schließen Sie die Abdeckung, bevor Sie das Gerät starten."),
    ("Do not expose the device to rain.", "Setzen Sie das Gerät keinem Regen aus."),
]  # fmt: skip

JOB = [  # segments of the document to translate
    "Close the cover before you start the device.",  # 100 %
    "Press the power button for 10 seconds.",  # fuzzy, a number differs
    "Keep the device away from water and rain.",  # paraphrase
    "The warranty covers two years.",  # nothing in the memory
]


def write_docx(path: Path, paragraphs: list[list[str]]) -> None:
    import docx

    doc = docx.Document()
    for sentences in paragraphs:
        doc.add_paragraph(" ".join(sentences))
    doc.save(str(path))


def write_tmx(path: Path) -> None:
    tus = "\n".join(
        f'  <tu creationid="ANNA" creationdate="20240105T101500Z">\n'
        f'   <tuv xml:lang="en-US"><seg>{en}</seg></tuv>\n'
        f'   <tuv xml:lang="de-DE"><seg>{de}</seg></tuv>\n  </tu>'
        for en, de in TM_UNITS
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n'
        '<header creationtool="SDL Language Platform" creationtoolversion="8.0" '
        'segtype="sentence" o-tmf="SDL TM8 Format" adminlang="en-US" srclang="en-US" '
        'datatype="xml"/>\n<body>\n' + tus + "\n</body>\n</tmx>\n",
        encoding="utf-8",
    )


def write_xliff(path: Path) -> None:
    units = "\n".join(
        f'   <trans-unit id="{i}"><source>{text}</source><target/></trans-unit>'
        for i, text in enumerate(JOB, 1)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
        ' <file original="manual.docx" source-language="en-US" target-language="de-DE" '
        'datatype="plaintext">\n  <body>\n' + units + "\n  </body>\n </file>\n</xliff>\n",
        encoding="utf-8",
    )


def make_documents(folder: Path) -> None:
    write_docx(folder / "contract-de.docx", [de for de, _ in CONTRACT])
    write_docx(folder / "contract-fr.docx", [fr for _, fr in CONTRACT])
    (folder / "report.md").write_text(REPORT_EN, encoding="utf-8")
    (folder / "bericht.md").write_text(BERICHT_DE, encoding="utf-8")
    de = [s for p, _ in CONTRACT for s in p]
    fr = [s for _, p in CONTRACT for s in p]
    (folder / "dev.de").write_text("\n".join(de) + "\n", encoding="utf-8")
    (folder / "dev.fr").write_text("\n".join(fr) + "\n", encoding="utf-8")
    write_tmx(folder / "tm.tmx")
    write_xliff(folder / "job.xlf")


def check_align(step_line: str, err: str, folder: Path) -> None:
    target = step_line.split("#")[0]
    # a fresh home's model is the English teacher: the user is told what that means
    unseen = "de" if "report.md" in target else "de, fr"
    assert f"notice: model bundled:teacher was not trained on {unseen}:" in err, err
    if "contract.tmx" in target:
        tmx = (folder / "contract.tmx").read_text("utf-8")
        assert tmx.count("<tu") >= 5, tmx  # 7 German sentences, 6 French: 6 beads or so
        assert 'xml:lang="de' in tmx and 'xml:lang="fr' in tmx, tmx
        assert "contract-de.docx" in tmx and "contract-fr.docx" in tmx  # document names
        assert "Die Kündigungsfrist beträgt drei Monate." in tmx
    elif "pairs.tsv" in target:
        rows = [r.split("\t") for r in (folder / "pairs.tsv").read_text("utf-8").splitlines()]
        assert rows and all(len(r) >= 2 for r in rows), rows
        english = [r[0] for r in rows if not r[0].startswith(("en", "lang"))]
        assert any("twelve percent" in e for e in english), rows  # English first
        assert not any("Prozent" in e for e in english), rows
    elif "dev.beads" in target:
        lines = (folder / "dev.beads").read_text("utf-8").splitlines()
        assert lines and all(re.fullmatch(r"\[[\d, ]*\]:\[[\d, ]*\]:[\d.]+", x) for x in lines)
        covered = sorted(int(i) for x in lines for i in re.findall(r"\d+", x.split("]:")[0]))
        assert covered == list(range(7)), lines  # every German line exactly once, in order


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_readme_align_and_translate_journey(tmp_path: Path) -> None:
    folder, home = tmp_path / "work", tmp_path / "home"
    folder.mkdir()
    make_documents(folder)
    j = Journey(folder, home)
    text = GUIDE.read_text("utf-8")

    align_steps = shell_steps(section_blocks(text, ALIGN))
    assert [subcommand(s) for s in align_steps] == ["align"] * 3
    for line in align_steps:
        step = j.run(line).ok()
        check_align(line, step.err, folder)
    listing = j.run("xlsearch collections").ok()
    assert re.search(r"^tm\s+1\s+\d+\s+de \d+, fr \d+$", listing.out, re.M), listing.out

    # what the Translate section's prose asks for first
    j.run("xlsearch import tm.tmx --collection tm").ok()
    j.run("xlsearch index").ok()

    translate_steps = shell_steps(section_blocks(text, TRANSLATE))
    assert [subcommand(s) for s in translate_steps] == ["lookup", "analyze"]
    lookup = j.run(translate_steps[0]).ok()
    first = lookup.out.split("\n2. ")[0]
    assert re.search(r"^1\. fuzzy\s+98%", first, re.M), lookup.out  # a repaired match
    assert "[-5-] {+10+}" in first, lookup.out
    assert "de-DE: Halten Sie die Ein-/Aus-Taste 10 Sekunden lang gedrückt." in first or (
        "de: Halten Sie die Ein-/Aus-Taste 10 Sekunden lang gedrückt." in first
    ), lookup.out
    assert "(memory: Halten Sie die Ein-/Aus-Taste 5 Sekunden lang gedrückt.)" in first
    assert "repaired: numbers 10 (differs in numbers)" in first, lookup.out

    analyze = j.run(translate_steps[1]).ok()
    report = (folder / "job.md").read_text("utf-8")
    assert "· model bundled:teacher ·" in report, report  # the model by its name
    for band, segments in (("100%", 1), ("95-99%", 1), ("no match", 2), ("repetitions", 0)):
        assert re.search(rf"^\| {band} \| {segments} \|", report, re.M), report
    # the band no CAT tool has: the paraphrase, with the memory's translation
    assert re.search(r"^\| \*\*semantic\*\* .* \| 1 \| 8 \|", report, re.M), report
    assert "Keep the device away from water and rain." in report
    assert "target: Setzen Sie das Gerät keinem Regen aus." in report
    out = (folder / "job.pretranslated.xlf").read_text("utf-8")
    assert out.count("<trans-unit") == len(JOB)
    assert "Schließen Sie die Abdeckung, bevor Sie das Gerät starten." in out
    assert 'state="needs-review-translation"' in out and "match-quality" in out
    assert 'source-language="en-US"' in out and 'target-language="de-DE"' in out
    assert "Traceback" not in analyze.err
