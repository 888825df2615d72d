"""The command line labels results in a language outside the model's card (search, mine,
sts, lookup) and names the fix: an installed model that covers it, or how to make one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from xlsearch.cli import main
from xlsearch.engine.models.cards import update_card
from xlsearch.engine.models.catalog import set_active_model


@pytest.fixture()
def store_fr_de(tmp_path: Path, tiny_static_model: Path) -> Path:
    """The tiny static model (card: en, de) active; German and French text imported."""
    set_active_model(str(tiny_static_model))
    (tmp_path / "a.de.txt").write_text("Der Zug fährt um neun.\nGuten Morgen.\n", "utf-8")
    (tmp_path / "b.fr.txt").write_text("Le train part à neuf heures.\nBonjour.\n", "utf-8")
    assert main(["import", str(tmp_path / "a.de.txt"), "-c", "c", "--lang", "de"]) == 0
    assert main(["import", str(tmp_path / "b.fr.txt"), "-c", "c", "--lang", "fr"]) == 0
    return tiny_static_model


def _notices(err: str) -> list[str]:
    return [line for line in err.splitlines() if "was not trained on" in line]


def test_search_labels_hits_in_an_untrained_language(
    store_fr_de: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["search", "train", "--lang", "fr"]) == 0
    out = capsys.readouterr()
    [notice] = _notices(out.err)
    assert "not trained on fr (it knows en, de)" in notice
    assert "no installed model covers fr" in notice and "xlsearch distill --train" in notice
    assert "[fr?]" in out.out
    assert main(["search", "Zug", "--lang", "de"]) == 0
    out = capsys.readouterr()
    assert not _notices(out.err) and "[de]" in out.out


def test_the_fix_names_an_installed_model_whose_card_covers_the_language(
    store_fr_de: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xlsearch.engine.runtime import locations

    other = locations.models_dir() / "fr-student"
    shutil.copytree(store_fr_de, other)
    update_card(other, languages=["en", "fr"])
    capsys.readouterr()
    assert main(["mine", "--src", "fr", "--tgt", "de"]) == 0
    [notice] = _notices(capsys.readouterr().err)
    assert "not trained on fr" in notice
    assert "a model that covers fr: fr-student (xlsearch models --use fr-student)" in notice


def test_sts_and_lookup_label_untrained_languages(
    store_fr_de: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert (
        main(
            ["sts", "Le train part à neuf heures du matin.", "The train leaves at nine.", "--json"]
        )
        == 0
    )
    out = capsys.readouterr()
    assert _notices(out.err) and json.loads(out.out)["untrained_languages"] == ["fr"]
    assert main(["sts", "The train leaves at nine in the morning.", "Der Zug fährt um neun."]) == 0
    assert not _notices(capsys.readouterr().err)
    assert main(["lookup", "Le train part", "--src", "fr", "--tgt", "de"]) == 0
    assert _notices(capsys.readouterr().err)
