"""One check for every input file: a one-line error that says what is wrong with the path."""

from __future__ import annotations

from pathlib import Path

from xlsearch.engine.errors import DataError


def require_file(path: Path, hint: str | None = None) -> None:
    """A ``DataError`` unless ``path`` is a readable file: a folder is named as one (with
    ``hint``, or the advice to name a file in it), a missing path as missing."""
    if path.is_file():
        return
    if path.is_dir():
        raise DataError(
            f"{path}: is a folder, not a file",
            hint=hint or "name one file in it (e.g. a .xlf, .po, .docx, .md or .txt)",
        )
    raise DataError(f"{path}: no such file")


def require_output(path: Path | str, example: str) -> None:
    """A ``ConfigError`` when the file to write, ``path``, is an existing folder, or its
    folder (the nearest one that exists) cannot be written: found before the work, not
    after it."""
    import os

    from xlsearch.engine.errors import ConfigError

    path = Path(path).expanduser()
    if path.is_dir():
        raise ConfigError(
            f"{path}: is a folder; name the file to write", hint=f"e.g. {path / example}"
        )
    folder = path.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{path}: cannot write there (the folder {folder} is read-only)",
            hint="choose a path in a writable folder, or make that folder writable",
        )


__all__ = ["require_file", "require_output"]
