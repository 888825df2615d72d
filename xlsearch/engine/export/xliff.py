"""XLIFF 1.2 and 2.0 writers for ``export.write_units``: bilingual, one unit per pair.

XLIFF holds one source and one target language per file, so a unit is written when it has
text in both; its ``x-tu`` property becomes the unit's ``resname`` (1.2) or ``name`` (2.0)
and every other property a note (``key: value`` in 1.2, ``category="key"`` in 2.0).
"""

from __future__ import annotations

import re
from typing import Any
from xml.sax.saxutils import escape, quoteattr

XLIFF_VERSIONS = ("1.2", "2.0")
_NS = {
    "1.2": "urn:oasis:names:tc:xliff:document:1.2",
    "2.0": "urn:oasis:names:tc:xliff:document:2.0",
}


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_chars(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot carry (control characters, lone
    surrogates, U+FFFE and U+FFFF)."""
    return _NOT_XML.sub("", text)


def xml_text(text: str) -> str:
    """Escaped text without the characters XML 1.0 cannot carry."""
    return escape(xml_chars(text))


def header(fh: Any, version: str, src: str, tgt: str, original: str) -> None:
    """The XML declaration, root and file/body openings."""
    from xlsearch import __version__

    fh.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    if version == "1.2":
        fh.write(f'<xliff version="1.2" xmlns="{_NS["1.2"]}">\n')
        fh.write(
            f"<file original={quoteattr(original)} source-language={quoteattr(src)} "
            f'target-language={quoteattr(tgt)} datatype="plaintext" tool-id="xlsearch">\n'
            f'<header><tool tool-id="xlsearch" tool-name="xlsearch" '
            f"tool-version={quoteattr(__version__)}/></header>\n<body>\n"
        )
    else:
        fh.write(
            f'<xliff xmlns="{_NS["2.0"]}" version="2.0" srcLang={quoteattr(src)} '
            f"trgLang={quoteattr(tgt)}>\n"
            f'<file id="f1" original={quoteattr(original)}>\n'
        )


def footer(fh: Any, version: str) -> None:
    """Close what ``header`` opened."""
    fh.write("</body>\n</file>\n</xliff>\n" if version == "1.2" else "</file>\n</xliff>\n")


def unit(
    fh: Any, version: str, number: int, source: str, target: str, props: dict[str, Any]
) -> None:
    """One translated unit."""
    name = props.get("x-tu")
    notes = [(k, str(v)) for k, v in props.items() if k != "x-tu"]
    if version == "1.2":
        res = f" resname={quoteattr(str(name))}" if name else ""
        fh.write(
            f'<trans-unit id="{number}"{res}><source>{xml_text(source)}</source>'
            f'<target state="translated">{xml_text(target)}</target>'
        )
        for key, value in notes:
            fh.write(f"<note>{xml_text(f'{key}: {value}')}</note>")
        fh.write("</trans-unit>\n")
        return
    attr = f" name={quoteattr(str(name))}" if name else ""
    fh.write(f'<unit id="u{number}"{attr}>')
    if notes:
        fh.write("<notes>")
        for key, value in notes:
            fh.write(f"<note category={quoteattr(key)}>{xml_text(value)}</note>")
        fh.write("</notes>")
    fh.write(
        f'<segment state="translated"><source>{xml_text(source)}</source>'
        f"<target>{xml_text(target)}</target></segment></unit>\n"
    )
