"""ICU MessageFormat in a catalogue: an argument's name translated is an error; the
sub-messages of a plural or select (``one {# file}``, ``male {He}``) are text to translate,
not placeholders, and a language's own plural categories are no difference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xlsearch.cli import main

HEAD = (
    'msgid ""\nmsgstr ""\n"Language: {lang}\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
)
PAIRS = [
    (
        "{count, plural, one {# file} other {# files}}",
        "{conteggio, plural, one {# file} other {# file}}",
    ),  # noqa: E501
    ("{n, select, male {He} other {They}}", "{n, select, male {Lui} other {Loro}}"),
    ("{count, plural, one {file} other {files}}", "{count, plural, one {file} other {file}}"),
    (
        "{name} sent {count, plural, one {# photo} other {# photos}}",
        "{name} ha inviato {count, plural, one {# foto} other {# foto}}",
    ),  # noqa: E501
    ("{when, date, short} at {when, time}", "{when, date, short} alle {quando, time}"),
]


def test_icu_arguments_are_checked_and_sub_messages_are_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    po = tmp_path / "icu.it.po"
    body = "".join(f'msgid "{s}"\nmsgstr "{t}"\n\n' for s, t in PAIRS)
    po.write_text(HEAD.replace("{lang}", "it") + body, encoding="utf-8")
    code = main(["check", str(po), "--rules-only", "--json"])
    flags = json.loads(capsys.readouterr().out)["flags"]
    placeholders = {f["source"]: f["explanation"] for f in flags if f["kind"] == "placeholders"}
    assert set(placeholders) == {PAIRS[0][0], PAIRS[4][0]}, placeholders
    assert "{count, plural}" in placeholders[PAIRS[0][0]]
    assert "{conteggio, plural} added" in placeholders[PAIRS[0][0]]
    assert "{when, time}" in placeholders[PAIRS[4][0]]
    assert code == 1
    ru = tmp_path / "icu.ru.po"  # Russian's own categories (few, many): no difference
    ru.write_text(
        HEAD.replace("{lang}", "ru")
        + 'msgid "{count, plural, one {# file} other {# files}}"\n'
        + 'msgstr "{count, plural, one {# файл} few {# файла} many {# файлов} other {# файла}}"\n',
        encoding="utf-8",
    )
    assert main(["check", str(ru), "--rules-only", "--json"]) == 0
    assert not [
        f for f in json.loads(capsys.readouterr().out)["flags"] if f["kind"] == "placeholders"
    ]


def test_icu_nested_hundreds_deep_is_checked_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = 1500  # past Python's recursion limit: read without recursion
    src = "{n, plural, one {" * deep + "x" + "}}" * deep
    tgt = "{n, plural, one {" * deep + "x {m}" + "}}" * deep
    po = tmp_path / "deep.de.po"
    po.write_text(
        HEAD.replace("{lang}", "de") + f'msgid "{src}"\nmsgstr "{tgt}"\n', encoding="utf-8"
    )
    assert main(["check", str(po), "--rules-only", "--json"]) == 1
    flags = json.loads(capsys.readouterr().out)["flags"]
    assert [f["explanation"] for f in flags if f["kind"] == "placeholders"] == ["{m} added"]
