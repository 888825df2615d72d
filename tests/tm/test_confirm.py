"""Confirmed segments: read from each CAT format's own status, written back as it, and never
replaced by pre-translation (on CAT files written for these tests: tests/fixtures/cat/nc_*)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polib
import pytest
from lxml import etree

from xlsearch.engine.errors import DataError
from xlsearch.engine.tm.analysis.pretranslate import pretranslate
from xlsearch.engine.tm.documents import open_document
from xlsearch.service.local import LocalEngine


def _real_engine(model: Path) -> LocalEngine:
    """The real engine over this test's empty home, with a tiny model active."""
    from xlsearch.engine.models.catalog import set_active_model

    set_active_model(str(model))
    return LocalEngine()


CAT = Path(__file__).resolve().parents[1] / "fixtures" / "cat"
X12 = "{urn:oasis:names:tc:xliff:document:1.2}"
SDL = "{http://sdl.com/FileTypes/SdlXliff/1.0}"
MQ = "{MQXliff}"


def _copy(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copy(CAT / name, tmp_path / name))


def _by_source(doc, source: str):  # type: ignore[no-untyped-def]
    return next(s for s in doc.segments if s.source == source)


def _unit(path: Path, unit_id: str):  # type: ignore[no-untyped-def]
    root = etree.parse(str(path)).getroot()
    return next(tu for tu in root.iter(f"{X12}trans-unit") if tu.get("id") == unit_id)


def test_each_format_says_which_targets_are_confirmed() -> None:
    cms = open_document(CAT / "nc_cms_job.xlf")
    assert _by_source(cms, "Settings").confirmed  # state="final"
    assert _by_source(cms, "Thank you for your order!").confirmed  # state="translated"
    assert not _by_source(cms, "Press the power button for 10 seconds.").confirmed  # empty

    trados = open_document(CAT / "nc_manual.docx.sdlxliff")
    first = _by_source(trados, "Do not disconnect the device while the update is running.")
    second = _by_source(trados, "Contact your administrator if the problem persists.")
    locked = _by_source(trados, "Replace the battery every 12 months.")
    assert first.confirmed and not second.confirmed  # conf="ApprovedTranslation" / none
    assert locked.confirmed and locked.locked  # conf="Translated" locked="true"

    memoq = open_document(CAT / "nc_ui_strings.mqxliff")
    assert _by_source(memoq, "Settings").confirmed  # mq:status="ManuallyConfirmed"
    partial = next(s for s in memoq.segments if s.source.startswith("Upload failed"))
    assert partial.target and not partial.confirmed  # mq:status="PartiallyEdited"

    po = open_document(CAT / "nc_portal.de.po")
    assert _by_source(po, "Settings").confirmed
    fuzzy = next(s for s in po.segments if s.source.startswith("Upload failed"))
    assert fuzzy.target and not fuzzy.confirmed  # "#, fuzzy"


def test_a_confirmed_target_is_saved_as_each_format_calls_it(tmp_path: Path) -> None:
    # XLIFF 1.2: state="translated"; a fill next to it stays for review
    path = _copy(tmp_path, "nc_cms_job.xlf")
    doc = open_document(path)
    power = _by_source(doc, "Press the power button for 10 seconds.")
    doc.set_target(power.index, "Halten Sie die Ein-/Aus-Taste 10 Sekunden lang gedrückt.")
    doc.confirm(power.index)
    order = _by_source(doc, "Replace the battery every 6 months.")
    doc.set_target(
        order.index, "Ersetzen Sie die Batterie alle 12 Monate.", quality=85, origin="fuzzy"
    )
    doc.save(path)
    assert _unit(path, "42-body-1").find(f"{X12}target").get("state") == "translated"
    assert _unit(path, "42-body-13").find(f"{X12}target").get("state") == "needs-review-translation"
    again = open_document(path)
    assert _by_source(again, "Press the power button for 10 seconds.").confirmed
    assert not _by_source(again, "Replace the battery every 6 months.").confirmed

    # Trados: sdl:seg conf="Translated" for the confirmed segment, Draft for the other
    path = _copy(tmp_path, "nc_manual.docx.sdlxliff")
    doc = open_document(path)
    second = _by_source(doc, "Contact your administrator if the problem persists.")
    doc.set_target(second.index, "Wenden Sie sich an Ihren Administrator.")
    doc.confirm(second.index)
    warning = _by_source(doc, "Warning: high voltage inside the housing.")
    doc.set_target(warning.index, "Warnung: Hochspannung im Gehäuse.", quality=99, origin="fuzzy")
    doc.save(path)
    confs = {s.get("id"): s.get("conf") for s in etree.parse(str(path)).iter(f"{SDL}seg")}
    assert (confs["1"], confs["2"], confs["3"]) == ("ApprovedTranslation", "Translated", "Draft")
    tu = _unit(path, "0a1f2e3d-0002")  # both segments confirmed: the unit is translated
    assert tu.find(f"{X12}target").get("state") == "translated"

    # memoQ: mq:status ManuallyConfirmed; a fill is Pretranslated, not NotStarted
    path = _copy(tmp_path, "nc_ui_strings.mqxliff")
    doc = open_document(path)
    order = _by_source(doc, "Thank you for your order!")
    doc.set_target(order.index, "Vielen Dank für Ihre Bestellung!")
    doc.confirm(order.index)
    store = _by_source(doc, "Store")
    doc.set_target(store.index, "Shop", quality=80, origin="fuzzy")
    doc.save(path)
    assert _unit(path, "6").get(f"{MQ}status") == "ManuallyConfirmed"
    assert _unit(path, "5").get(f"{MQ}status") == "Pretranslated"
    assert _unit(path, "5").get(f"{MQ}percent") == "80"

    # PO: a confirmed entry loses "fuzzy" (and the previous msgid xlsearch wrote)
    path = _copy(tmp_path, "nc_portal.de.po")
    doc = open_document(path)
    upload = next(s for s in doc.segments if s.source.startswith("Upload failed"))
    doc.set_target(upload.index, "Hochladen fehlgeschlagen: größer als {max_size} MB.")
    doc.confirm(upload.index)
    doc.save(path)
    entry = next(e for e in polib.pofile(str(path)) if e.msgid.startswith("Upload failed"))
    assert "fuzzy" not in entry.flags and entry.previous_msgid is None
    assert entry.msgstr == "Hochladen fehlgeschlagen: größer als {max_size} MB."


