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


_NO_SPACE = frozenset({"ja", "zh", "yue"})
"""Languages whose sentences follow each other without a space (after 。！？)."""


def join_sentences(pieces: list[str], lang: str = "", between: list[str] | None = None) -> str:
    """Sentences as one text in language ``lang``: ``between[i]`` (default a space) after
    ``pieces[i]``, as the source had it between its sentences — except that a space after
    a sentence of a language written without spaces (Chinese, Japanese: one ending in a
    full-width character such as 。) is left out. A line break stays."""
    gaps = list(between) if between is not None else [" "] * max(len(pieces) - 1, 0)
    out: list[str] = []
    for i, piece in enumerate(pieces):
        out.append(piece)
        if i < len(gaps):
            out.append(gap_after(piece, gaps[i], lang))
    return "".join(out)


def gap_after(piece: str, gap: str, lang: str) -> str:
    """What follows sentence ``piece`` in language ``lang``: ``gap`` (the source's), or
    nothing when it is only spaces after a sentence of a language written without them
    (one ending in a full-width character such as 。). A line break stays."""
    import unicodedata

    if (
        _primary(lang) in _NO_SPACE
        and gap
        and gap.strip(" \t\u3000") == ""
        and piece
        and unicodedata.east_asian_width(piece[-1]) in ("W", "F")
    ):
        return ""
    return gap
