"""A small en–de memory as TMX and a job as XLIFF 1.2, written for the tests."""

from __future__ import annotations

from pathlib import Path

UNITS = [
    ("the dog sleeps", "der hund schläft"),
    ("the big dog sleeps", "der große hund schläft"),
    ("the cat runs", "die katze läuft"),
    ("a red house", "das rote haus"),
    ("good morning world", "guten morgen welt"),
    ("the small green tree", "der kleine grüne baum"),
]


def write_tmx(path: Path, units: list[tuple[str, str]], extra: str = "") -> Path:
    tus = "".join(
        f'<tu><tuv xml:lang="en"><seg>{en}</seg></tuv><tuv xml:lang="de"><seg>{de}</seg></tuv></tu>'
        for en, de in units
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en" '
        'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="t" '
        f'creationtoolversion="1" o-tmf="t"/><body>{tus}{extra}</body></tmx>',
        encoding="utf-8",
    )
    return path


def write_xliff(path: Path, segments: list[str]) -> Path:
    units = "".join(
        f'<trans-unit id="{i + 1}"><source>{s}</source></trans-unit>'
        for i, s in enumerate(segments)
    )
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><xliff version="1.2" '
        'xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="d" source-language="en" '
        f'target-language="de" datatype="plaintext"><body>{units}</body></file></xliff>',
        encoding="utf-8",
    )
    return path
