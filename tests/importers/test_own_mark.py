"""The mark xlsearch leaves on what it wrote for review (a PO comment line, an XLIFF 2
``subState``) is recognised by one helper, so the readers and writers never disagree."""

from __future__ import annotations

import re
from pathlib import Path

import xlsearch
from xlsearch.engine.importers.base import marked_own


def test_own_mark_is_recognised_in_one_place() -> None:
    assert marked_own("xlsearch: semantic 92%, needs review")
    assert marked_own("xlsearch:semantic-92")
    assert not marked_own(None) and not marked_own("") and not marked_own("reviewed by Ana")
    assert not marked_own(" xlsearch: indented is a user's note")
    by_hand = re.compile(r"""startswith\(\s*(?:\(\s*)?["']xlsearch:""")
    root = Path(xlsearch.__file__).parent
    hits = [
        f"{p.relative_to(root)}:{n}"
        for p in sorted(root.rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if by_hand.search(line)
    ]
    assert hits == [], hits
