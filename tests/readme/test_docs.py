"""The user docs stay readable: a short benchmark reference, working links, no private paths.

``docs/benchmarks.md`` is a reference page (one table per capability, each with its CPU,
date and command; at most 300 lines); the dated history lives in ``bench/results/``. No doc
names a path of the machine a figure was measured on or speaks about how the project is run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
USER_DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RESULTS = sorted((ROOT / "bench" / "results").glob("*.md"))
ALL_DOCS = USER_DOCS + RESULTS

MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|root|home/\w+)/")
TEAM_WORDS = re.compile(
    r"\bthis session\b|\bsession \d|\bhelpers?\b(?! (?:function|module|class))|\bnewcomer"
    r"|\bissues? \d+|\bthe lead\b|\bthe brief\b",
    re.I,
)
CAPABILITIES = [
    "Encoding",
    "Distillation",
    "Import and indexing",
    "Search and lookup latency",
    "Lookup recall",
    "Sentence alignment",
    "Bitext mining",
    "Start-up",
]


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## ", text, flags=re.M)[1:]
    return {p.split("\n", 1)[0]: p for p in parts}


@pytest.mark.parametrize("doc", ALL_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_machine_paths(doc: Path) -> None:
    hits = [
        f"{doc.name}:{n}: {line.strip()}"
        for n, line in enumerate(doc.read_text("utf-8").splitlines(), 1)
        if MACHINE_PATH.search(line)
    ]
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("doc", ALL_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_speak_to_users(doc: Path) -> None:
    hits = [
        f"{doc.name}:{n}: {line.strip()}"
        for n, line in enumerate(doc.read_text("utf-8").splitlines(), 1)
        if TEAM_WORDS.search(line)
    ]
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("doc", ALL_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path) -> None:
    text = doc.read_text("utf-8")
    missing = [
        target
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
        if "://" not in target and not (doc.parent / target).exists()
    ]
    assert not missing, f"{doc.name}: broken links {missing}"


def test_benchmarks_page_is_a_reference() -> None:
    text = (ROOT / "docs" / "benchmarks.md").read_text("utf-8")
    assert len(text.splitlines()) <= 300
    sections = _sections(text)
    for capability in CAPABILITIES:
        found = [s for title, s in sections.items() if title.startswith(capability)]
        assert found, f"benchmarks.md has no section on {capability}"
        body = found[0]
        assert "|---" in body, f"{capability}: no table"
        assert re.search(r"\b2026-\d\d-\d\d\b", body), f"{capability}: no date"
        assert re.search(r"Xeon|EPYC|2-core CPU", body), f"{capability}: no CPU named"
        assert re.search(r"`(?:python bench/|xlsearch |make )[^`]*`", body), (
            f"{capability}: no command that reproduces it"
        )


def test_history_moved_to_bench_results() -> None:
    names = {p.stem for p in RESULTS}
    assert {"encode", "distill", "import-index", "search", "lookup", "align", "mining"} <= names
    distill = (ROOT / "bench" / "results" / "distill.md").read_text("utf-8")
    assert "2026-11-21" in distill and "s2-static" in distill  # the dated entries, kept
