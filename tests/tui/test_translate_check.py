"""Translate screen's Check panel: ctrl+k checks the open document's targets (the
translator's edit included) on the real engine, enter on a flag jumps to its segment."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from xlsearch.tui.app import make_app
from xlsearch.tui.screens.translate import TranslateScreen
from xlsearch.tui.widgets.check import CheckScreen

pytestmark = pytest.mark.anyio


def _job(path: Path) -> Path:
    pairs = [
        ("Open", "Öffnen"),
        ("Close the window", "Fenster schließen"),
        ("Copy %d files", "%d Dateien kopieren"),
        ("Page 3 of 10", "Seite 3 von 10"),
        ("Save", "Speichern"),
    ]
    body = [
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    ]
    body += [f'msgid "{s}"\nmsgstr "{t}"\n' for s, t in pairs]
    path.write_text("\n".join(body), encoding="utf-8")
    return path


async def test_ctrl_k_lists_the_flags_and_enter_jumps_to_the_segment(
    tmp_path: Path, tiny_static_model: Path, settle
) -> None:
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.service.local import LocalEngine

    job = _job(tmp_path / "app.po")
    set_active_model(str(tiny_static_model))
    app = make_app(engine=LocalEngine(), theme="textual-dark")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f9")
        await settle(pilot, 3)
        screen = app.screen
        assert isinstance(screen, TranslateScreen)
        screen.query_one("#doc-path", Input).value = str(job)
        screen.query_one("#doc-path", Input).focus()
        await pilot.press("enter")
        await settle(pilot, 3)
        screen.goto(2)  # the translator drops the placeholder in the editor
        await settle(pilot, 2)
        screen.query_one("#tr-target").load_text("Dateien kopieren")
        screen.goto(0)
        await settle(pilot, 2)
        await pilot.press("ctrl+k")
        await settle(pilot, 4)
        panel = app.screen
        assert isinstance(panel, CheckScreen)
        kinds = [(f.segment, f.kind) for f in panel.flags]
        assert (2, "placeholders") in kinds
        table = panel.query_one("#check-flags", DataTable)
        table.move_cursor(row=[f.segment for f in panel.flags].index(2))
        await pilot.press("enter")
        await settle(pilot, 3)
        assert app.screen is screen
        assert screen.current == 2
        await pilot.press("ctrl+k")  # ctrl+s with the panel open saves (it did nothing)
        await settle(pilot, 4)
        assert isinstance(app.screen, CheckScreen)
        await pilot.press("ctrl+s")
        await settle(pilot, 3)
        assert app.screen is screen
        saved = tmp_path / "app.translated.po"
        assert 'msgstr "Dateien kopieren"' in saved.read_text(encoding="utf-8")


def test_the_panel_lists_flags_in_document_order_within_each_severity() -> None:
    from xlsearch.service.qa import CheckFlag, CheckReport

    def flag(segment: int, severity: str) -> CheckFlag:
        return CheckFlag(
            "f.po", str(segment), "s", f"target {segment}", "numbers", severity, "why", None,
            None, segment,
        )  # fmt: skip

    # The engine sorts by unit id as text: '455' before '6'.
    flags = (flag(455, "warning"), flag(6, "warning"), flag(64, "error"), flag(507, "warning"))
    report = CheckReport(600, 0, flags, calibrations=(), notes=(), model="")
    panel = CheckScreen(report)
    assert [(f.severity, f.segment) for f in panel.flags] == [
        ("error", 64), ("warning", 6), ("warning", 455), ("warning", 507)
    ]  # fmt: skip
