"""Helpers shared by the importer tests: write a fixture file, read it as records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xlsearch.engine.importers import ReadContext, detect_format, read_records


def read(path: Path, fmt: str | None = None, **opts: Any) -> tuple[list[tuple], ReadContext]:
    """``[(unit, lang, text), …]`` of a file and the context (warnings, skipped units)."""
    ctx = ReadContext(path, **opts)
    records = list(read_records(ctx, detect_format(path, fmt)))
    return [(r.tu, r.lang, r.text) for r in records], ctx


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    """A fixture file, bytes as given (str as UTF-8)."""
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path
