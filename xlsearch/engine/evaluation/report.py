"""Evaluation reports: per-benchmark tables, flat metrics, text/markdown/JSON (1 decimal)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any


def fmt(value: float | None) -> str:
    """A figure as printed everywhere: one decimal, ``–`` when missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.1f}"


def round1(value: float | None) -> float | None:
    """The printed figure as a number (same rounding as ``fmt``)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(f"{value:.1f}")


@dataclass
class Table:
    """One benchmark's results: labelled rows × named columns."""

    key: str
    """Short id used in metric names (``tatoeba``, ``sts``, ``bucc`` …)."""
    title: str
    columns: list[str]
    rows: list[tuple[str, list[float | None]]] = field(default_factory=list)
    note: str = ""

    def add(self, label: str, values: list[float | None]) -> None:
        """Append a row (one value per column)."""
        if len(values) != len(self.columns):
            raise ValueError(f"{len(values)} values for {len(self.columns)} columns")
        self.rows.append((label, list(values)))

    def add_mean_row(self, label: str = "mean") -> None:
        """Append the column means over the rows so far (ignoring missing values)."""
        means: list[float | None] = []
        for j in range(len(self.columns)):
            vals = [v for r in self.rows if (v := r[1][j]) is not None]
            means.append(sum(vals) / len(vals) if vals else None)
        if self.rows:
            self.rows.append((label, means))

    def value(self, label: str, column: str) -> float | None:
        """The figure in row ``label``, column ``column`` (``KeyError`` if absent)."""
        j = self.columns.index(column)
        for lab, vals in self.rows:
            if lab == label:
                return vals[j]
        raise KeyError(label)

    def to_text(self) -> str:
        """An aligned plain-text table (the CLI's output)."""
        header = ["", *self.columns]
        body = [[lab, *(fmt(v) for v in vals)] for lab, vals in self.rows]
        widths = [max(len(r[j]) for r in [header, *body]) for j in range(len(header))]
        lines = [self.title + (f"  ({self.note})" if self.note else "")]
        for r in [header, *body]:
            cells = [r[0].ljust(widths[0])] + [
                c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
            ]
            lines.append("  " + "  ".join(cells).rstrip())
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A GitHub-flavoured markdown table with the title as a bold caption."""
        out = [f"**{self.title}**" + (f" — {self.note}" if self.note else ""), ""]
        out.append("| | " + " | ".join(self.columns) + " |")
        out.append("|---|" + "---:|" * len(self.columns))
        for lab, vals in self.rows:
            out.append(f"| {lab} | " + " | ".join(fmt(v) for v in vals) + " |")
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "note": self.note,
            "columns": list(self.columns),
            "rows": [
                {"label": lab, "values": dict(zip(self.columns, map(round1, vals), strict=True))}
                for lab, vals in self.rows
            ],
        }


@dataclass
class Report:
    """All results of one evaluation run of one model."""

    model: str
    tables: list[Table] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    """Unprinted extras: mining thresholds, per-set bias figures, PCA plot coordinates."""
    meta: dict[str, Any] = field(default_factory=dict)

    def table(self, key: str) -> Table:
        """The table with this key (``KeyError`` if absent)."""
        for t in self.tables:
            if t.key == key:
                return t
        raise KeyError(key)

    def metrics(self) -> dict[str, float]:
        """Flat ``{"table/row/column": figure}`` rounded to one decimal (what cards store)."""
        out: dict[str, float] = {}
        for t in self.tables:
            for lab, vals in t.rows:
                for col, v in zip(t.columns, vals, strict=True):
                    r = round1(v)
                    if r is not None:
                        out[f"{t.key}/{lab}/{col}"] = r
        return out

    def row_dicts(self) -> dict[str, list[dict[str, Any]]]:
        """``{table key: [{"label": row, column: figure (1 decimal), …}, …]}`` for UIs."""
        return {
            t.key: [
                {"label": lab, **{c: round1(v) for c, v in zip(t.columns, vals, strict=True)}}
                for lab, vals in t.rows
            ]
            for t in self.tables
        }

    def summary(self) -> dict[str, float]:
        """One headline figure per table: its primary column (``mean`` for Tatoeba, ``bias``,
        else the first) in the ``mean`` row if any, else averaged over the rows."""
        out: dict[str, float] = {}
        for t in self.tables:
            col = next((c for c in ("mean", "bias") if c in t.columns), t.columns[0])
            j = t.columns.index(col)
            rows = [(lab, v) for lab, vals in t.rows if (v := vals[j]) is not None]
            found = [v for lab, v in rows if lab == "mean"] or [v for _, v in rows]
            r = round1(sum(found) / len(found)) if found else None
            if r is not None:
                out[t.key] = r
        return out

    def bias_points(self) -> list[tuple[float, float, str]]:
        """The language-bias PCA as ``(x, y, language)`` points (empty when not computed)."""
        for details in self.details.get("bias", {}).values():
            pca = details.get("pca")
            if pca:
                return list(zip(pca["x"], pca["y"], pca["lang"], strict=True))
        return []

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "meta": self.meta,
            "tables": [t.to_dict() for t in self.tables],
            "metrics": self.metrics(),
            "details": _round_deep(self.details, 4),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """Rebuild a report from ``to_dict``/``to_json`` output (figures stay rounded)."""
        tables = []
        for t in data.get("tables", []):
            table = Table(t["key"], t["title"], list(t["columns"]), note=t.get("note", ""))
            for row in t["rows"]:
                table.add(row["label"], [row["values"].get(c) for c in table.columns])
            tables.append(table)
        return cls(data["model"], tables, data.get("details", {}), data.get("meta", {}))

    def to_json(self, indent: int | None = 2) -> str:
        """JSON: table figures rounded to one decimal as printed (plot data to 4 decimals)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def to_text(self) -> str:
        head = f"Model: {self.model}"
        extras = ", ".join(f"{k}: {v}" for k, v in self.meta.items() if k != "model")
        return "\n\n".join(
            [head + (f"  ({extras})" if extras else "")] + [t.to_text() for t in self.tables]
        )

    def to_markdown(self) -> str:
        return "\n\n".join([f"### {self.model}"] + [t.to_markdown() for t in self.tables])


def _round_deep(obj: Any, ndigits: int) -> Any:
    if isinstance(obj, float):
        return round(obj, ndigits) if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _round_deep(v, ndigits) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_round_deep(v, ndigits) for v in obj]
    return obj


def compare_table(results: dict[str, dict[str, float]], keys: list[str] | None = None) -> Table:
    """Models side by side: one row per metric name, one column per model."""
    names = list(results)
    if keys is None:
        keys = []
        for m in results.values():
            keys += [k for k in m if k not in keys]
    table = Table("compare", "Models side by side", names)
    for k in keys:
        table.add(k, [results[n].get(k) for n in names])
    return table
