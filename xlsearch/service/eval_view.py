"""The Evaluate screen's summary, made honest: models compared on the same sets (or said not
to be), languages the model was trained on kept apart from those it never saw, and every row
and plot explained.

A benchmark's headline figure is the mean of its rows (one row per language or STS set). A
mean over two languages next to a mean over seven says nothing, and a mean that mixes
languages a model never saw with those it was trained on ranks models by what they were
not made for. So each benchmark gives up to three rows: its trained languages, its
untrained ones, and — when the models were not run on the same rows — the rows they share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xlsearch.service.api import EvalReport
from xlsearch.service.types import JSONDict

EXPLAIN: dict[str, str] = {
    "tatoeba": "Tatoeba: % of sentences whose nearest neighbour among the other language's "
    "sentences is their translation (English ↔ each language, both directions averaged); "
    "100 = every one found",
    "demo-heldout": "demo held-out: the same accuracy on the demo's held-out units (every "
    "tenth, never trained on)",
    "dev-split": "dev split: the same accuracy on the pairs held out of the model's own "
    "training data",
    "sts": "STS: Spearman ×100 between the model's cosine and human 0–5 similarity scores "
    "(English STS benchmark, its machine translations, cross-lingual pairs); 100 = same order",
    "bias": "bias: mean per-set STS minus STS of all sets pooled; near 0 = a pair's score does "
    "not depend on its languages, large = same-language pairs score higher (lower is better)",
}
"""What each summary row measures, as the screen and docs/distill.md say it."""

PLOT = (
    "language bias plot: the same sentences in each language, embedded and projected to 2-D "
    "(PCA); one cloud = the languages share one space, one cloud per language = the model "
    "separates languages before meanings"
)

_STS_LANG = re.compile(r"^stsb?-([a-z]{2,3})-(?:train|dev|test)$")
_PAIR = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})$")


def table_key(title: str) -> str:
    """A benchmark table's short key from its title (``Tatoeba accuracy (%)`` → tatoeba)."""
    lower = title.lower()
    for prefix, key in (
        ("tatoeba accuracy, margin", "tatoeba-margin"),
        ("tatoeba", "tatoeba"),
        ("demo held-out", "demo-heldout"),
        ("dev-split", "dev-split"),
        ("sts", "sts"),
        ("language bias", "bias"),
        ("bitext mining", "bucc"),
        ("mse", "mse"),
    ):
        if lower.startswith(prefix):
            return key
    return lower.split(" ")[0]


def row_languages(key: str, label: str) -> set[str]:
    """The languages one row of a benchmark table measures: a translation table's row is
    its language (and English); an STS set's, its language(s)."""
    from xlsearch.engine.evaluation.readers import to_iso1

    label = label.split("#")[0].lower()
    if key in ("tatoeba", "tatoeba-margin", "demo-heldout", "dev-split", "bucc", "mse"):
        return {"en", to_iso1(label.split("-")[0])}  # Tatoeba names languages deu, jpn …
    m = _STS_LANG.match(label)
    if m:
        return {m.group(1)}
    m = _PAIR.match(label)
    if m:
        return {m.group(1), m.group(2)}
    return {"en"}  # the STS benchmark itself (sts-test) is English


def _primary_column(key: str, row: JSONDict) -> str | None:
    for col in ("mean", "bias", "spearman", "F1", "mse"):
        if col in row:
            return col
    return next((c for c in row if c != "label"), None)


@dataclass(frozen=True)
class Column:
    """One evaluation on the screen: a model on one data source."""

    report: EvalReport
    data: str
    """What it was evaluated on (``demo held-out``, ``dev split``, a folder's name)."""
    known: set[str] | None = None
    """The languages the model's card covers (None: it does not say)."""

    @property
    def title(self) -> str:
        from xlsearch.service.coverage import display_name

        return f"{display_name(self.report.model)} · {self.data}"


@dataclass
class SummaryRow:
    metric: str
    values: list[str]
    note: str = ""
    keys: list[str] = field(default_factory=list)


def _figures(col: Column, title: str) -> dict[str, float]:
    """Row label → headline figure of one table of a column (the ``mean`` row left out)."""
    key = table_key(title)
    out = {}
    for row in col.report.tables.get(title, []):
        if row.get("label") == "mean":
            continue
        c = _primary_column(key, row)
        value = row.get(c) if c else None
        if isinstance(value, int | float):
            out[str(row["label"])] = float(value)
    return out


def _cell(values: Sequence[float]) -> str:
    return f"{sum(values) / len(values):.1f} ({len(values)})" if values else "–"


def summary_rows(columns: Sequence[Column]) -> list[SummaryRow]:
    """The summary table: per benchmark, its trained and untrained languages' means (with
    how many rows each averages) and, when the columns ran on different rows, the mean over
    the rows they share; ``note`` says which."""
    titles = list(dict.fromkeys(t for c in columns for t in c.report.tables))
    rows: list[SummaryRow] = []
    for title in titles:
        key = table_key(title)
        figures = [_figures(c, title) if title in c.report.tables else None for c in columns]
        if key == "bias":
            cells = [_cell(list(f.values())) if f else "–" for f in figures]
            rows.append(SummaryRow("bias (lower = better)", cells, EXPLAIN["bias"], [key]))
            continue
        trained, untrained = [], []
        for col, fig in zip(columns, figures, strict=True):
            if fig is None:
                trained.append("–")
                untrained.append("–")
                continue
            seen = [col.known is None or row_languages(key, lab) <= col.known for lab in fig]
            yes = [v for v, ok in zip(fig.values(), seen, strict=True) if ok]
            no = [v for v, ok in zip(fig.values(), seen, strict=True) if not ok]
            trained.append(_cell(yes))
            untrained.append(_cell(no))
        label = key.replace("-", " ")
        rows.append(SummaryRow(f"{label} · trained", trained, EXPLAIN.get(key, ""), [key]))
        if any(v != "–" for v in untrained):
            rows.append(
                SummaryRow(
                    f"{label} · untrained",
                    untrained,
                    "languages outside the model's card: not what it was made for",
                    [key],
                )
            )
        present = [f for f in figures if f is not None]
        if len(present) > 1 and len({frozenset(f) for f in present}) > 1:
            common = set.intersection(*(set(f) for f in present))
            cells = [
                _cell([f[lab] for lab in sorted(common)]) if f is not None and common else "–"
                for f in figures
            ]
            note = (
                f"the columns ran on different {label} sets: this row averages the "
                f"{len(common)} they share"
                if common
                else f"the columns share no {label} set: not comparable"
            )
            rows.append(SummaryRow(f"{label} · same sets", cells, note, [key]))
    return rows


def explanations(columns: Sequence[Column]) -> list[str]:
    """One line per benchmark shown (and the plot), for the screen's legend."""
    keys = list(dict.fromkeys(table_key(t) for c in columns for t in c.report.tables))
    lines = [EXPLAIN[k] for k in keys if k in EXPLAIN]
    lines.append(
        "a cell: the mean of the benchmark's rows and (in brackets) how many rows; "
        "trained = languages in the model's card, untrained = the others"
    )
    if any(c.report.bias_points for c in columns):
        lines.append(PLOT)
    return lines
