"""Where xlsearch keeps its data, cache and config (platformdirs, or ``XLSEARCH_HOME``)."""

from __future__ import annotations

import os
from pathlib import Path

APP = "xlsearch"


def home() -> Path | None:
    """The ``XLSEARCH_HOME`` override (tests always set it), or None."""
    value = os.environ.get("XLSEARCH_HOME")
    return Path(value).expanduser() if value else None


def _made(path: Path) -> Path:
    """``path``, created if missing; a ``ConfigError`` with the fix when it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from xlsearch.engine.errors import ConfigError

        raise ConfigError(
            f"cannot create {path}: {exc.strerror or exc}",
            hint="make the folder writable (chmod -R u+w) or point XLSEARCH_HOME at a "
            "writable folder",
        ) from exc
    return path


def roots() -> list[Path]:
    """The folders xlsearch writes under (``XLSEARCH_HOME``, or the platform's data, cache
    and config folders), without creating them."""
    root = home()
    if root is not None:
        return [root]
    import platformdirs

    return [
        getter(APP, appauthor=False)
        for getter in (
            platformdirs.user_data_path,
            platformdirs.user_cache_path,
            platformdirs.user_config_path,
        )
    ]


def _dir(kind: str) -> Path:
    root = home()
    if root is not None:
        path = root / kind
    else:
        import platformdirs

        getter = {
            "data": platformdirs.user_data_path,
            "cache": platformdirs.user_cache_path,
            "config": platformdirs.user_config_path,
        }[kind]
        path = getter(APP, appauthor=False)
    return _made(path)


def data_dir() -> Path:
    """Persistent user data: the store, indexes and distilled models."""
    return _dir("data")


def cache_dir() -> Path:
    """Re-computable files: teacher-embedding caches."""
    return _dir("cache")


def config_dir() -> Path:
    """Settings file folder."""
    return _dir("config")


def models_dir() -> Path:
    """Models xlsearch distilled or the user copied in."""
    return _made(data_dir() / "models")


def store_path() -> Path:
    """The SQLite store."""
    return data_dir() / "xlsearch.db"


def indexes_dir() -> Path:
    """One folder per (collection, model) vector index."""
    return _made(data_dir() / "indexes")


def repo_models_dir() -> Path:
    """``./models/`` of the current working directory (a searched model folder)."""
    return Path.cwd() / "models"
