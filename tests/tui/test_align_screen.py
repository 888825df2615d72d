"""The Align screen: align two documents, fix beads with keys, save as a memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import settle
from textual.widgets import DataTable, Input

from xlsearch.tui.app import make_app
from xlsearch.tui.screens.align import AlignScreen

pytestmark = pytest.mark.anyio

EN = "The cat sleeps. The dog runs in the big house.\n\nHello world! Good morning.\n"
DE = "Die Katze schläft. Der Hund läuft im großen Haus.\n\nHallo Welt! Guten Morgen.\n"


async def _open(pilot, tmp_path: Path) -> AlignScreen:  # type: ignore[no-untyped-def]
    (tmp_path / "a.txt").write_text(EN, encoding="utf-8")
    (tmp_path / "b.txt").write_text(DE, encoding="utf-8")
    await pilot.press("f10")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, AlignScreen)
    screen.query_one("#align-src", Input).value = str(tmp_path / "a.txt")
    screen.query_one("#align-src-lang", Input).value = "en"
    screen.query_one("#align-tgt", Input).value = str(tmp_path / "b.txt")
    screen.query_one("#align-tgt-lang", Input).value = "de"
    await pilot.press("ctrl+r")
    await settle(pilot)
    return screen


async def test_align_edit_and_save(app, engine, tmp_path) -> None:  # type: ignore[no-untyped-def]
    async with app.run_test(size=(120, 32)) as pilot:
        screen = await _open(pilot, tmp_path)
        al = screen.alignment
        assert [(b.src, b.tgt) for b in al.beads] == [((k,), (k,)) for k in range(4)]
        table = screen.query_one("#beads", DataTable)
        assert table.row_count == 4 and table.has_focus
        assert str(table.get_row_at(0)[2]) == "The cat sleeps."
        await pilot.press("m")  # merge beads 0 and 1
        assert [(b.src, b.tgt) for b in al.beads][:1] == [((0, 1), (0, 1))]
        await pilot.press("s")  # split it again
        assert [(b.src, b.tgt) for b in al.beads][:2] == [((0,), (0,)), ((1,), (1,))]
        await pilot.press("right_square_bracket")  # bead 0's translation moves to bead 1
        assert [(b.src, b.tgt) for b in al.beads][:2] == [((0,), ()), ((1,), (0, 1))]
        assert al.beads[0].flagged
        await pilot.press("left_square_bracket")
        assert [(b.src, b.tgt) for b in al.beads][:2] == [((0,), (0,)), ((1,), (1,))]
        await pilot.press("ctrl+s")
        await settle(pilot)
        names = [c.name for c in engine.collections()]
        assert "aligned" in names
        saved = [n.message for n in app._notifications if n.title == "Saved"]
        assert saved == ["8 segments in collection 'aligned' (imported)"]  # 4 beads, 2 sides


async def test_align_screen_on_the_real_engine(tiny_static_model, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from xlsearch.engine.models.catalog import set_active_model
    from xlsearch.engine.store import Store
    from xlsearch.service.local import LocalEngine

    set_active_model(str(tiny_static_model))
    app = make_app(engine=LocalEngine(), theme="textual-dark")
    async with app.run_test(size=(120, 32)) as pilot:
        screen = await _open(pilot, tmp_path)
        assert not app._notifications, [n.message for n in app._notifications]
        al = screen.alignment
        assert sum(len(b.src) for b in al.beads) == 4 and sum(len(b.tgt) for b in al.beads) == 4
        assert al.anchors  # both documents have two paragraphs
        await pilot.press("ctrl+s")
        await settle(pilot)
    with Store() as store:
        cols = {c["name"]: c for c in store.collections()}
    assert cols["aligned"]["languages"].keys() == {"en", "de"}


async def test_the_identified_languages_are_shown_after_aligning(app, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """With the language fields left empty the screen never said which languages it had
    identified, the ones the memory would be saved in (the CLI prints them)."""
    (tmp_path / "a.txt").write_text(EN, encoding="utf-8")
    (tmp_path / "b.txt").write_text(DE, encoding="utf-8")
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.press("f10")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#align-src", Input).value = str(tmp_path / "a.txt")
        screen.query_one("#align-tgt", Input).value = str(tmp_path / "b.txt")
        await pilot.press("ctrl+r")
        await settle(pilot)
        al = screen.alignment
        assert al.src.lang and al.tgt.lang
        assert screen.query_one("#align-src-lang", Input).value == al.src.lang
        assert screen.query_one("#align-tgt-lang", Input).value == al.tgt.lang


async def test_bead_rows_have_computed_heights_and_accept_does_not_refill(  # type: ignore[no-untyped-def]
    app, tmp_path
) -> None:
    """10k beads froze the UI ~6 s after aligning and on every edit: rows were auto-height
    (Textual renders every row to measure it) and each edit rebuilt the whole table."""
    async with app.run_test(size=(120, 32)) as pilot:
        screen = await _open(pilot, tmp_path)
        table = screen.query_one("#beads", DataTable)
        assert table.row_count and not any(r.auto_height for r in table.rows.values())
        cleared: list[int] = []
        real_clear = table.clear
        table.clear = lambda *a, **k: cleared.append(1) or real_clear(*a, **k)  # type: ignore[method-assign]
        keys = list(table.rows)
        table.move_cursor(row=0)
        await pilot.press("a")
        await pilot.pause()
        assert not cleared and list(table.rows) == keys
        assert not screen.alignment.beads[0].flagged
        assert not str(table.get_row_at(0)[0]).startswith("!")


def test_row_height_follows_the_wrapped_text() -> None:
    from xlsearch.tui.screens.align import TEXT_WIDTH, row_height

    assert row_height("short", "") == 1
    assert row_height("word " * TEXT_WIDTH, "x") >= 5
    assert row_height("", "猫" * TEXT_WIDTH) == 2  # double-width characters


async def test_merge_and_split_update_only_the_rows_they_change(app, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Merging/splitting a bead rebuilt all rows (1.5 s of frozen UI at 10k beads)."""
    async with app.run_test(size=(120, 32)) as pilot:
        screen = await _open(pilot, tmp_path)
        table = screen.query_one("#beads", DataTable)
        cleared: list[int] = []
        real_clear = table.clear
        table.clear = lambda *a, **k: cleared.append(1) or real_clear(*a, **k)  # type: ignore[method-assign]

        def shown() -> list[tuple[str, str]]:
            return [
                (str(r[2]), str(r[3]))
                for r in (table.get_row_at(i) for i in range(table.row_count))
            ]

        def expected() -> list[tuple[str, str]]:
            al = screen.alignment
            return [tuple(t or "∅" for t in al.texts(b)) for b in al.beads]  # type: ignore[misc]

        n = table.row_count
        table.move_cursor(row=0)
        await pilot.press("m")
        await pilot.pause()
        assert table.row_count == n - 1 and shown() == expected()
        await pilot.press("s")
        await pilot.pause()
        assert table.row_count == n and shown() == expected()
        assert not cleared and table.cursor_row == 0
