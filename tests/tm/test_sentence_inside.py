"""A sentence of the new text inside a paragraph unit of the memory is found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

MEMORY = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4">
  <header creationtool="LF Aligner" creationtoolversion="4.2" datatype="plaintext"
          segtype="paragraph" adminlang="en" srclang="en" o-tmf="aligned"/>
  <body>
    <tu tuid="manual-12">
      <tuv xml:lang="en"><seg>The printer is ready when the light is green. Press the power button for ten seconds to reset the network settings. The printer then restarts on its own.</seg></tuv>
      <tuv xml:lang="fr"><seg>L’imprimante est prête quand le voyant est vert. Appuyez sur le bouton d’alimentation pendant dix secondes pour réinitialiser les paramètres réseau. L’imprimante redémarre ensuite d’elle-même.</seg></tuv>
    </tu>
    <tu tuid="manual-13">
      <tuv xml:lang="en"><seg>Remove the paper tray before you move the printer.</seg></tuv>
      <tuv xml:lang="fr"><seg>Retirez le bac à papier avant de déplacer l’imprimante.</seg></tuv>
    </tu>
  </body>
</tmx>
"""  # noqa: E501


def _lookup(tmp_path: Path, *segments: str) -> list[Any]:
    from xlsearch.engine.store import Store
    from xlsearch.service.local import LocalEngine

    (tmp_path / "manual.tmx").write_text(MEMORY, encoding="utf-8")
    with Store() as store:
        store.import_file(tmp_path / "manual.tmx", "tm")
    engine = LocalEngine()
    return [engine.lookup(s, "en", "fr", "tm", semantic=False).matches for s in segments]


def test_a_sentence_of_a_paragraph_unit_is_a_match_with_its_translation(tmp_path: Path) -> None:
    sentence = "Press the power button for ten seconds to reset the network settings."
    [matches] = _lookup(tmp_path, sentence)
    best = matches[0]
    assert (best.fuzzy, best.source) == (99, sentence)  # paired by order: to check
    assert best.target == (
        "Appuyez sur le bouton d’alimentation pendant dix secondes pour réinitialiser les "
        "paramètres réseau."
    )
    assert best.flags[0] == "from a paragraph unit: sentence 2 of 3 (paired by order)"


def test_a_close_sentence_is_a_fuzzy_match_and_unrelated_text_is_none(tmp_path: Path) -> None:
    close, other = _lookup(
        tmp_path,
        "Press the power button for five seconds to reset the network settings.",
        "The scanner lid is open.",
    )
    assert 75 <= close[0].fuzzy < 99 and close[0].flags[0].startswith("from a paragraph unit:")
    assert "dix secondes" in close[0].target
    assert not any(m.flags and m.flags[0].startswith("from a paragraph") for m in other)
