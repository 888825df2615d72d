"""A model card as readable text: essentials first, per-language figures as small tables."""

from __future__ import annotations

from typing import Any

from rich.text import Text

CARD_FIRST = (
    "kind",
    "student",
    "teacher",
    "languages",
    "dim",
    "created",
    "preset",
    "demo_heldout",
    "metrics",
)
CARD_TITLES = {"demo_heldout": "held-out demo accuracy (%)"}


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def _grid(value: dict[str, Any]) -> list[str] | None:
    """A dict of number dicts as aligned rows (the larger key set down the side)."""
    inner = [v for v in value.values() if isinstance(v, dict)]
    if not inner or len(inner) != len(value):
        return None
    outer_keys = list(value)
    inner_keys = list(dict.fromkeys(k for d in inner for k in d))
    if not all(isinstance(x, int | float) for d in inner for x in d.values()):
        return None
    transpose = len(inner_keys) > len(outer_keys)  # rows = inner keys
    rows, cols = (inner_keys, outer_keys) if transpose else (outer_keys, inner_keys)

    def cell(r: str, c: str) -> str:
        v = value[c].get(r) if transpose else value[r].get(c)
        if v is None:
            return "–"
        if isinstance(v, float):
            return f"{v:.1f}" if abs(v) >= 1 else f"{v:.3g}"
        return str(v)

    width = max(len(r) for r in rows)
    head = " " * width + "".join(f" {c[:8]:>8}" for c in cols)
    return [head] + [f"{r:<{width}}" + "".join(f" {cell(r, c):>8}" for c in cols) for r in rows]


def format_card(card: dict[str, Any]) -> Text:
    """A model card as ``key: value`` lines: essentials, held-out results and metrics first,
    nested per-language figures as small tables, the training config last."""
    out = Text()
    order = [k for k in CARD_FIRST if k in card]
    order += [k for k in card if k not in order and k != "config"]
    order += ["config"] if "config" in card else []
    for key in order:
        value = card[key]
        if not isinstance(value, dict):
            out.append(f"{key}: ", style="bold")
            out.append(f"{_shown(value)}\n")
            continue
        out.append(f"{CARD_TITLES.get(key, key)}:\n", style="bold")
        grid = _grid({k: v for k, v in value.items() if isinstance(v, dict)})
        for k, v in value.items():
            if not isinstance(v, dict):
                out.append(f"  {k}: {_shown(v)}\n")
            elif grid is None:
                out.append(f"  {k}:\n")
                for line in _grid(v) or []:
                    out.append(f"    {line}\n")
                for k2, v2 in v.items() if _grid(v) is None else ():
                    out.append(f"    {k2}: {_shown(v2) if not isinstance(v2, dict) else '…'}\n")
        for line in grid or []:
            out.append(f"  {line}\n")
    return out
