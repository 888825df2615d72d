"""A PO file written back as its translator's tools wrote it: only the entries that changed.

msgmerge and Poedit keep a catalogue's own wrapping, order, header lines and comments; a
file that comes back re-wrapped (header ``X-*`` lines re-sorted, long msgids and comments
re-wrapped at another width, empty ``#.`` lines dropped) is a diff of hundreds of lines
that are not translations. So the file's original text is kept line for line, and each
entry xlsearch changed is rewritten in place: its ``msgstr`` lines and its ``#,`` flags,
``#|`` previous msgid and ``# xlsearch:`` comment, rendered by polib; its other comments and
its ``msgctxt``/``msgid`` lines stay as they were.
"""

from __future__ import annotations

import re
from typing import Any

from xlsearch.engine.importers.base import marked_own

_NEWLINE = re.compile(r"\r\n|\r|\n")
_KEYWORD = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\b")
_CHARSET = re.compile(r"(charset\s*=\s*)([A-Za-z0-9_.:\-]+)")
WRAP = 79
"""The width msgmerge wraps at (its default); a file with longer lines is not wrapped."""


def split_lines(text: str) -> list[str]:
    """``text`` as lines with their line ends, split as polib counts lines (universal
    newlines: ``\\r\\n``, ``\\r``, ``\\n``)."""
    out: list[str] = []
    start = 0
    for m in _NEWLINE.finditer(text):
        out.append(text[start : m.end()])
        start = m.end()
    if start < len(text):
        out.append(text[start:])
    return out


def _starts_entry(line: str) -> bool:
    s = line.lstrip()
    return s.startswith("#") or _KEYWORD.match(s) is not None


def _sections(lines: list[str]) -> tuple[list[str], list[tuple[str, list[str]]], list[str]]:
    """(comment lines, [(keyword, its lines with continuations)], trailing blank lines)."""
    comments: list[str] = []
    parts: list[tuple[str, list[str]]] = []
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    for line in lines[:end]:
        s = line.lstrip()
        m = _KEYWORD.match(s)
        if m:
            parts.append((m.group(1), [line]))
        elif s.startswith('"') and parts:
            parts[-1][1].append(line)
        elif not parts:
            comments.append(line)
        else:  # a comment after the strings (unusual): keep it with the entry's comments
            comments.append(line)
    return comments, parts, lines[end:]


def _is_own(line: str) -> bool:
    """A line xlsearch rewrites: flags, previous msgid, its own translator comment."""
    s = line.lstrip()
    return s.startswith(("#,", "#|")) or (_translator(line) and marked_own(s[1:].strip()))


def _translator(line: str) -> bool:
    s = line.lstrip()
    return s.startswith("#") and (len(s) < 2 or s[1] in " \t\r\n")


def _rewrite(original: list[str], entry: Any, wrap: int, newline: str) -> list[str]:
    """The entry's new lines: ``original``'s comments and msgctxt/msgid lines, polib's
    rendering of its msgstr, flags, previous msgid and xlsearch comment."""
    rendered = [line + newline for line in entry.__unicode__(wrapwidth=wrap).split("\n")]
    new_comments, new_parts, _ = _sections(rendered)
    comments, parts, blank = _sections(original)
    keep = [line for line in comments if not _is_own(line)]
    own_notes = [  # one line each, never wrapped: a wrapped rest would read as a user's note
        f"# {line}{newline}" for line in (entry.tcomment or "").splitlines() if marked_own(line)
    ]
    flags = [line for line in new_comments if line.lstrip().startswith(("#,", "#|"))]
    at = max((i + 1 for i, line in enumerate(keep) if _translator(line)), default=0)
    out = [*keep[:at], *own_notes, *keep[at:], *flags]
    for keyword, lines in parts:
        if not keyword.startswith("msgstr"):
            out.extend(lines)
    for keyword, lines in new_parts:
        if keyword.startswith("msgstr"):
            out.extend(lines)
    return out + blank


def _header(lines: list[str], language: str | None, newline: str) -> list[str]:
    """The header block with its charset made UTF-8 (the file is written as UTF-8) and a
    ``Language`` line added when it has none and the job has a target language."""
    out = []
    for line in lines:
        if "Content-Type:" in line:
            line = _CHARSET.sub(lambda m: m.group(1) + "UTF-8", line)
        out.append(line)
    has_language = any(re.match(r'\s*"Language:', line) for line in lines)
    if language and not has_language:
        last = max((i for i, line in enumerate(out) if line.lstrip().startswith('"')), default=-1)
        if last >= 0:
            from xlsearch.engine.lang.tags import gettext_locale

            code = gettext_locale(language)  # gettext's form: pt_BR, sr@latin
            out.insert(last + 1, f'"Language: {code}\\n"{newline}')
    return out


def splice(text: str, po: Any, changed: set[int], language: str | None) -> str | None:
    """``text`` (the file as read) with the entries of ``po`` whose ``id`` is in ``changed``
    rewritten (``_rewrite``), everything else as it was; None when the text and polib's
    entries do not line up (the caller then writes polib's own rendering)."""
    lines = split_lines(text)
    if not lines:
        return None
    newline = m.group() if (m := _NEWLINE.search(text)) else "\n"
    entries = sorted(
        [e for e in po if e.linenum] + [e for e in po.obsolete_entries() if e.linenum],
        key=lambda e: e.linenum,
    )
    entries = list({id(e): e for e in entries}.values())
    for e in entries:
        if e.linenum > len(lines) or not _starts_entry(lines[e.linenum - 1]):
            return None
    wide = any(len(line.rstrip("\r\n")) > WRAP for line in lines)
    wrap = 1 << 20 if wide else WRAP
    starts = [e.linenum - 1 for e in entries]
    first = starts[0] if starts else len(lines)
    out = _header(lines[:first], language, newline)
    for k, e in enumerate(entries):
        block = lines[starts[k] : starts[k + 1] if k + 1 < len(starts) else len(lines)]
        out.extend(_rewrite(block, e, wrap, newline) if id(e) in changed else block)
    return "".join(out)
