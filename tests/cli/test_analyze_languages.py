"""``analyze`` on a job whose language the memory lacks names where that language came
from: the file, not a ``--tgt`` the user never typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlsearch.cli import main

HEAD = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'


def test_a_job_language_the_memory_lacks_is_named_as_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = tmp_path / "viewer.de.po"
    memory.write_text(HEAD + '"Language: de\\n"\n\nmsgid "Close"\nmsgstr "Schließen"\n', "utf-8")
    assert main(["import", str(memory), "-c", "mem", "-q"]) == 0
    job = tmp_path / "pt_BR.po"  # no Language line: the name says pt-BR
    job.write_text(HEAD + '\nmsgid "Close"\nmsgstr ""\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["analyze", str(job), "-c", "mem", "--fuzzy-only"]) == 2
    err = capsys.readouterr().err
    assert "has no segment in language 'pt-BR' (pt_BR.po's target language)" in err
    assert "--tgt" not in err.splitlines()[0]
