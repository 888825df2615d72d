"""PO plural entries (``msgid``/``msgid_plural``, ``msgstr[0]`` … ``msgstr[n-1]``) are
filled whole or not at all: every form from the memory's own plural entry with as many
forms as the job's ``Plural-Forms`` header asks for. A match from a singular entry, from an
entry with another number of forms, or repaired (its other forms are not) is a suggestion
only, and the report says why."""

from __future__ import annotations

from typing import Any

from xlsearch.engine.tm.matching import context as ctx
from xlsearch.engine.tm.matching.fuzzy import placeholder_problem

PLURAL_FLAG = f"{ctx.SUGGESTION_ONLY} a plural entry:"


def plural_targets(seg: Any, m: Any) -> tuple[list[str] | None, str]:
    """(the targets of ``seg``'s plural forms, ``msgstr[0]`` …, from match ``m``'s entry;
    ''), or (None, why they cannot be written). ``([], '')`` for a segment that is no
    plural entry."""
    want = int(getattr(seg, "plurals", 0) or 0)
    if not want:
        return [], ""
    forms = list(getattr(m, "plural_forms", None) or [])
    if not forms:
        return None, f"the memory has no plural entry for it (the file asks for {want} forms)"
    if len(forms) != want:
        return None, (
            f"the memory's entry has {len(forms)} plural forms, this file's Plural-Forms "
            f"asks for {want}"
        )
    if getattr(m, "repairs", None):
        return None, "a repaired match: the memory's other plural forms are not repaired"
    empty = [k for k, (_s, t) in enumerate(forms) if not t.strip()]
    if empty:
        return None, f"the memory's msgstr[{empty[0]}] is empty"
    if " ".join(m.source.split()) != " ".join(forms[0][0].split()):
        return None, f"the match is the memory's msgid_plural (its msgid is {forms[0][0]!r})"
    plural = " ".join(str(getattr(seg, "plural_source", "")).split())
    if m.fuzzy >= 100 and " ".join(forms[1][0].split()) != plural:
        return None, f"the memory's msgid_plural is {forms[1][0]!r}"
    if placeholder_problem(str(getattr(seg, "source", "")), forms[0][1]):
        return None, "the memory's msgstr[0] has other placeholders than the msgid"
    for k, (_s, t) in enumerate(forms[1:], 1):
        if placeholder_problem(plural, t):
            return None, f"the memory's msgstr[{k}] has other placeholders than msgid_plural"
    return [t for _s, t in forms], ""


def flag_plural(seg: Any, m: Any) -> bool:
    """Flag match ``m`` of a plural entry as a suggestion only when its plural forms cannot
    all be written (``plural_targets``); True when flagged."""
    if m is None or not m.target:
        return False
    _targets, why = plural_targets(seg, m)
    if not why:
        return False
    if not any(f.startswith(PLURAL_FLAG) for f in m.flags):
        m.flags.insert(0, f"{PLURAL_FLAG} {why}")
    return True


__all__ = ["PLURAL_FLAG", "flag_plural", "plural_targets"]
