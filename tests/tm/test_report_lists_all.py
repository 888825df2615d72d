"""The Markdown report a translator asks for (``--report job.md``, the Translate screen's
``.analysis.md``) lists every repaired match, fragment and semantic suggestion; the
report printed on the terminal shows ten of each and says how many more the file holds;
the JSON report (``--report job.json``) lists every semantic example too."""

from __future__ import annotations

from xlsearch.engine.tm.analysis.results import Analysis, SegmentResult
from xlsearch.engine.tm.matching.fragments import Fragment
from xlsearch.engine.tm.matching.matches import Match


def _match(source: str, target: str, fuzzy: int, flags: list[str]) -> Match:
    return Match(1, source, "en", target, "it", fuzzy, 0.9, float(fuzzy), flags=flags)


def _analysis(n: int) -> Analysis:
    segs = []
    for i in range(n):
        twin = _match(f"Item {i}", f"Voce {i}", 99, ["repaired: ellipsis added"])
        segs.append(SegmentResult(3 * i, f"Item {i}…", 1, "95-99%", 99, 0.9, best=twin))
        frag = Fragment(f"word{i}", f"parola{i}", 0, 1, 2, "aligned")
        segs.append(SegmentResult(3 * i + 1, f"Other word{i}", 2, "no match", fragments=[frag]))
        sem = _match(f"Similar {i}", f"Simile {i}", 20, [])
        segs.append(SegmentResult(3 * i + 2, f"Like {i}", 2, "no match", 0, 0.9, semantic=sem))
    return Analysis("job.po", "en", "it", "tm", 0.8, segs)


def test_the_report_file_lists_every_segment_and_the_terminal_ten() -> None:
    rep = _analysis(14)
    md = rep.to_markdown(examples=None)
    for i in range(14):
        assert f"- **Item {i}…** (99 %): repaired: ellipsis added" in md
        assert f"- **Other word{i}**: word{i} → parola{i} (2 memory units translate it so)" in md
        assert f"- **Like {i}** (best fuzzy 0 %)" in md
    assert "more (" not in md
    short = rep.to_markdown()
    assert "**Item 9…**" in short and "**Item 10…**" not in short
    assert "**Other word10**" not in short and "**Like 10**" not in short
    assert short.count("- … and 4 more (--report FILE.md lists all)") == 3


def test_the_json_report_lists_every_semantic_example() -> None:
    examples = _analysis(14).to_dict()["semantic_examples"]  # what --report FILE.json writes
    assert [e["segment"] for e in examples] == [f"Like {i}" for i in range(14)]
