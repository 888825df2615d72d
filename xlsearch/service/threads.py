"""The CPU thread policy a front applies before any work (the engine's ``runtime.cpu`` with
the user's ``threads`` setting)."""

from __future__ import annotations


def configure_threads() -> None:
    """The CPU thread policy of the user's settings (``threads``; 0 = the free cores), set
    before anything imports torch or FAISS. A broken settings file means automatic here: the
    commands that read the settings report it."""
    from xlsearch.engine.errors import ConfigError
    from xlsearch.engine.runtime.cpu import configure_threads as apply
    from xlsearch.engine.runtime.settings import Settings

    try:
        threads = Settings.load().threads
    except ConfigError:
        threads = 0
    apply(threads)
