"""Sentence splitting for any language (sentencex: Wikimedia's rule-based segmenter).

sentencex covers ~300 languages through language fallbacks with per-language abbreviation
lists, needs no model download and is maintained; it replaces hand-written rules. Two small
repairs on its output: closing quotes/brackets that start a piece go back to the sentence
they close, and a lone initial (French ``M.`` for Monsieur) is joined to what follows.
"""

from __future__ import annotations

from functools import lru_cache

_CLOSERS = "\"'”’»)]}」』）"


@lru_cache(maxsize=64)
def _primary(lang: str) -> str:
    return (lang or "en").replace("_", "-").split("-", 1)[0].lower() or "en"


def split_sentences(text: str, lang: str = "en") -> list[str]:
    """Split ``text`` into sentences for language ``lang`` (a BCP 47 tag; unknown → English
    rules); whitespace around each sentence is stripped and empty pieces are dropped."""
    from sentencex import segment

    out: list[str] = []
    for piece in segment(_primary(lang), text):
        piece = " ".join(piece.split())
        if not piece:
            continue
        if out:
            head = len(piece) - len(piece.lstrip(_CLOSERS))
            if head and (head == len(piece) or piece[head] == " "):
                out[-1] += piece[:head]
                piece = piece[head:].strip()
                if not piece:
                    continue
            last = out[-1]
            if len(last) == 2 and last[1] == "." and last[0].isupper():
                out[-1] = f"{last} {piece}"
                continue
        out.append(piece)
    return out
