"""Which targets a translator has confirmed, as each CAT format records it, and how a
confirmation (or a fill for review) is written back.

- XLIFF 1.2: confirmed when ``state`` is ``translated``, ``signed-off`` or ``final``;
  written as ``state="translated"``.
- Trados SDLXLIFF: ``sdl:seg conf`` ``Translated``, ``ApprovedTranslation`` or
  ``ApprovedSignOff``; written as ``conf="Translated"``.
- memoQ mqxliff: ``mq:status`` ``ManuallyConfirmed``, ``Confirmed``, ``Proofread`` or
  ``Reviewer…Confirmed``; written as ``mq:status="ManuallyConfirmed"``.
- XLIFF 2.x: ``state`` ``reviewed`` or ``final``, or ``translated`` not set by xlsearch;
  written as ``state="translated"`` without xlsearch's ``subState``.
- PO: a ``msgstr`` without the ``fuzzy`` flag; written by removing the flag.

A memoQ target xlsearch fills (not confirmed) gets ``mq:status="Pretranslated"``, which
memoQ shows as such, instead of keeping ``NotStarted``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xlsearch.engine.importers.base import marked_own

NS_SDL = "http://sdl.com/FileTypes/SdlXliff/1.0"
NS_MQ = "MQXliff"
MQ_STATUS = f"{{{NS_MQ}}}status"
MQ_PERCENT = f"{{{NS_MQ}}}percent"

CONFIRMED_12 = frozenset({"translated", "signed-off", "final"})
CONFIRMED_20 = frozenset({"reviewed", "final"})
CONFIRMED_SDL = frozenset({"Translated", "ApprovedTranslation", "ApprovedSignOff"})
CONFIRMED_MQ = frozenset(
    {"ManuallyConfirmed", "Confirmed", "Proofread", "Reviewer1Confirmed", "Reviewer2Confirmed"}
)


def sdl_seg(tu: Any, mid: str | None) -> Any:
    """The ``sdl:seg`` of segment ``mid`` of ``tu`` (the first one for an unsegmented unit)."""
    for seg in tu.iter(f"{{{NS_SDL}}}seg"):
        if mid is None or seg.get("id") == mid:
            return seg
    return None


def confirmed_12(tu: Any, mid: str | None, state: str, target: str) -> bool:
    """Whether segment ``mid`` of 1.2 trans-unit ``tu`` holds a confirmed target: Trados'
    ``sdl:seg conf`` where it says, else memoQ's ``mq:status``, else the target's ``state``."""
    if not target.strip():
        return False
    seg = sdl_seg(tu, mid)
    if seg is not None and seg.get("conf"):
        return seg.get("conf") in CONFIRMED_SDL
    if tu.get(MQ_STATUS):
        return tu.get(MQ_STATUS) in CONFIRMED_MQ
    return state in CONFIRMED_12


def confirmed_20(segment: Any, target: str) -> bool:
    """Whether a 2.x ``segment`` holds a confirmed target (``translated`` with xlsearch's own
    ``subState`` is a fill for review, not a confirmation)."""
    state = segment.get("state", "")
    if not target.strip():
        return False
    if state in CONFIRMED_20:
        return True
    return state == "translated" and not marked_own(segment.get("subState"))


def unit_state_12(segs: Sequence[Any]) -> str:
    """The 1.2 ``state`` of a unit's target, given the unit's segments ``segs``:
    ``translated`` when every one has a target and is confirmed, else
    ``needs-review-translation``."""
    if segs and all(s.target.strip() and s.confirmed for s in segs):
        return "translated"
    return "needs-review-translation"


def write_memoq_status(tu: Any, seg: Any) -> None:
    """memoQ reads a segment's status from ``mq:status``: confirmed, or pre-translated with
    the match's percentage."""
    if tu.get(MQ_STATUS) is None:
        return
    if seg.confirmed:
        tu.set(MQ_STATUS, "ManuallyConfirmed")
        return
    tu.set(MQ_STATUS, "Pretranslated" if seg.quality is not None else "Edited")
    if seg.quality is not None and seg.origin == "fuzzy":
        tu.set(MQ_PERCENT, f"{seg.quality:.0f}")


def unconfirm_po(entry: Any) -> None:
    """Mark a PO entry for review (``fuzzy``, first of its flags, as gettext writes it)."""
    if "fuzzy" not in entry.flags:
        entry.flags.insert(0, "fuzzy")


def confirm_po(entry: Any) -> None:
    """A confirmed PO entry: no ``fuzzy`` flag, no previous msgid, no xlsearch comment."""
    entry.flags = [f for f in entry.flags if f != "fuzzy"]
    entry.previous_msgid = None
    lines = [x for x in (entry.tcomment or "").splitlines() if not marked_own(x)]
    entry.tcomment = "\n".join(lines)


__all__ = [
    "CONFIRMED_12",
    "CONFIRMED_20",
    "CONFIRMED_MQ",
    "CONFIRMED_SDL",
    "confirm_po",
    "confirmed_12",
    "confirmed_20",
    "unconfirm_po",
    "unit_state_12",
    "write_memoq_status",
]
