"""Sentence splitting for any language (sentencex: Wikimedia's rule-based segmenter).

sentencex covers ~300 languages through language fallbacks with per-language abbreviation
lists, needs no model download and is maintained; it replaces hand-written rules.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=64)
def _primary(lang: str) -> str:
    return (lang or "en").replace("_", "-").split("-", 1)[0].lower() or "en"


def split_sentences(text: str, lang: str = "en") -> list[str]:
    """Split ``text`` into sentences for language ``lang`` (a BCP 47 tag; unknown → English
    rules); whitespace around each sentence is stripped and empty pieces are dropped."""
    from sentencex import segment

    return [s.strip() for s in segment(_primary(lang), text) if s.strip()]
