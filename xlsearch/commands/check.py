"""``xlsearch check FILE…``: rule, consistency, language and semantic checks of translations."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from xlsearch.commands import Once


def register(sub: Any) -> None:
    """Add the ``check`` command."""
    p = sub.add_parser(
        "check",
        help="check translations before they ship: placeholders, numbers, mnemonics, tags, "
        "consistency, wrong language, mistranslations and omissions",
        description="Check the targets of XLIFF 1.2/2.x (SDLXLIFF, mqxliff), PO, TMX and TSV "
        "files (and a collection's pairs). Rule checks (numbers, placeholders, inline tags, "
        "mnemonics, whitespace, end punctuation, untranslated, doubled words, URLs), "
        "consistency, the target's language, and semantic checks whose thresholds are "
        "measured on the file itself with the active model (its own pairs against shuffled "
        "ones): a model that cannot tell a pair's translations apart says so and flags "
        "nothing. Exit status 1 when an error-severity flag is found.",
    )
    p.add_argument("files", nargs="*", type=Path, help="files to check")
    p.add_argument(
        "--collection", "-c", action=Once, help="also check this collection's pairs (--src/--tgt)"
    )
    p.add_argument(
        "--memory", action=Once, help="compare with this collection's translations (consistency)"
    )
    p.add_argument("--src", help="source language (default: what the file says)")
    p.add_argument("--tgt", help="target language (default: what the file says)")
    p.add_argument("--model", help="model for the semantic checks (default: the active model)")
    p.add_argument("--rules-only", action="store_true", help="no semantic checks (no model)")
    p.add_argument(
        "--fuzzy",
        action="store_true",
        help="also check every PO fuzzy entry (msgmerge's drafts); the fills analyze --out "
        "wrote for review are always checked",
    )
    p.add_argument("--json", action="store_true", help='print {"checked": N, "flags": [...]}')
    p.add_argument("--report", type=Path, help="also write the flags to this file (.json or .tsv)")
    p.add_argument(
        "--severity",
        choices=("error", "warning", "info"),
        default="warning",
        help="least severity shown (default: warning; info adds the conventions)",
    )
    p.set_defaults(func=cmd_check)


_RANK = {"error": 0, "warning": 1, "info": 2}


def _flag_dict(f: Any) -> dict[str, Any]:
    out = {
        "file": f.file,
        "unit": f.unit,
        "line": f.line,
        "source": f.source,
        "target": f.target,
        "kind": f.kind,
        "severity": f.severity,
        "explanation": f.explanation,
        "draft": f.draft,
    }
    if f.file.lower().endswith((".po", ".pot")):  # gettext's own fields, beside the id
        out |= {"msgctxt": f.context, "msgid": f.ident}
    return out


def _write_report(path: Path, payload: dict[str, Any]) -> None:
    from xlsearch.service.shared import require_output

    require_output(path, "flags.json or flags.tsv")
    if path.suffix.lower() == ".tsv":
        cols = ("file", "unit", "line", "severity", "kind", "source", "target", "explanation")
        lines = ["\t".join(cols)]
        for f in payload["flags"]:
            lines.append(
                "\t".join(" ".join(str(f[c] if f[c] is not None else "").split()) for c in cols)
            )
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        path.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def cmd_check(args: argparse.Namespace) -> int:
    """Run the checks, print the flags, write the report."""
    from xlsearch.engine.errors import ConfigError
    from xlsearch.service.local import LocalEngine
    from xlsearch.service.options import langs_option

    if not args.files and not args.collection:
        raise ConfigError(
            "nothing to check", hint="name files (.xlf, .po, .tmx, .tsv) or --collection"
        )
    src = next(iter(langs_option(args.src)), None)
    tgt = next(iter(langs_option(args.tgt)), None)
    report = LocalEngine().check_files(
        [str(p) for p in args.files],
        collection=args.collection,
        memory=args.memory,
        src=src,
        tgt=tgt,
        model=args.model,
        semantic=not args.rules_only,
        fuzzy=args.fuzzy,
    )
    shown = [f for f in report.flags if _RANK[f.severity] <= _RANK[args.severity]]
    payload = {
        "checked": report.checked,
        "drafts": report.drafts,
        "skipped": report.skipped,  # without a target, or a draft another tool left
        "drafts_skipped": report.drafts_skipped,  # of those, fuzzy entries: --fuzzy checks them
        "flags": [_flag_dict(f) for f in shown],
        "model": report.model or None,
        "calibration": [
            {
                "pair": c.pair,
                "units": c.units,
                "supported": c.supported,
                "note": c.note,
                "thresholds": dict(c.thresholds),
            }
            for c in report.calibrations
        ],
    }
    if args.report:
        _write_report(args.report, payload)
    if args.json:
        print(json.dumps(payload, ensure_ascii=False))
    else:
        for f in shown:
            where = f"{f.file}:{f.line}" if f.line else f.file
            unit = f.unit.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
            print(f"{where}  [{unit[:60]}]  {f.severity} {f.kind}: {f.explanation}")
            print(f"    source: {' '.join(f.source.split())[:120]}")
            draft = " (a draft, not confirmed)" if f.draft else ""
            print(f"    target{draft}: {' '.join(f.target.split())[:120]}")
        counts = report.counts()

        def n(count: int, word: str, plural: str = "") -> str:
            return f"{count:,} " + (word if count == 1 else plural or word + "s")

        model = Path(report.model).name if report.model else ""
        drafts = f"{report.drafts:,} of them drafts not yet confirmed; " if report.drafts else ""
        more = (
            f": --fuzzy checks the {n(report.drafts_skipped, 'fuzzy entry', 'fuzzy entries')}"
            if report.drafts_skipped
            else ""
        )
        hidden = {f.severity for f in report.flags} - {f.severity for f in shown}

        def told(severity: str, text: str) -> str:  # counted, not listed: say how to see them
            return (
                f"{text} (not shown: --severity {severity} lists them)"
                if severity in hidden
                else text
            )

        print(
            f"{n(report.checked, 'unit')} checked ({drafts}{report.skipped:,} without a target "
            f"or fuzzy, not checked{more}): {n(counts['error'], 'error')}, "
            f"{told('warning', n(counts['warning'], 'warning'))}, "
            f"{told('info', n(counts['info'], 'note'))}" + (f"; model {model}" if model else "")
        )
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    return 1 if any(f.severity == "error" for f in report.flags) else 0
