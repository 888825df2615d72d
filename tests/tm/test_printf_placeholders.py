"""printf placeholders as real catalogues write them: one grammar for every check."""

from __future__ import annotations

import pytest

from xlsearch.engine.importers.placeholders import arguments, is_placeholder, placeholders
from xlsearch.engine.tm.matching import fuzzy

CASES = [
    ("Image %2$u of %1$u", {"%2$u": 1, "%1$u": 1}),
    ("Copied %lu of %lu files (%s)", {"%lu": 2, "%s": 1}),
    ("Elapsed time: %ld:%02ld", {"%ld": 1, "%02ld": 1}),
    ("Battery: %0.0f%% (%s remaining)", {"%0.0f": 1, "%s": 1}),
    ("%-12s|%5.1f MiB", {"%-12s": 1, "%5.1f": 1}),
    ("Unable to open “%.*s”%s", {"%.*s": 1, "%s": 1}),
    ("Received %<PRIu64> bytes", {"%<PRIu64>": 1}),
    ("Hello %(user)s, you have %(count)d new messages", {"%(user)s": 1, "%(count)d": 1}),
    ("Use %%d in the file name for the day", {}),
    ("50% of the disk is free", {}),
    ("Page %1 of %2", {"%1": 1, "%2": 1}),
    ("Open {0} in ${EDITOR} for {{user}}", {"{0}": 1, "${EDITOR}": 1, "{{user}}": 1}),
]


@pytest.mark.parametrize(("text", "found"), CASES, ids=[c[0] for c in CASES])
def test_the_printf_grammar_reads_catalogue_strings_whole(text: str, found: dict) -> None:
    assert dict(placeholders(text)) == found
    assert all(is_placeholder(ph) for ph in found)


def test_a_positional_argument_is_one_placeholder_not_a_number_and_a_variable() -> None:
    tokens = [(t.kind, t.text) for t in fuzzy.tokenize("Image %2$u of %1$u")]
    assert tokens == [("word", "Image"), ("ph", "%2$u"), ("word", "of"), ("ph", "%1$u")]
    assert fuzzy.flags("Image %2$u of %1$u", "Image %2$u of %1$u") == []
    assert not any(f.startswith("numbers:") for f in fuzzy.flags("Photo %2$u of %1$u",
                                                                 "Image %2$u of %1$u"))  # fmt: skip


def test_reordered_arguments_are_the_same_placeholders_as_msgfmt_checks_them() -> None:
    assert arguments("Search for %s in %s") == arguments("Rechercher %2$s dans %1$s")
    assert fuzzy.placeholder_problem("Search for %s in %s", "Rechercher %2$s dans %1$s") == ""
    assert fuzzy.placeholder_problem("%5.1f%% done", "%.1f %% effectué") == ""
    problem = fuzzy.placeholder_problem("Copied %lu of %lu files", "Copié %u sur %lu fichiers")
    assert problem == "placeholders in target: missing %lu · extra %u"
    assert fuzzy.placeholder_problem("%2$s: %1$s", "%1$s : %2$s") == ""
    assert fuzzy.placeholder_problem("Move %s to %s", "Déplacer %s") != ""


def test_a_date_format_and_a_variable_before_hangul_are_no_false_alarms() -> None:
    assert fuzzy.placeholder_problem("%A %d %B %Y", "%A, %e. %B %Y") == ""
    assert (
        fuzzy.placeholder_problem(
            "Check that $XDG_CONFIG_DIRS is set.", "$XDG_CONFIG_DIRS를 확인하십시오."
        )
        == ""
    )
