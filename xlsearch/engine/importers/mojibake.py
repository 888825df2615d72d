"""Mojibake — text decoded with the wrong codec (``lâ€™Ã©vÃ¨nement``) — caught after decoding.

ftfy (the reference library for this) tells mojibake from real text and knows how to undo
it. A file whose declared encoding lies (a TMX declaring ISO-8859-1 that holds UTF-8 bytes)
is refused with the fix (``--encoding``): every accented letter of it was read wrong. Text
that was already mojibake inside a correctly decoded file (pasted from a misread export) is
repaired, with one warning saying so. Either way, none of it is stored as read.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Iterator

from xlsearch.engine.importers.base import ReadContext, Record

MOJIBAKE_HINT = "pass --encoding {real} (the file's real encoding; its declaration is wrong)"


def shown(text: str, width: int = 48) -> str:
    """``text`` cut to ``width``, quoted, control characters (C1 codes of a misread UTF-8
    byte, which a terminal prints as ``�`` or not at all) written as ``\\x80``."""
    text = text if len(text) <= width else text[: width - 1] + "…"
    return (
        "“"
        + "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) == "Cc" else c for c in text)
        + "”"
    )


_CP1252_HIGH = "".join(bytes([b]).decode("cp1252", "ignore") for b in range(0x80, 0xC0))
_SUSPECT = re.compile(f"[\u00c2-\u00f4][\u0080-\u00bf{re.escape(_CP1252_HIGH)}]")
"""A UTF-8 lead byte read as Latin-1/cp1252 (``Ã``, ``â``, ``Ð``) followed by a continuation
byte read the same way (``©``, ``€``, ``¡``): every UTF-8 text misread so has one, real text
almost never; only such text goes to ftfy (a tenth of the time on French prose)."""


def repaired(text: str) -> tuple[str, str | None]:
    """(``text`` with its mojibake undone, the codec its bytes really were in); the codec is
    None when ``text`` is not mojibake."""
    if _SUSPECT.search(text) is None:
        return text, None
    from ftfy import fix_encoding_and_explain
    from ftfy.badness import is_bad

    if not is_bad(text):
        return text, None
    fixed, plan = fix_encoding_and_explain(text)
    if fixed == text or not plan:
        return text, None
    decodes = [step[1] for step in plan if step[0] == "decode"]
    if not decodes:
        return text, None
    real = decodes[-1]  # ftfy's own names: utf-8-variants, sloppy-windows-1252 …
    return fixed, "utf-8" if "utf" in real and "8" in real else real.removeprefix("sloppy-")


def _codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return name


def guard(ctx: ReadContext, records: Iterator[Record]) -> Iterator[Record]:
    """``records`` with mojibake refused (the file was decoded with a codec other than the
    one its text is in) or repaired (mojibake inside a correctly decoded file)."""
    count = 0
    example = ""
    for rec in records:
        fixed, real = repaired(rec.text)
        if real is not None:
            used = _codec(ctx.decoded_as)
            real_name = real
            if used is not None and used != _codec(real_name):
                raise ctx.error(
                    f"read as {used}, the text comes out garbled ({shown(rec.text)} is "
                    f"{shown(fixed)} in {real_name}): the file is not in the encoding "
                    "it declares",
                    line=rec.line,
                    hint=MOJIBAKE_HINT.format(real=real_name),
                )
            count += 1
            if not example:
                example = f"{shown(rec.text, 32)} → {shown(fixed, 32)}"
            rec.text = fixed
        yield rec
    if count:
        ctx.warn(
            f"{count:,} segments held garbled text (decoded twice by some earlier tool) and "
            f"were repaired, e.g. {example}",
            skip=False,
        )
