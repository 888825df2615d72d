"""Small generated data for the README journey (tests/readme/test_readme_journey.py).

``make_journey_data(folder)`` writes what the README's own-data walk-through names:
``my-memory.tmx`` (a translation memory written the way CAT tools write TMX 1.4: en–de and
en–fr units, a few en–ru), ``more-pairs.tsv.gz`` (English<TAB>German<TAB>French<TAB>Russian)
and a Tatoeba folder ``path/to/tatoeba`` (deu, fra) for ``xlsearch eval``.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from xml.sax.saxutils import escape

SUBJECTS = [
    ("the train", "der Zug", "le train", "поезд"),
    ("the bus", "der Bus", "le bus", "автобус"),
    ("the ship", "das Schiff", "le bateau", "корабль"),
    ("the plane", "das Flugzeug", "l'avion", "самолёт"),
    ("the tram", "die Straßenbahn", "le tramway", "трамвай"),
    ("the night train", "der Nachtzug", "le train de nuit", "ночной поезд"),
]
PREDICATES = [
    ("leaves at eight", "fährt um acht ab", "part à huit heures", "отправляется в восемь"),
    ("is late today", "hat heute Verspätung", "est en retard aujourd'hui", "сегодня опаздывает"),
    ("arrives in Vienna", "kommt in Wien an", "arrive à Vienne", "прибывает в Вену"),
    ("is full", "ist voll", "est plein", "переполнен"),
    ("stops in Munich", "hält in München", "s'arrête à Munich", "останавливается в Мюнхене"),
    ("was cancelled", "wurde gestrichen", "a été annulé", "был отменён"),
]
QUESTIONS = [
    ("When does the train leave?", "Wann fährt der Zug?", "Quand part le train ?",
     "Когда отходит поезд?"),
    ("Where is the station?", "Wo ist der Bahnhof?", "Où est la gare ?", "Где вокзал?"),
    ("How much is a ticket?", "Was kostet eine Fahrkarte?", "Combien coûte un billet ?",
     "Сколько стоит билет?"),
    ("Is this seat free?", "Ist dieser Platz frei?", "Cette place est-elle libre ?",
     "Это место свободно?"),
]  # fmt: skip


def units() -> list[tuple[str, str, str, str]]:
    """(en, de, fr, ru) units: every subject × predicate, then the questions."""
    out = []
    for en_s, de_s, fr_s, ru_s in SUBJECTS:
        for en_p, de_p, fr_p, ru_p in PREDICATES:
            out.append(
                (
                    f"{en_s.capitalize()} {en_p}.",
                    f"{de_s[0].upper()}{de_s[1:]} {de_p}.",
                    f"{fr_s[0].upper()}{fr_s[1:]} {fr_p}.",
                    f"{ru_s.capitalize()} {ru_p}.",
                )
            )
    return out + QUESTIONS


def write_tmx(path: Path) -> dict[str, int]:
    """The memory: unit i has de (even i) or fr (odd i); every fifth unit also has ru."""
    counts = {"de": 0, "fr": 0, "ru": 0, "units": 0}
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE tmx SYSTEM "tmx14.dtd">',
        '<tmx version="1.4">',
        '  <header creationtool="SDL Language Platform" creationtoolversion="8.1" '
        'o-tmf="SDL TM8 Format" datatype="xml" segtype="sentence" adminlang="en-US" '
        'srclang="en-US"/>',
        "  <body>",
    ]
    for i, (en, de, fr, ru) in enumerate(units()):
        tuvs = [("en-US", en), ("de-DE", de) if i % 2 == 0 else ("fr-FR", fr)]
        counts["de" if i % 2 == 0 else "fr"] += 1
        if i % 5 == 0:
            tuvs.append(("ru-RU", ru))
            counts["ru"] += 1
        parts.append(f'    <tu tuid="{i + 1}" creationdate="20240101T120000Z">')
        for lang, text in tuvs:
            parts.append(f'      <tuv xml:lang="{lang}"><seg>{escape(text)}</seg></tuv>')
        parts.append("    </tu>")
        counts["units"] += 1
    parts += ["  </body>", "</tmx>"]
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return counts


def write_pairs(path: Path) -> int:
    """English<TAB>German<TAB>French<TAB>Russian, gzip-compressed."""
    rows = ["\t".join(u) for u in units()]
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(rows) + "\n")
    return len(rows)


def write_tatoeba(folder: Path) -> int:
    """``tatoeba.{deu,fra}-eng.{xxx,eng}``: the first 12 units."""
    folder.mkdir(parents=True, exist_ok=True)
    picked = units()[:12]
    for code, col in (("deu", 1), ("fra", 2)):
        (folder / f"tatoeba.{code}-eng.{code}").write_text(
            "\n".join(u[col] for u in picked) + "\n", encoding="utf-8"
        )
        (folder / f"tatoeba.{code}-eng.eng").write_text(
            "\n".join(u[0] for u in picked) + "\n", encoding="utf-8"
        )
    return len(picked)


def make_journey_data(folder: Path) -> dict[str, int]:
    """Write every input file the README's walk-through names into ``folder``."""
    counts = write_tmx(folder / "my-memory.tmx")
    counts["pairs"] = write_pairs(folder / "more-pairs.tsv.gz")
    counts["tatoeba"] = write_tatoeba(folder / "path" / "to" / "tatoeba")
    return counts