def test_xliff20_confirmation_drops_the_xlsearch_substate(tmp_path: Path) -> None:
    path = tmp_path / "job.xlf"
    path.write_text(
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" '
        'trgLang="de"><file id="f"><unit id="u1"><segment id="s1"><source>Settings</source>'
        "</segment></unit></file></xliff>",
        encoding="utf-8",
    )
    doc = open_document(path)
    doc.set_target(0, "Einstellungen", quality=100, origin="fuzzy", match_source="Settings")
    doc.save(path)
    assert not open_document(path).segments[0].confirmed  # subState="xlsearch:fuzzy-100"
    doc = open_document(path)
    doc.confirm(0)
    doc.save(path)
    seg = next(etree.parse(str(path)).iter("{urn:oasis:names:tc:xliff:document:2.0}segment"))
    assert seg.get("state") == "translated" and seg.get("subState") is None
    assert open_document(path).segments[0].confirmed


def test_pre_translation_never_replaces_a_confirmed_target(
    tmp_path: Path, tiny_static_model: Path
) -> None:
    memory = tmp_path / "tm.tsv"
    memory.write_text(
        "Settings\tOptionen\n"
        "Press the power button for 10 seconds.\tDrücken Sie 10 Sekunden lang die Taste.\n"
        "Thank you for your order!\tDanke!\n",
        encoding="utf-8",
    )
    engine = _real_engine(tiny_static_model)
    engine.import_files([str(memory)], "tm")
    doc = engine.open_document(str(_copy(tmp_path, "nc_cms_job.xlf")))
    power = _by_source(doc, "Press the power button for 10 seconds.")
    doc.set_target(power.index, "Halten Sie die Taste 10 Sekunden lang gedrückt.")
    doc.confirm(power.index)
    analysis = engine.analyze(doc, "tm")
    pretranslate(doc, analysis, overwrite=True)  # even when asked to replace targets
    assert _by_source(doc, "Settings").target == "Einstellungen"  # final in the file
    assert _by_source(doc, "Thank you for your order!").target == "Danke für Ihre Bestellung!"
    assert power.target == "Halten Sie die Taste 10 Sekunden lang gedrückt." and power.confirmed


def test_editing_a_confirmed_target_makes_it_a_draft_and_empty_ones_cannot_be_confirmed(
    tmp_path: Path,
) -> None:
    doc = open_document(_copy(tmp_path, "nc_cms_job.xlf"))
    settings = _by_source(doc, "Settings")
    assert settings.confirmed
    doc.set_target(settings.index, "Optionen")
    assert not settings.confirmed
    power = _by_source(doc, "Press the power button for 10 seconds.")
    with pytest.raises(DataError, match="no target to confirm"):
        doc.confirm(power.index)
    assert doc.next_unconfirmed(settings.index) == settings.index + 1


def test_a_plural_po_entry_with_empty_forms_is_not_confirmed(tmp_path: Path) -> None:
    """xlsearch fills msgstr[0] only: confirming would write a non-fuzzy entry whose other
    plural forms are empty."""
    doc = open_document(_copy(tmp_path, "nc_portal.de.po"))
    plural = next(s for s in doc.segments if s.source.startswith("The password"))
    doc.set_target(plural.index, "Das Passwort muss mindestens {min} Zeichen enthalten.")
    with pytest.raises(DataError, match=r"plural entry.*msgstr\[1\] is empty"):
        doc.confirm(plural.index)
    assert not plural.confirmed
    plural.ref.msgstr_plural[1] = "Das Passwort muss mindestens {min} Zeichen enthalten."
    doc.confirm(plural.index)
    assert plural.confirmed
