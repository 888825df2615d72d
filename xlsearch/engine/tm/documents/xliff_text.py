"""The text of an XLIFF source or target as xlsearch matches it: inline codes dropped (a
placeholder a word boundary), paired tags' content kept, Trados' tracked deletions left out."""

from __future__ import annotations

from typing import Any

from xlsearch.engine.importers.placeholders import code_placeholder
from xlsearch.engine.tm.documents.tags import local_name

# inline codes whose content is native markup, and empty placeholders (1.2 and 2.x)
_CODES = frozenset({"bpt", "ept", "ph", "it", "ut", "x", "bx", "ex", "sc", "ec", "cp"})
_PAIRED = frozenset({"g", "pc", "mrk", "sm", "em", "sub"})
# placeholders stand for content of their own (a break, an image, a field): a word boundary
_SEPARATE = frozenset({"x", "ph"})


def namespace_of(elem: Any) -> str:
    return elem.tag[1:].split("}", 1)[0] if elem.tag.startswith("{") else ""


def element_text(elem: Any) -> tuple[str, int]:
    """Plain text of a source/target (codes dropped, an empty code a word boundary, a code
    standing for a placeholder its text, paired tags' content kept, Trados' tracked
    deletions left out), tag count. Only for matching: the file's own source is untouched."""
    parts: list[str] = [elem.text or ""]
    tags = 0
    for child in elem:
        name = local_name(child.tag)
        if name == "mrk" and child.get("mtype") == "x-sdl-deleted":  # Trados track changes
            pass
        elif name in _CODES:
            placeholder = code_placeholder(child)
            if placeholder:  # text of the segment: ``<ph>{max_size}</ph>`` reads "{max_size}"
                parts.append(placeholder)
            else:
                tags += 1
                if name in _SEPARATE:
                    parts.append(" ")
        elif name in _PAIRED:
            inner, n = element_text(child)
            parts.append(inner)
            tags += n + (0 if name == "mrk" else 1)
        parts.append(child.tail or "")
    return " ".join("".join(parts).split()), tags


def tag_places(elem: Any, text: str, tags: int) -> list[list[Any]] | None:
    """Where ``elem``'s codes stand in ``text`` as an import would store them; None when it
    has none or the import would read its text otherwise."""
    if not tags:
        return None
    import copy

    from lxml import etree

    from xlsearch.engine.importers.inline import text_tags

    bare = copy.deepcopy(elem)  # as the importer reads it: no namespaces, no comments
    etree.strip_elements(bare, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    for e in bare.iter():
        e.tag = local_name(e.tag)
    try:
        read, places = text_tags(bare)
    except (TypeError, ValueError, AttributeError):  # markup the importer does not know
        return None
    return places if read == text else None


def child_element(elem: Any, name: str) -> Any:
    """The first direct child with local name ``name``."""
    return next((c for c in elem if local_name(c.tag) == name), None)
