"""JSON lines: ``{"text": …, "lang": …, "tu": …, …}``; other fields are kept as metadata."""

from __future__ import annotations

import json
from collections.abc import Iterator

from xlsearch.engine.importers.base import (
    ReadContext,
    Record,
    check_text,
    iter_lines,
    normalize,
    normalize_lang,
)


def read_jsonl(ctx: ReadContext) -> Iterator[Record]:
    """One segment per object. ``text`` is required; ``lang`` (else ``ctx.langs[0]``, else
    identified); objects with the same ``tu`` (or ``tu_id``) value are aligned translations.
    Unparseable lines and objects without text are skipped with a warning."""
    default = ctx.langs[0] if ctx.langs else None
    units: dict[str, int] = {}
    next_tu = 0
    for number, line in iter_lines(ctx):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            ctx.warn(f"not JSON ({exc.msg} at column {exc.colno}); line skipped", line=number)
            continue
        if not isinstance(obj, dict):
            ctx.warn("not a JSON object; line skipped", line=number)
            continue
        raw = obj.pop("text", None)
        if not isinstance(raw, str):
            ctx.warn('no "text" string; line skipped', line=number)
            continue
        lang_raw = obj.pop("lang", None)
        lang = normalize_lang(lang_raw) if isinstance(lang_raw, str) else None
        if lang_raw is not None and lang is None:
            ctx.warn(f"unreadable lang {lang_raw!r}; identifying it", line=number, skip=False)
        lang = lang or default
        key = obj.pop("tu", obj.pop("tu_id", None))
        if key is None:
            tu = next_tu
            next_tu += 1
        else:
            key = str(key)
            if key not in units:
                units[key] = next_tu
                next_tu += 1
            tu = units[key]
            obj["tu"] = key
        text = normalize(raw)
        if check_text(ctx, text, number):
            yield Record(tu, lang, text, number, obj or None)
