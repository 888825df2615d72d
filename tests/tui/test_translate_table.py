"""The Translate screen's segment table on a gettext job: a msgid that starts with blank
lines is not a blank row, and the source column uses the terminal's width."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.keys import write_job_po
from helpers.tui import OpenTranslate
from textual.widgets import DataTable

pytestmark = pytest.mark.anyio


async def test_segment_rows_on_a_wide_terminal(
    seeded_model: Path, tmp_path: Path, translate: OpenTranslate
) -> None:
    job = write_job_po(tmp_path / "job.de.po")
    async with translate(job, size=(160, 40), typed=True, src="en") as (pilot, screen):
        table = screen.query_one("#tr-segments", DataTable)
        source = table.columns["source"]  # type: ignore[index]
        assert source.width >= 36  # was 28 on any terminal
        row = [str(c) for c in table.get_row_at(4)]
        assert row[2].startswith("↵↵Please restart the server"), row
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert 20 <= table.columns["source"].width < source.width  # type: ignore[index]
        assert table.row_count == len(screen.doc.segments)
        assert table.cursor_row == screen.current == 0
