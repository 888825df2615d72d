"""CLI command groups; each module has ``register(subparsers)``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Unpack

if TYPE_CHECKING:
    from xlsearch.service.local import LocalEngine
    from xlsearch.service.types import EncoderOptions


class Once(argparse.Action):
    """An option that may be given once: a repeat is an error, not a silent override
    (``mine --collection a --collection b`` used to mine ``b`` alone)."""

    def __init__(self, *args: Any, hint: str = "", **kwargs: Any) -> None:
        self.hint = hint
        super().__init__(*args, **kwargs)

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None
    ) -> None:
        seen = getattr(namespace, f"_once_{self.dest}", None)
        if seen is not None:
            hint = f"; {self.hint}" if self.hint else ""
            parser.error(f"{option} given twice ({seen}, {values}): it takes one value{hint}")
        setattr(namespace, f"_once_{self.dest}", values)
        setattr(namespace, self.dest, values)


def error_line(exc: Any) -> str:
    """An ``XLSearchError`` as one line: ``error: Title: message (hint: fix)``."""
    text = " ".join(str(exc.message).split())
    hint = f" (hint: {' '.join(str(exc.hint).split())})" if exc.hint else ""
    return f"error: {exc.title}: {text}{hint}"


def count_arg(text: str) -> int:
    """argparse type: a whole number >= 1 (``--k 0`` showed 'no matches')."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def percent_arg(text: str) -> int:
    """argparse type: a fuzzy % 0-100 (``--min-fuzzy 150`` silently filled nothing)."""
    value = int(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"a fuzzy % is 0-100, not {value}")
    return value


def local_engine(
    model: str | None = None, **encoder_options: Unpack[EncoderOptions]
) -> LocalEngine:
    """The service engine over the user's store; ``model`` (``--model``) for this run."""
    from xlsearch.service.local import LocalEngine

    return LocalEngine(model=model, encoder_options=encoder_options)
