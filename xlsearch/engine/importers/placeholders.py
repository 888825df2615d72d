"""Placeholders of software strings, and inline codes that stand for one.

A placeholder (``%{name}``, ``{name}``, ``{{name}}``, ``${name}``, ``$name``, ``%s``,
``%1$s``, ``%(name)s``, ``%.2f``) is part of the sentence: the program puts a value there,
and a translation without it is wrong. CAT tools often wrap it in an inline code (TMX/XLIFF
``ph``/``x``, memoQ's ``mq:rxt`` of its regex tagger, an Okapi ``ph`` with ``equiv-text``/
``disp``); such a code counts as the placeholder's text for matching, lookup, export and
display. Codes that stand for formatting (bold, links, breaks) do not.
"""

from __future__ import annotations

import functools
import html
import re
from collections import Counter
from typing import Any

PLACEHOLDER = (
    r"\{\{\s*[\w.]+\s*\}\}|[$%]\{[\w.]+\}|\{[\w.:]*\}|%\([\w]+\)[sdif]"
    r"|%\d+\$[sdif@]|%(?:\.\d+)?(?:ll|l|z)?[sdifu@]|\$[A-Za-z_]\w*"
)
"""One placeholder (a regular expression without groups)."""

_WHOLE = re.compile(rf"\s*(?:{PLACEHOLDER})\s*")
_ANY = re.compile(PLACEHOLDER)
_MQ_RXT = re.compile(r"""<mq:rxt(?:-req)?\b([^>]*)>""")
_ATTR = re.compile(r"""\b(val|displaytext)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
PLACEHOLDER_CODES = frozenset({"ph", "x", "ut"})
"""Code elements that may stand for a placeholder (standalone codes, never paired ones)."""


def is_placeholder(text: str) -> bool:
    """Whether ``text`` is one placeholder (surrounding spaces aside)."""
    return bool(text) and _WHOLE.fullmatch(text) is not None


def placeholders(text: str) -> Counter[str]:
    """The placeholders in ``text`` (a multiset)."""
    return Counter(_ANY.findall(text))


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
    "PLACEHOLDER",
    "PLACEHOLDER_CODES",
    "code_placeholder",
    "is_placeholder",
    "placeholders",
]
