"""xlsearch check: rule flags on a real-looking catalogue, the calibrated semantic flags,
and a model that cannot tell a pair apart saying so instead of flagging."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from xlsearch.cli import main
from xlsearch.engine.qa import QaUnit, check_units

# English UI strings and French translations, as a GTK catalogue writes them.
GOOD = [
    ("_Open", "_Ouvrir"),
    ("_Save As…", "Enregistrer _sous…"),
    ("Copy %d files", "Copier %d fichiers"),
    ("Move “%s” to the trash?", "Mettre « %s » à la corbeille ?"),
    ("%1$s of %2$s", "%1$s sur %2$s"),
    ("Free space: {size}", "Espace libre : {size}"),
    ("Page 3 of 10", "Page 3 sur 10"),
    ("<b>Warning</b>", "<b>Attention</b>"),
    ("Show hidden files", "Afficher les fichiers cachés"),
    ("Delete the selected files permanently", "Supprimer définitivement les fichiers choisis"),
]


def _po(path: Path, pairs: list[tuple[str, str]], lang: str = "fr") -> Path:
    def q(text: str) -> str:
        return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

    head = f'"Language: {lang}\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    body = [f'msgid ""\nmsgstr ""\n{head}']
    for n, (s, t) in enumerate(pairs):
        body.append(f'msgctxt "u{n}"\nmsgid "{q(s)}"\nmsgstr "{q(t)}"\n')
    path.write_text("\n".join(body), encoding="utf-8")
    return path


def _flags(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict]:
    code = main(["check", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_rule_checks_flag_injected_errors_and_leave_good_units_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = [
        ("Copy %d files to %s", "Copier %d fichiers"),  # placeholder dropped
        ("Page 4 of 12", "Page 4 sur 13"),  # number changed
        ("Open the file in a new window", "Open the file in a new window"),  # source copied
        ("_Rename", "Renommer"),  # mnemonic lost
        ("<b>Name</b>", "<b>Nom"),  # markup lost
        ("Search files", "Rechercher rechercher des fichiers"),  # doubled word
    ]
    path = _po(tmp_path / "fr.po", GOOD + bad)
    code, out = _flags(capsys, [str(path), "--rules-only"])
    assert code == 1  # an error-severity flag
    assert out["checked"] == len(GOOD) + len(bad)
    kinds = {(f["msgid"], f["kind"]) for f in out["flags"]}
    assert ("Copy %d files to %s", "placeholders") in kinds
    assert ("Page 4 of 12", "numbers") in kinds
    assert ("Open the file in a new window", "untranslated") in kinds
    assert ("_Rename", "mnemonics") in kinds
    assert ("<b>Name</b>", "tags") in kinds
    assert ("Search files", "doubled-words") in kinds
    flagged_good = {f["source"] for f in out["flags"]} & {s for s, _ in GOOD}
    assert not flagged_good, flagged_good
    first = out["flags"][0]
    assert {"file", "unit", "source", "target", "kind", "severity", "explanation"} <= set(first)


def test_a_po_unit_id_reads_msgctxt_and_msgid_without_gettexts_control_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _po(tmp_path / "fr.po", [("Open %s", "Ouvrir"), ("Save", "Save")])
    report = tmp_path / "flags.tsv"
    _, out = _flags(capsys, [str(path), "--rules-only", "--report", str(report)])
    first = out["flags"][0]
    assert (first["unit"], first["msgctxt"], first["msgid"]) == ("u0 | Open %s", "u0", "Open %s")
    text = report.read_text(encoding="utf-8")
    assert "u0 | Open %s" in text and "u1 | Save" in text
    assert not any(ord(c) < 32 and c not in "\t\n" for c in text)


def test_cjk_mnemonic_and_full_width_punctuation_are_not_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = [
        ("_Open", "開く(_O)"),
        ("_Save", "保存(_S)"),
        ("Rename the file?", "ファイル名を変更しますか？"),
        ("Files: %d", "ファイル: %d"),
        ("_Quit", "終了"),  # mnemonic lost
    ]
    code, out = _flags(capsys, [str(_po(tmp_path / "ja.po", pairs, "ja")), "--rules-only"])
    flagged = {(f["source"], f["kind"]) for f in out["flags"] if f["severity"] != "info"}
    assert flagged == {("_Quit", "mnemonics")}
    assert code == 0


def test_a_target_in_another_script_is_wrong_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = [("Open the folder", "Открыть папку"), ("Close the window", "Fermer la fenêtre")]
    _, out = _flags(capsys, [str(_po(tmp_path / "ru.po", pairs, "ru")), "--rules-only"])
    assert [(f["source"], f["kind"]) for f in out["flags"]] == [
        ("Close the window", "wrong-language")
    ]


def test_xliff_inline_codes_lost_in_the_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "job.xlf"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        '<file source-language="en" target-language="de" datatype="plaintext" original="a">'
        "<body>"
        '<trans-unit id="1"><source>Click <g id="1">Save</g> now</source>'
        "<target>Jetzt Speichern klicken</target></trans-unit>"
        '<trans-unit id="2"><source>Click <g id="1">Open</g></source>'
        '<target><g id="1">Öffnen</g> klicken</target></trans-unit>'
        "</body></file></xliff>",
        encoding="utf-8",
    )
    _, out = _flags(capsys, [str(path), "--rules-only"])
    assert [(f["unit"], f["kind"]) for f in out["flags"]] == [("1", "tags")]


class _PairEncoder:
    """A stand-in model: a source and its translation share a random direction (plus
    noise); ``blind`` gives every text its own direction (a model that knows no pair)."""

    def __init__(
        self, pairs: list[tuple[str, str]], blind: bool = False, loose: float = 0.3
    ) -> None:
        rng = np.random.default_rng(3)
        self.vec: dict[str, np.ndarray] = {}
        self.noise: dict[str, float] = {}
        for s, t in pairs:
            base = rng.normal(size=256)
            # ``loose``: each target's noise level spread up to this (free translations).
            noise = self.noise[t] = 0.3 if loose == 0.3 else rng.uniform(0.3, loose)
            self.vec[s] = base + 0.3 * rng.normal(size=256)
            self.vec[t] = (rng.normal(size=256) if blind else base) + noise * rng.normal(size=256)
        self.rng = rng

    def encode(self, texts: list[str], **_: object) -> np.ndarray:
        out = np.stack([self.vec.get(t, self.rng.normal(size=256)) for t in texts])
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def _units(n: int) -> list[tuple[str, str]]:
    return [(f"source sentence {i}", f"phrase cible {i}") for i in range(n)]


def test_swapped_targets_are_flagged_with_a_threshold_measured_on_the_file() -> None:
    pairs = _units(200)
    enc = _PairEncoder(pairs)
    units = [QaUnit("f", str(i), s, t) for i, (s, t) in enumerate(pairs)]
    for i, j in ((3, 40), (77, 150)):  # swap two pairs of targets
        units[i], units[j] = (
            QaUnit("f", str(i), pairs[i][0], pairs[j][1]),
            QaUnit("f", str(j), pairs[j][0], pairs[i][1]),
        )
    flags, cal = check_units(units, "en", "fr", encoder=enc)
    assert cal is not None and cal.supported
    mis = {f.key for f in flags if f.kind == "mistranslation"}
    # The threshold lets 97 % of shuffled pairs fall below it: most swaps, no good pair.
    assert mis <= {"3", "40", "77", "150"} and len(mis) >= 3, mis


def test_free_translations_are_not_flagged_where_the_file_is_full_of_them() -> None:
    # News translated freely: the model's margins of right pairs spread far, some as low
    # as shuffled pairs'. A bar measured on the shuffled pairs alone flagged about one right
    # pair in ten; the file's own pairs set it now.
    pairs = [(f"source sentence {i}", f"Satz {i}") for i in range(400)]
    enc = _PairEncoder(pairs, loose=8.0)
    units = [QaUnit("f", str(i), s, t, line=i + 1) for i, (s, t) in enumerate(pairs)]
    # Two lines shifted from 7 further down, whose own translations the model knows well.
    shifted = [i for i in range(390) if enc.noise[pairs[i + 7][1]] < 1.0][:2]
    for i in shifted:
        units[i] = QaUnit("f", str(i), pairs[i][0], pairs[i + 7][1], line=i + 1)
    flags, cal = check_units(units, "en", "de", encoder=enc)
    assert cal is not None and cal.supported
    mis = {f.key for f in flags if f.kind == "mistranslation"}
    assert {str(i) for i in shifted} <= mis
    assert len(mis - {str(i) for i in shifted}) <= 0.03 * 398, sorted(mis)


def test_a_model_that_cannot_tell_the_pair_apart_says_so_and_flags_nothing() -> None:
    pairs = _units(200)
    enc = _PairEncoder(pairs, blind=True)
    units = [QaUnit("f", str(i), s, t) for i, (s, t) in enumerate(pairs)]
    flags, cal = check_units(units, "en", "fr", encoder=enc)
    assert cal is not None and not cal.supported
    assert "cannot tell en → fr translations" in cal.note
    assert not [f for f in flags if f.kind == "mistranslation"]


def test_nothing_to_check_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["check"]) == 2
    assert "nothing to check" in capsys.readouterr().err
    doc = tmp_path / "a.txt"
    doc.write_text("hello\n", encoding="utf-8")
    assert main(["check", str(doc), "--rules-only"]) == 2
    assert "no targets to check" in capsys.readouterr().err


def test_a_collection_is_checked_and_a_memory_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmx = tmp_path / "tm.tmx"
    tus = "".join(
        f'<tu><tuv xml:lang="en"><seg>{s}</seg></tuv><tuv xml:lang="fr"><seg>{t}</seg></tuv></tu>'
        for s, t in [("Show hidden files", "Afficher les fichiers cachés"), ("Page 4", "Page 5")]
    )
    tmx.write_text(
        f'<?xml version="1.0"?><tmx version="1.4"><header srclang="en" datatype="plaintext" '
        f'segtype="sentence" adminlang="en" creationtool="t" creationtoolversion="1" '
        f'o-tmf="t"/><body>{tus}</body></tmx>',
        encoding="utf-8",
    )
    assert main(["import", str(tmx), "--collection", "tm", "-q"]) == 0
    capsys.readouterr()
    _, out = _flags(capsys, ["--collection", "tm", "--src", "en", "--tgt", "fr", "--rules-only"])
    assert out["checked"] == 2
    assert [(f["source"], f["kind"]) for f in out["flags"]] == [("Page 4", "numbers")]
    po = _po(tmp_path / "fr.po", [("Show hidden files", "Montrer les fichiers cachés")])
    argv = [str(po), "--memory", "tm", "--src", "en", "--tgt", "fr", "--rules-only"]
    _, out = _flags(capsys, [*argv, "--severity", "info"])
    assert [f["kind"] for f in out["flags"]] == ["consistency"]
    assert "Afficher les fichiers cachés" in out["flags"][0]["explanation"]
    # The memory's only translation: a warning, shown by default; the PO names its pair.
    _, out = _flags(capsys, [str(po), "--memory", "tm", "--rules-only"])
    assert [(f["kind"], f["severity"]) for f in out["flags"]] == [("consistency", "warning")]
    assert "always translates" in out["flags"][0]["explanation"]
    # A collection alone does not say its pair: the hint's example is the collection's.
    assert main(["check", "--collection", "tm", "--rules-only"]) == 2
    assert "--src en --tgt fr" in capsys.readouterr().err


def test_a_short_copy_of_words_the_file_translates_is_a_warning_and_a_name_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = [
        ("Go _Back", "_Retroceder"),
        ("_Go to Location...", "_Ir a la ubicación…"),
        ("Go to the parent folder", "Ir a la carpeta superior"),
        ("_Help", "Ay_uda"),
        ("Display the help", "Mostrar la ayuda"),
        ("About Thunar", "Acerca de Thunar"),
        ("Thunar Preferences", "Preferencias de Thunar"),
        ("_Go", "_Go"),  # left in English: the file translates "go" everywhere else
        ("Help", "Help"),
        ("Thunar", "Thunar"),  # the program's name, kept
    ]
    _, out = _flags(capsys, [str(_po(tmp_path / "es.po", pairs, "es")), "--rules-only"])
    warned = {f["source"] for f in out["flags"] if f["kind"] == "untranslated"
              and f["severity"] == "warning"}  # fmt: skip
    assert warned == {"_Go", "Help"}


def test_a_team_that_often_leaves_mnemonics_out_gets_notes_not_warnings() -> None:
    """Dropped mnemonics in one unit of five (a team's habit, measured on 20 or more) are
    notes; one slip among units that keep them is a warning."""
    words = [f"Item{chr(97 + i)}" for i in range(25)]
    habit = [(f"_{w}", f"{w}x" if i % 5 == 0 else f"_{w}x") for i, w in enumerate(words)]
    slips = [(f"_{w}", f"{w}x" if i == 0 else f"_{w}x") for i, w in enumerate(words)]
    for pairs, want in ((habit, "info"), (slips, "warning")):
        units = [QaUnit("fr.po", s, s, t, line=n) for n, (s, t) in enumerate(pairs)]
        flags, _ = check_units(units, "en", "fr")
        got = {f.severity for f in flags if f.kind == "mnemonics"}
        assert got == {want}, (want, [(f.source, f.severity) for f in flags])


def _project(tmp_path: Path, rows: list[tuple[str, dict[str, str]]]) -> list[str]:
    """One catalogue translated into several languages: a PO file per language."""
    langs = list(rows[0][1])
    return [
        str(_po(tmp_path / f"{lang}.po", [(s, by[lang]) for s, by in rows], lang)) for lang in langs
    ]


PROJECT = [
    ("Open the file", {"fr": "Ouvrir le fichier", "de": "Datei öffnen", "es": "Abrir el archivo",
                       "it": "Apri il file"}),
    ("Save the document", {"fr": "Enregistrer le document", "de": "Dokument speichern",
                           "es": "Guardar el documento", "it": "Salva il documento"}),
    ("Recent", {"fr": "Recent", "de": "Zuletzt verwendet", "es": "Recientes", "it": "Recenti"}),
    ("Brave", {"fr": "Brave", "de": "Brave", "es": "Brave", "it": "Brave"}),
    ("Trash", {"fr": "Corbeille", "de": "Papierkorb", "es": "Papelera", "it": "Cestino"}),
    ("Empty", {"fr": "Vider", "de": "Leeren", "es": "Vaciar", "it": "Svuota"}),
    ("Empty the trash", {"fr": "Vider la corbeille", "de": "Vaciar la papelera",
                         "es": "Vaciar la papelera", "it": "Svuota il cestino"}),
    ("Close the window", {"fr": "Fermer la fenêtre", "de": "Fenster schließen",
                          "es": "Cerrar la ventana", "it": "Chiudi la finestra"}),
]  # fmt: skip


def test_other_languages_checked_together_tell_a_name_from_a_forgotten_translation(
    tmp_path: Path,
) -> None:
    """A copied source that the other languages translate is a slip; one they all keep as
    written (a browser's name) is a note; a target with words only another language's
    translations use is in that language."""
    from xlsearch.engine.qa import check_files

    paths = _project(tmp_path, PROJECT)
    flags = check_files(paths).flags
    fr = {(f.source, f.kind): f.severity for f in flags if f.file.endswith("fr.po")}
    assert fr[("Recent", "untranslated")] == "warning"
    assert fr.get(("Brave", "untranslated"), "info") == "info"
    de = [f for f in flags if f.file.endswith("de.po") and f.kind == "wrong-language"]
    assert [(f.source, f.severity) for f in de] == [("Empty the trash", "error")]
    assert "words only its es translations use" in de[0].message
    alone = check_files([paths[0]]).flags  # French alone: nothing says "Brave" is a name
    assert ("Brave", "warning") in {(f.source, f.severity) for f in alone}


def test_a_space_every_other_language_drops_too_is_a_note(tmp_path: Path) -> None:
    rows = PROJECT + [
        ("Size: ", {"fr": "Taille :", "de": "Größe:", "es": "Tamaño:", "it": "Dimensione:"}),
        ("Name: ", {"fr": "Nom :", "de": "Name: ", "es": "Nombre: ", "it": "Nome: "}),
    ]
    from xlsearch.engine.qa import check_files

    flags = check_files(_project(tmp_path, rows)).flags
    fr = {
        f.source: f.severity for f in flags if f.file.endswith("fr.po") and f.kind == "whitespace"
    }
    assert fr == {"Size: ": "info", "Name: ": "warning"}


def test_a_capital_inside_a_sentence_is_another_word_not_a_doubled_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pairs = [
        ("Do you want to replace them?", "Wollen Sie sie ersetzen?"),
        ("…, if you do not save them.", "…, wenn Sie sie nicht speichern."),
        ("Files that the application opens", "Dateien, die die Anwendung öffnet"),
        ("Search files", "Suchen suchen Dateien"),
    ]
    _, out = _flags(capsys, [str(_po(tmp_path / "de.po", pairs, "de")), "--rules-only"])
    doubled = {f["source"] for f in out["flags"] if f["kind"] == "doubled-words"}
    assert doubled == {"Search files"}


PLURAL_PO = """msgid ""
msgstr ""
"Language: {lang}\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: {rule}\\n"

#: src/view.c:120
#, c-format
msgid "%d line"
msgid_plural "%d lines"
{forms}
"""


def test_every_plural_form_is_checked_against_msgid_plural(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "de.po"
    forms = 'msgstr[0] "%d Zeile"\nmsgstr[1] "Zeilen"'
    rule = "nplurals=2; plural=(n != 1);"
    path.write_text(PLURAL_PO.format(lang="de", rule=rule, forms=forms), encoding="utf-8")
    _, out = _flags(capsys, [str(path), "--rules-only"])
    assert out["checked"] == 1
    assert [(f["unit"], f["source"], f["kind"]) for f in out["flags"]] == [
        ("%d line | msgstr[1]", "%d lines", "placeholders")
    ]


def test_a_plural_form_for_one_number_only_may_leave_the_number_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Arabic: forms for 0, 1 and 2 say the number in words; form 4 lost its %d.
    rule = (
        "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 "
        ": n%100>=11 ? 4 : 5;"
    )
    texts = ["لا أسطر", "سطر واحد", "سطران", "%d أسطر", "سطرًا", "%d سطر"]
    forms = "\n".join(f'msgstr[{n}] "{t}"' for n, t in enumerate(texts))
    path = tmp_path / "ar.po"
    path.write_text(PLURAL_PO.format(lang="ar", rule=rule, forms=forms), encoding="utf-8")
    _, out = _flags(capsys, [str(path), "--rules-only"])
    units = {f["unit"] for f in out["flags"] if "msgstr[" in f["unit"]}
    assert units == {"%d line | msgstr[4]"}


def test_rows_a_tsv_reader_skips_are_named_and_one_unit_is_one_unit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "job.tsv"
    path.write_text(
        "Open the file\tDatei öffnen\nA line without a tab\nSave\tSpeichern\textra\n",
        encoding="utf-8",
    )
    assert main(["check", str(path), "--src", "en", "--tgt", "de", "--rules-only"]) == 0
    out, err = capsys.readouterr()
    assert "1 unit checked" in out
    assert f"{path}:2: 1 columns instead of 2; row skipped" in err
    assert f"{path}:3: 3 columns instead of 2; row skipped" in err


def test_a_digit_changed_inside_a_name_is_a_number_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pairs = [
        ("Xfwm4 settings", "Xfwm7-Einstellungen"),
        ("Use W3M as the text browser", "W6M als Textbrowser verwenden"),
        ("Play MP3 files", "MP3-Dateien abspielen"),
        ("Int64 value", "64-Bit-Wert"),
    ]
    _, out = _flags(capsys, [str(_po(tmp_path / "de.po", pairs, "de")), "--rules-only"])
    got = {(f["source"], f["explanation"]) for f in out["flags"] if f["kind"] == "numbers"}
    assert got == {
        ("Xfwm4 settings", "a name's digits differ: Xfwm4 → Xfwm7"),
        ("Use W3M as the text browser", "a name's digits differ: W3M → W6M"),
    }


def test_the_pair_hint_names_the_collections_own_languages() -> None:
    from xlsearch.service.qa import _pair_example

    class _Store:
        def languages(self, collection: str | None = None) -> dict[str, int]:
            return {"de": 8370, "en": 8370}

    assert _pair_example(_Store(), "de-mem") == "--src en --tgt de"


def test_a_tsv_without_a_header_is_checked_in_the_languages_its_columns_are_written_in(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = [
        ("The weather will be fine tomorrow.", "Das Wetter wird morgen schön."),
        ("Prices rose by 3 percent last year.", "Die Preise stiegen im letzten Jahr um 4 Prozent."),
        ("The museum opens again in the spring.", "Das Museum öffnet im Frühling wieder."),
        ("Nobody knew where the keys were.", "Niemand wusste, wo die Schlüssel waren."),
    ]
    path = tmp_path / "news.tsv"
    path.write_text("".join(f"{s}\t{t}\n" for s, t in rows), encoding="utf-8")
    _, out = _flags(capsys, [str(path), "--rules-only"])
    assert out["checked"] == 4
    assert [(f["line"], f["kind"]) for f in out["flags"]] == [(2, "numbers")]


def test_an_xliff_flag_names_the_line_and_the_resname(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "job.xlf"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
        '<file original="app.properties" source-language="en-US" target-language="de-DE" '
        'datatype="javapropertyresourcebundle"><body>\n'
        '<trans-unit id="1" resname="menu.save"><source>Save</source>'
        "<target>Speichern</target></trans-unit>\n"
        '<trans-unit id="2" resname="menu.open"><source>Open %s</source>'
        "<target>Öffnen</target></trans-unit>\n"
        "</body></file></xliff>\n",
        encoding="utf-8",
    )
    assert main(["check", str(path), "--rules-only"]) == 1
    out = capsys.readouterr().out
    assert f"{path}:5  [2 menu.open]  error placeholders" in out


def test_a_small_number_the_translation_writes_in_words_is_not_missing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("num2words")  # a dependency: a venv made before it lacks it
    pairs = [
        ("It enjoyed its 5 minutes of fame.", "Es hatte seine fünf Minuten Ruhm."),
        ("A pension with 3 rooms", "Eine Pension mit drei Zimmern"),
        ("Wait 5 minutes", "Warten Sie sechs Minuten"),
    ]
    _, out = _flags(capsys, [str(_po(tmp_path / "de.po", pairs, "de")), "--rules-only"])
    assert [f["source"] for f in out["flags"] if f["kind"] == "numbers"] == ["Wait 5 minutes"]


def test_a_copied_sentence_is_no_keyword_list_and_english_in_japanese_is_a_slip() -> None:
    japanese = [
        ("_Open", "開く(_O)"), ("_Save", "保存(_S)"), ("_Close", "閉じる(_C)"),
        ("Show hidden files", "隠しファイルを表示"),
        ("Create a new folder", "新しいフォルダーを作成"),
        ("Empty the trash", "ゴミ箱を空にする"), ("File name:", "ファイル名:"),
    ] * 3  # fmt: skip
    copies = [
        "Unknown",  # plain English in a Japanese file: a slip
        "Many fonts contain hints; use them to render small sizes better",  # a sentence
        "text;editor;notes;",  # a keyword list: the team's own search terms
        "GNOME",  # an acronym
        "Sylpheed",  # a program's name
    ]
    units = [QaUnit("ja.po", s, s, t, line=n) for n, (s, t) in enumerate(japanese)]
    units += [QaUnit("ja.po", s, s, s, line=100 + n) for n, s in enumerate(copies)]
    flags, _ = check_units(units, "en", "ja")
    severity = {f.source: f.severity for f in flags if f.kind == "untranslated"}
    assert severity == {
        "Unknown": "warning",
        "Many fonts contain hints; use them to render small sizes better": "warning",
        "text;editor;notes;": "info",
        "GNOME": "info",
        "Sylpheed": "info",
    }


def test_a_one_form_languages_only_form_is_checked_against_msgid_plural(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Japanese writes one form for every number, after msgid_plural (as msgfmt --check
    compares it): its %u is no extra placeholder; a form that lost it is an error."""
    head = PLURAL_PO.split("#:")[0].format(lang="ja", rule="nplurals=1; plural=0;")
    entry = (
        '#, c-format\nmsgid "Delete the selected file?"\n'
        'msgid_plural "Delete the %u selected files?"\nmsgstr[0] "{}"\n'
    )
    for target, want in (("選択した %u 個のファイルを削除しますか?", []),
                         ("選択したファイルを削除しますか?", ["placeholders"])):  # fmt: skip
        path = tmp_path / "ja.po"
        path.write_text(head + entry.format(target), encoding="utf-8")
        _, out = _flags(capsys, [str(path), "--rules-only"])
        assert [f["kind"] for f in out["flags"] if f["severity"] == "error"] == want


def test_the_note_of_a_model_that_cannot_tell_counts_the_word_flags(tmp_path: Path) -> None:
    from xlsearch.engine.qa import check_files

    pairs = [(f"Open file {i}", f"ファイル{i}を開く") for i in range(150)]
    pairs += [(f"Save image {i}", f"画像{i}を保存") for i in range(150)]
    pairs[5] = (pairs[5][0], "画像5を保存")  # "Open file 5" translated as "Save image 5"
    path = _po(tmp_path / "ja.po", pairs, "ja")
    result = check_files([str(path)], encoder=_PairEncoder(pairs, blind=True))
    words = [f.key for f in result.flags if f.kind in ("mistranslation", "omission")]
    assert words == ["u5\x04Open file 5"]
    (note,) = [n for n in result.notes if "cannot tell" in n]
    assert "; 1 flag here from those word translations" in note
    assert "two-character pieces" in note


def test_a_calibration_note_names_the_files_direction_as_the_file_writes_it(
    tmp_path: Path,
) -> None:
    """An SDLXLIFF as Trados writes it (BOM, ``sdl:seg-defs``, ``mrk`` segments): the
    pair reads as the job's direction, not as one tag (``en-US-de-DE``)."""
    from xlsearch.engine.qa import check_files

    pairs = [
        ("Open the file.", "Öffnen Sie die Datei."),
        ("Save the file.", "Speichern Sie die Datei."),
        ("Close the window.", "Schließen Sie das Fenster."),
        ("Print the page.", "Drucken Sie die Seite."),
    ]
    units = "".join(
        f'<trans-unit id="a{n}"><source>{s}</source>'
        f'<seg-source><mrk mtype="seg" mid="{n}">{s}</mrk></seg-source>'
        f'<target><mrk mtype="seg" mid="{n}">{t}</mrk></target>'
        f'<sdl:seg-defs><sdl:seg id="{n}" conf="Translated" origin="interactive"/>'
        "</sdl:seg-defs></trans-unit>"
        for n, (s, t) in enumerate(pairs, 1)
    )
    path = tmp_path / "job.docx.sdlxliff"
    path.write_text(
        '\ufeff<?xml version="1.0" encoding="utf-8"?>\r\n<xliff '
        'xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2" sdl:version="1.0">'
        '<file original="C:\\job.docx" datatype="x-sdlfilterframework2" '
        'source-language="en-US" target-language="de-DE"><header/>'
        f"<body>{units}</body></file></xliff>",
        encoding="utf-8",
    )
    result = check_files([str(path)], encoder=_PairEncoder(pairs))
    (note,) = [n for n in result.notes if "too few" in n]
    assert "4 units are too few to measure what the model gives en-US → de-DE" in note
