"""The evaluation suite end to end: run_suite, reports (1-decimal JSON), cards, CLI, compare."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.evaluation import KeywordEncoder

from xlsearch.cli import main
from xlsearch.engine.errors import CancelledError, ConfigError
from xlsearch.engine.evaluation import compare, run_suite, save_results, stored_metrics
from xlsearch.engine.evaluation.report import Report, Table
from xlsearch.engine.models.cards import bundled_teacher_path, read_card
from xlsearch.engine.progress import CancelToken
from xlsearch.engine.runtime import locations


@pytest.fixture()
def tatoeba_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "tatoeba"
    folder.mkdir()
    (folder / "tatoeba.deu-eng.deu").write_text("katze\nhund\nhund baum\n", encoding="utf-8")
    (folder / "tatoeba.deu-eng.eng").write_text("cat\ndog\ntree\n", encoding="utf-8")
    (folder / "tatoeba.fra-eng.fra").write_text("chat\nchien\n", encoding="utf-8")
    (folder / "tatoeba.fra-eng.eng").write_text("the cat\nthe dog\n", encoding="utf-8")
    return folder


def test_run_suite_report_rounding_and_progress(tatoeba_dir: Path, tmp_path: Path) -> None:
    sts = tmp_path / "sts.tsv"
    sts.write_text("cat\tkatze\t1\ncat dog\tdog\t0.5\ncat\tdog\t0\n", encoding="utf-8")
    events = []
    report = run_suite(
        KeywordEncoder(), tatoeba_dir=tatoeba_dir, langs=["de"], sts_files=[sts],
        on_progress=events.append,
    )  # fmt: skip
    tat = report.table("tatoeba")
    # deu: xx→en: katze✓ hund✓ "hund baum"→dog/tree tie→dog ✗ = 66.7; en→xx: all ✓ = 100
    assert tat.value("deu", "xx→en") == pytest.approx(200 / 3)
    assert tat.value("deu", "en→xx") == pytest.approx(100.0)
    m = report.metrics()
    assert m["tatoeba/deu/xx→en"] == 66.7 and m["tatoeba/deu/mean"] == 83.3
    assert m["sts/sts/spearman"] == 100.0
    data = json.loads(report.to_json())
    assert data["tables"][0]["rows"][0]["values"] == {"xx→en": 66.7, "en→xx": 100.0, "mean": 83.3}
    assert "66.7" in report.to_text() and "| deu | 66.7 | 100.0 | 83.3 |" in report.to_markdown()
    assert report.row_dicts()["tatoeba"][0] == {
        "label": "deu",
        **data["tables"][0]["rows"][0]["values"],
    }
    assert report.summary() == {"tatoeba": 83.3, "sts": 100.0}
    again = Report.from_dict(json.loads(report.to_json()))
    assert again.metrics() == report.metrics() and again.model == report.model
    done = [e for e in events if e.stage == "evaluate"]
    assert [(e.done, e.total) for e in done] == [(1, 2), (2, 2)]


def test_run_suite_cancel_and_nothing_to_do(tatoeba_dir: Path) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        run_suite(KeywordEncoder(), tatoeba_dir=tatoeba_dir, cancel=token)
    with pytest.raises(ConfigError):
        run_suite(KeywordEncoder())


def test_margin_and_bucc_style_from_tatoeba(tatoeba_dir: Path) -> None:
    report = run_suite(KeywordEncoder(), tatoeba_dir=tatoeba_dir, margin=True, bucc_synthetic=True)
    assert [lab for lab, _ in report.table("tatoeba-margin").rows] == ["deu", "fra", "mean"]
    assert report.table("bucc").note == "BUCC-style, synthetic"


def test_teacher_results_stored_outside_the_package() -> None:
    card_file = bundled_teacher_path() / "xlsearch.json"
    existed = card_file.exists()
    table = Table("tatoeba", "t", ["mean"])
    table.add("deu", [12.64])
    save_results(Report("bundled:teacher", [table]), "bundled:teacher")
    assert (locations.data_dir() / "eval" / "teacher.json").is_file()
    assert stored_metrics("bundled:teacher") == {"tatoeba/deu/mean": 12.6}
    assert card_file.exists() == existed


def test_cli_eval_tiny_model_json_card_and_compare(
    tiny_static_model: Path, tatoeba_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    rc = main(["eval", str(tiny_static_model), "--tatoeba", str(tatoeba_dir), "--langs", "deu",
               "--json", str(out)])  # fmt: skip
    assert rc == 0
    printed = capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    values = data["tables"][0]["rows"][0]["values"]
    assert f"{values['mean']:.1f}" in printed
    assert all(round(v, 1) == v for v in data["metrics"].values())
    card = read_card(tiny_static_model)
    assert card["metrics"]["tatoeba/deu/mean"] == values["mean"]
    assert card["teacher"] == "test"  # the rest of the card is kept

    other = Path(shutil.copytree(tiny_static_model, tmp_path / "other"))
    (other / "xlsearch.json").unlink()
    assert main(["eval", "--compare", str(tiny_static_model), str(other)]) == 0
    shown = capsys.readouterr().out
    assert "tiny-static" in shown and "other" in shown and "tatoeba/deu/mean" in shown
    table = compare([str(tiny_static_model), str(other)])
    assert table.value("tatoeba/deu/mean", "other") is None


def test_cli_errors_are_reported(
    tiny_static_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\t1\nc\td\tmany\n", encoding="utf-8")
    assert main(["eval", str(tiny_static_model), "--sts", str(bad), "--no-save"]) == 2
    assert "bad.tsv, line 2" in capsys.readouterr().err
    assert main(["eval", str(tiny_static_model)]) == 2
    assert "nothing to evaluate" in capsys.readouterr().err


def test_mse_cross_lingual_sts_and_bias(tmp_path: Path) -> None:
    tsv = tmp_path / "par.tsv"
    tsv.write_text("cat\tkatze\ndog\thund\n", encoding="utf-8")
    en = tmp_path / "stsb-en-test.csv"
    en.write_text("cat,cat,5\ncat dog,dog,3\ncat,dog,0\n", encoding="utf-8")
    de = tmp_path / "stsb-de-test.csv"
    de.write_text("katze,katze,5\nkatze hund,hund,3\nkatze,hund,0\n", encoding="utf-8")
    report = run_suite(
        KeywordEncoder(), mse_file=tsv, teacher=KeywordEncoder(remap={"cat": "dog"}),
        sts_files=[en, de], sts_cross=True, bias=True,
    )  # fmt: skip
    # the teacher embeds "cat" as dog: that row differs in 2 of 16 entries by 1
    assert report.table("mse").value("par.tsv:1", "mse") == pytest.approx(100 * 2 / 16)
    assert [lab for lab, _ in report.table("sts").rows] == ["stsb-en-test", "stsb-de-test", "en-de"]
    assert report.table("sts").value("en-de", "spearman") == pytest.approx(100.0)
    assert report.table("bias").value("all sets", "bias") == pytest.approx(0.0)
    pca = report.details["bias"]["all sets"]["pca"]
    assert pca["lang"] == ["en"] * 3 + ["de"] * 3
    points = report.bias_points()
    assert [p[2] for p in points] == pca["lang"] and points[0][:2] == (pca["x"][0], pca["y"][0])
    assert report.summary()["bias"] == 0.0 and report.summary()["mse"] == 12.5


def test_evaluation_on_held_out_translations_gives_the_bias_plot_its_points(
    tiny_static_model: Path,
) -> None:
    from xlsearch.engine.evaluation.suite import PCA_ROWS, run_suite
    from xlsearch.service import builtin_eval as builtin

    sets = builtin.demo_heldout_sets()
    report = run_suite(str(tiny_static_model), parallel_sets=sets, parallel_key="demo-heldout")
    points = report.bias_points()
    langs = {lang for _x, _y, lang in points}
    assert langs == {"en", *(s.src_lang for s in sets)}
    assert len(points) == sum(min(len(s.src), PCA_ROWS) for s in sets) + min(
        len(sets[0].tgt), PCA_ROWS
    )
    assert "bias" not in {t.key for t in report.tables}  # a plot, not a bias figure
