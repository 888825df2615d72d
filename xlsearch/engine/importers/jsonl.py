"""JSON lines: ``{"text": …, "lang": …, "tu": …, …}``, or a parallel line as Hugging Face
datasets write it, ``{"translation": {"en": …, "de": …}, …}``; other fields are kept as
metadata."""

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
        if "text" not in obj and isinstance(obj.get("translation"), dict):
            tu, next_tu = next_tu, next_tu + 1
            yield from _parallel(ctx, obj, tu, number)
            continue
        raw = obj.pop("text", None)
        if not isinstance(raw, str):
            ctx.warn(
                'no "text" string; line skipped (a parallel line: {"translation": {"en": …, '
                '"de": …}}, or one object per side with "text", "lang" and a shared "tu")',
                line=number,
            )
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


def _parallel(ctx: ReadContext, obj: dict, tu: int, number: int) -> Iterator[Record]:
    """The sides of ``{"translation": {"en": …, "de": …}}`` as one translation unit."""
    sides = obj.pop("translation")
    meta = obj or None
    for key, raw in sides.items():
        lang = normalize_lang(key) if isinstance(key, str) else None
        if lang is None or not isinstance(raw, str):
            ctx.warn(f"translation {key!r}: not a language and its text; left out", line=number)
            continue
        text = normalize(raw)
        if check_text(ctx, text, number):
            yield Record(tu, lang, text, number, meta)
