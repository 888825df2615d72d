"""Options that take one value refuse a repeat instead of keeping only the last one."""

from __future__ import annotations

import pytest

from xlsearch.cli import build_parser


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (
            ["mine", "--src", "en", "--tgt", "de", "--collection", "a", "--collection", "b"],
            "--tgt-collection",
        ),
        (["search", "tea", "--collection", "a", "--collection", "b"], "all collections"),
        (["lookup", "tea", "--src", "en", "--collection", "a", "--collection", "b"], ""),
        (["export", "x.tsv", "-c", "a", "--collection", "b"], ""),
        (["import", "f.txt", "-c", "a", "-c", "b"], ""),
    ],
)
def test_repeated_single_collection_is_an_error(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "given twice (a, b)" in err and hint in err


def test_one_collection_still_parses() -> None:
    args = build_parser().parse_args(
        ["mine", "--src", "en", "--tgt", "de", "--collection", "a", "--tgt-collection", "b"]
    )
    assert (args.collection, args.tgt_collection) == ("a", "b")
    assert build_parser().parse_args(["import", "f.txt"]).collection == "default"


def test_short_collection_option_everywhere() -> None:
    """'-c' (learnt from import/export/delete) works for every command taking --collection."""
    parse = build_parser().parse_args
    assert parse(["index", "-c", "a", "-c", "b"]).collection == ["a", "b"]
    assert parse(["search", "x", "-c", "a"]).collection == "a"
    assert parse(["mine", "--src", "en", "--tgt", "de", "-c", "a"]).collection == "a"
    assert parse(["lookup", "x", "--src", "en", "-c", "a"]).collection == "a"
    assert parse(["analyze", "f.xlf", "-c", "a"]).collection == "a"


def test_no_help_text_shows_a_doubled_percent_sign() -> None:
    """argparse formats ``help=`` strings (``%%`` → ``%``) but not ``description=``:
    ``xlsearch lookup --help`` said "ranked by fuzzy %%"."""
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        assert "%%" not in command.format_help(), name
