"""distill --clean and import --check: the pairs the checks flag are dropped (counted by
kind) or reported; clean pairs stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.clean import word_corpus

from xlsearch.cli import main
from xlsearch.engine.distill.data import load_parallel

GOOD = [
    ("The cat sleeps on the sofa.", "Die Katze schläft auf dem Sofa."),
    ("We are going to the station tomorrow.", "Wir fahren morgen zum Bahnhof."),
    ("Please close the window before you leave.", "Bitte schließ das Fenster, bevor du gehst."),
    ("The museum opens at nine in the morning.", "Das Museum öffnet um neun Uhr morgens."),
    ("My brother lives in a small village.", "Mein Bruder wohnt in einem kleinen Dorf."),
]


def test_distill_clean_drops_other_language_targets(tmp_path: Path) -> None:
    bad = [
        ("I have never seen such a big dog.", "Je n'ai jamais vu un chien aussi grand."),
        ("Where is the nearest pharmacy?", "Где ближайшая аптека?"),
    ]
    rows = GOOD * 10 + bad
    tsv = tmp_path / "train.tsv"
    tsv.write_text("".join(f"{s}\t{t}\n" for s, t in rows), encoding="utf-8")
    dev = tmp_path / "dev.tsv"
    dev.write_text("The sun is shining.\tDie Sonne scheint.\n", encoding="utf-8")
    kept = load_parallel([str(tsv)], dev_file=dev, clean=True)
    pairs = {(s, t) for g in kept.groups for s, t in zip(g.src, g.tgt, strict=True)}
    assert not pairs & set(bad)
    assert set(GOOD) <= pairs
    dropped = kept.reports[0].dropped
    assert dropped.get("--clean: wrong-language") == 2  # (copies: the reader drops them)
    plain = load_parallel([str(tsv)], dev_file=dev)
    assert set(bad) <= {(s, t) for g in plain.groups for s, t in zip(g.src, g.tgt, strict=True)}


def test_import_check_reports_what_the_checks_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    po = tmp_path / "de.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Copy %d files"\nmsgstr "Dateien kopieren"\n\n'
        'msgid "Close the window"\nmsgstr "Fenster schließen"\n',
        encoding="utf-8",
    )
    assert main(["import", str(po), "--collection", "c", "--check", "-q"]) == 0
    out = capsys.readouterr().out
    assert "check: 2 units, 1 errors, 0 warnings (1 placeholders)" in out


def test_clean_drops_shifted_lines_by_the_pairs_own_word_translations() -> None:
    from xlsearch.engine.qa.clean import find_noisy

    pairs = word_corpus()
    shifted = [3, 20, 41]  # the target of a pair with another noun and another place
    src = [s for s, _ in pairs]
    tgt = [t for _, t in pairs]
    for i in shifted:
        tgt[i] = pairs[i + 9][1]
    rep = find_noisy(src, tgt, "en", "de")
    assert {i for i, k in rep.kind.items() if k == "misaligned"} == set(shifted)
    assert sum(rep.keep) == len(pairs) - len(shifted)
    assert "does not translate the source" in rep.why[shifted[0]]


def test_clean_report_lists_every_dropped_pair(tmp_path: Path) -> None:
    from xlsearch.engine.distill.data import write_clean_report

    pairs = word_corpus()
    pairs[5] = (pairs[5][0], pairs[30][1])
    pairs[6] = (pairs[6][0], "Où est la pharmacie la plus proche ?")
    tsv = tmp_path / "train.tsv"
    tsv.write_text("".join(f"{s}\t{t}\n" for s, t in pairs), encoding="utf-8")
    dev = tmp_path / "dev.tsv"
    dev.write_text("The sun is shining.\tDie Sonne scheint.\n", encoding="utf-8")
    data = load_parallel([str(tsv)], dev_file=dev, clean=True)
    assert data.reports[0].dropped == {"--clean: misaligned": 1, "--clean: wrong-language": 1}
    out = tmp_path / "dropped.tsv"
    assert write_clean_report(out, data.reports) == 2
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "file\tkind\twhy\tsource\ttarget"
    rows = sorted(line.split("\t")[1:] for line in lines[1:])
    assert [r[0] for r in rows] == ["misaligned", "wrong-language"]
    assert rows[0][2:] == [pairs[5][0], pairs[5][1]]


def test_clean_report_to_a_missing_folder_is_a_one_line_error(tmp_path: Path) -> None:
    from xlsearch.engine.distill.data import write_clean_report
    from xlsearch.engine.errors import DataError

    with pytest.raises(DataError) as err:
        write_clean_report(tmp_path / "no" / "such" / "dropped.tsv", [])
    assert "cannot write the --clean report" in str(err.value)
    assert "dropped.tsv" in str(err.value)


def test_clean_drops_a_translation_in_another_language_whose_names_fit() -> None:
    """A French translation shares the source's names with the German targets: its words
    fit, and it is still in the wrong language."""
    from xlsearch.engine.qa.clean import find_noisy

    apps = ["Firefox", "Thunderbird", "LibreOffice", "Inkscape", "Audacity", "Blender", "Krita"]
    pairs = []
    for app in [*apps, "Gimp"]:
        for system in ["Linux", "Windows", "Android", "FreeBSD"]:
            pairs.append(
                (
                    f"Install {app} on {system} today.",
                    f"Installieren Sie {app} heute unter {system}.",
                )
            )
            pairs.append(
                (f"Remove {app} from {system} now.", f"Entfernen Sie {app} jetzt von {system}.")
            )
    pairs[10] = (
        "Install Gimp on Android today.",
        "Installez Gimp sous Android aujourd'hui, c'est très simple.",
    )
    rep = find_noisy([s for s, _ in pairs], [t for _, t in pairs], "en", "de")
    assert rep.kind == {10: "wrong-language"}
