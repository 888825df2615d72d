"""Error hints in the app's words: the engine's hints name command-line options (``pass
--src``, ``--presplit``); a screen shows the control that does the same instead.

Each screen may list its own controls in ``CONTROLS`` (option → what to use on that screen);
the options every screen shares are in ``SHARED``. Options with no control keep their
command-line form, as the full command (``xlsearch import … --encoding cp1252``)."""

from __future__ import annotations

import re

SHARED: dict[str, str] = {
    "--model": "another model (Models screen, f8)",
    "--collection": "the collection field",
}
"""Options with the same control on every screen."""

COMMANDS: dict[str, str] = {
    "--encoding": "xlsearch import",
    "--format": "xlsearch import",
    "--rebuild": "xlsearch index",
    "--lengths": "xlsearch align",
    "--skip-flagged": "xlsearch align",
    "--tatoeba": "xlsearch eval",
}
"""Options the app has no control for: named with their command."""

VALUED = frozenset(
    {"--src", "--tgt", "--lang", "--encoding", "--format", "--model", "--collection", "--src-lang"}
)
"""Options followed by a value (which goes with them)."""

_OPTION = re.compile(
    r"(?<![\w-])(?P<verb>(?:pass|give|with) )?(?P<flag>--[a-z][a-z-]*)"
    r"(?: (?P<value>[A-Za-z0-9_.…]+(?:-[A-Za-z0-9_.…]+)*))?"
)
_COMMAND = re.compile(r"xlsearch [a-z]+ [^;,)]*")


def for_app(text: str, controls: dict[str, str] | None = None) -> str:
    """``text`` (an error message with its hint) with every command-line option replaced by
    the screen's control for it (``controls``, then ``SHARED``; an option's value goes with
    it), or named with its command when the app has no control for it."""
    mapping = {**SHARED, **(controls or {})}
    text = text.replace("--src-lang and --tgt-lang", "--src-lang")
    commands = [(m.start(), m.end()) for m in _COMMAND.finditer(text)]

    def option(m: re.Match[str]) -> str:
        flag, value, verb = m.group("flag"), m.group("value"), m.group("verb")
        if any(a <= m.start("flag") < b for a, b in commands):
            return m.group(0)  # part of a whole command already
        rest = ""
        if value and flag not in VALUED:  # the next word, not the option's value
            rest, value = f" {value}", None
        if flag in mapping:
            if value and verb:  # "pass --encoding utf-8" → "type utf-8 in the encoding field"
                return f"type {value} in {mapping[flag]}{rest}"
            return ("use " if verb else "") + mapping[flag] + rest
        if flag in COMMANDS:
            option_text = flag + (f" {value}" if value else "")
            return f"{verb or ''}`{COMMANDS[flag]} … {option_text}` (command line){rest}"
        return m.group(0)

    return _OPTION.sub(option, text)


__all__ = ["COMMANDS", "SHARED", "for_app"]
