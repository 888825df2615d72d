"""A semantic match for a unit of the segment's kind: a paragraph for a paragraph, a
sentence for a sentence."""

from __future__ import annotations

from typing import Any


def several(text: str, lang: str) -> bool:
    """Whether ``text`` holds several sentences (a paragraph unit) or one."""
    from xlsearch.engine.lang.sentences import split_sentences

    return len(split_sentences(text, lang or "en")) > 1


def same_shape(matches: list[Any], segment: str, src: str) -> list[Any]:
    """The semantic candidates that are units of the segment's kind: a paragraph for a
    paragraph, a sentence for a sentence. A sentence "means" the paragraph it opens (a high
    cosine), but the paragraph's translation is no translation of the sentence."""
    own = several(segment, src)
    return [m for m in matches if several(m.source, m.source_lang or src) == own]


__all__ = ["same_shape", "several"]
