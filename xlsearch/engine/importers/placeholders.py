"""Placeholders of software strings, and inline codes that stand for one.

A placeholder (``%{name}``, ``{name}``, ``{{name}}``, ``${name}``, ``$name``, a printf
conversion — ``%s``, ``%2$u``, ``%-10.*ls``, ``%(name)s`` — or Qt's ``%1``) is part of the
sentence: the program puts a value there, and a translation without it is wrong. CAT tools
often wrap it in an inline code (TMX/XLIFF ``ph``/``x``, memoQ's ``mq:rxt`` of its regex
tagger, an Okapi ``ph`` with ``equiv-text``/``disp``); such a code counts as the
placeholder's text for matching, lookup, export and display. Codes that stand for
formatting (bold, links, breaks) do not.
"""

from __future__ import annotations

import functools
import html
import re
from collections import Counter
from typing import Any

PRINTF = (
    r"%(?:\d+\$)?[-+#0'I]*(?:\d+|\*(?:\d+\$)?)?(?:\.(?:\d+|\*(?:\d+\$)?)?)?"
    r"(?:hh|h|ll|l|L|q|j|z|Z|t)?(?:[diouxXeEfFgGaAcCsSpn@]|<PRI\w+>)"
    r"|%\(\w+\)[-+#0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[diouxXeEfFgGcrsa]"
)
"""One printf conversion, the grammar of C (ISO C and POSIX, as gettext's ``c-format``
reads it) and Python's ``%`` operator: an argument number (``%2$u``), flags (``-+#0'I``;
not the space flag, which would make "50% of" a placeholder), a width and a precision
(digits, or ``*`` with its own argument number), a length modifier (``hh h l ll L q j z Z
t``), the conversion (``d i o u x X e E f F g G a A c C s S p n``, Objective-C's ``@``, or
gettext's ``<PRIu64>``); or ``%(name)s``. ``%%`` is a literal percent sign (``ESCAPED``)."""
ESCAPED = "%%"
PLACEHOLDER = (
    rf"%%|{PRINTF}|%L?\d{{1,2}}(?![\d$])"
    r"|\{\{\s*[\w.]+\s*\}\}|[$%]\{[\w.]+\}|\{[\w.:]*\}|\$[A-Za-z_][A-Za-z0-9_]*"
)
"""One placeholder (a regular expression without groups): a printf conversion (``PRINTF``),
Qt's ``%1``/``%L1``, ``{{name}}``, ``${name}``/``%{name}``, ``{name}``/``{0}``, ``$name``;
``%%`` is matched too, so that the ``%d`` of ``%%d`` is not one, but it is no placeholder."""

_WHOLE = re.compile(rf"\s*(?:{PLACEHOLDER})\s*")
_ANY = re.compile(PLACEHOLDER)
_MQ_RXT = re.compile(r"""<mq:rxt(?:-req)?\b([^>]*)>""")
_ATTR = re.compile(r"""\b(val|displaytext)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
PLACEHOLDER_CODES = frozenset({"ph", "x", "ut"})
"""Code elements that may stand for a placeholder (standalone codes, never paired ones)."""


def is_placeholder(text: str) -> bool:
    """Whether ``text`` is one placeholder (surrounding spaces aside)."""
    return bool(text) and text.strip() != ESCAPED and _WHOLE.fullmatch(text) is not None


def placeholders(text: str) -> Counter[str]:
    """The placeholders in ``text`` (a multiset; ``%%`` is none)."""
    return Counter(m for m in _ANY.findall(text) if m != ESCAPED)


_CONVERSION = re.compile(
    r"%(?:(\d+)\$)?[-+#0'I]*(\d+|\*(?:\d+\$)?)?(?:\.(\d+|\*(?:\d+\$)?)?)?"
    r"((?:hh|h|ll|l|L|q|j|z|Z|t)?(?:[diouxXeEfFgGaAcCsSpn@]|<PRI\w+>))$"
)


_STRFTIME = re.compile(r"%[-_0^#]?[BbhHIjklMmPRrTUVWwYyZzCDeGgNu](?![a-zA-Z])")
"""A conversion only ``strftime`` has (``%Y``, ``%B``, ``%-d``'s ``%e`` …)."""


def is_date_format(text: str) -> bool:
    """Whether ``text`` is a ``strftime`` date format (``%A %d %B %Y``): its codes are the
    translator's to reorder, drop or replace (``%e. %B``), not a program's arguments."""
    return len(_STRFTIME.findall(text)) >= 1 and "%s" not in text


def arguments(text: str) -> Counter[str]:
    """The placeholders of ``text`` as the arguments they take, the way ``msgfmt
    --check-format`` compares a msgid and its msgstr: a printf conversion by its argument
    number and type (``%s of %s`` and ``%2$s de %1$s`` both take ``1:s`` and ``2:s``; the
    flags, width and precision are the translation's to choose), any other placeholder by
    its text."""
    out: Counter[str] = Counter()
    n = 0
    for ph in _ANY.findall(text):
        if ph == ESCAPED:
            continue
        m = _CONVERSION.match(ph)
        if m is None:
            out[ph] += 1
            continue
        position, width, precision, kind = m.groups()
        for star in (width, precision):
            if star and star.startswith("*"):
                n += 1
                out[f"{star[1:-1] or n}:*"] += 1
        n = int(position) if position else n + 1
        out[f"{n}:{kind}"] += 1
    return out


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _native(node: Any) -> str:
    """A code's native content as written (its text and its children's tails)."""
    native = node.text or ""
    for c in node:
        if _local(c.tag) == "sub":
            return ""  # text of its own inside: not a single placeholder
        native += c.tail or ""
    return native


def code_placeholder(node: Any) -> str:
    """The placeholder a code element stands for, else "" (module doc): its native content
    (``<ph>%{email}</ph>``), the value of a memoQ ``mq:rxt`` in it, else its ``equiv-text``,
    ``equiv`` or ``disp`` attribute — each only when it is one placeholder. Works on
    ElementTree and lxml elements."""
    if _local(node.tag) not in PLACEHOLDER_CODES:
        return ""
    native = _native(node).strip()
    if native:
        return _from_native(native)
    for attr in ("equiv-text", "equiv", "disp"):
        value = node.get(attr) or ""
        if is_placeholder(value):
            return value.strip()
    return ""


@functools.lru_cache(maxsize=4096)
def _from_native(native: str) -> str:
    """The placeholder a code's native content stands for (cached: the same codes recur)."""
    text = html.unescape(native) if "&" in native else native
    if is_placeholder(text):
        return text.strip()
    rxt = _MQ_RXT.search(text)
    if rxt:
        values = {m[0]: html.unescape(m[1] or m[2]) for m in _ATTR.findall(rxt.group(1))}
        for key in ("val", "displaytext"):
            if is_placeholder(values.get(key, "")):
                return values[key].strip()
    return ""


__all__ = [
    "ESCAPED",
    "PLACEHOLDER",
    "PRINTF",
    "arguments",
    "is_date_format",
    "PLACEHOLDER_CODES",
    "code_placeholder",
    "is_placeholder",
    "placeholders",
]
