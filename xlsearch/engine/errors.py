"""One error base class with a subclass per area; each carries a user-facing title."""

from __future__ import annotations


class XLSearchError(Exception):
    """Base of every error xlsearch reports to a user (CLI message, TUI notification)."""

    title = "xlsearch error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n  hint: {self.hint}" if self.hint else self.message


class ModelError(XLSearchError):
    """A model folder is missing, unreadable or of a format we do not support."""

    title = "Model error"


class DataError(XLSearchError):
    """Input data (TSV, TMX, XLIFF, …) is malformed; the message names file and line."""

    title = "Bad input data"


class StoreError(XLSearchError):
    """The SQLite store cannot be opened, migrated or written."""

    title = "Store error"


class IndexMismatchError(XLSearchError):
    """A vector index does not match its store or model and will not be served."""

    title = "Index mismatch"


class CancelledError(XLSearchError):
    """A long job stopped because its cancel token was set."""

    title = "Cancelled"


class ConfigError(XLSearchError):
    """Settings or command-line options are invalid."""

    title = "Configuration error"


class DiskFullError(XLSearchError):
    """A write failed because the disk (or the user's quota) is full; nothing was lost."""

    title = "Disk full"


class IndexDamagedError(IndexMismatchError):
    """An index file is truncated or corrupt (derived data: it is rebuilt from the store)."""
