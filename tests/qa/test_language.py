"""Wrong language of a target on short UI strings: the file's declared language as the prior,
the file's own scripts and words as evidence."""

from __future__ import annotations

from xlsearch.engine.qa import QaUnit
from xlsearch.engine.qa.language import language_flags

# A German GTK catalogue: menu items, labels and tooltips as Xfce writes them.
GERMAN = [
    ("_File", "_Datei"), ("_Edit", "_Bearbeiten"), ("_View", "_Ansicht"),
    ("_Help", "_Hilfe"), ("_Open", "Ö_ffnen"), ("_Save", "_Speichern"),
    ("Save _As...", "Speichern _unter …"), ("_Close", "_Schließen"), ("_Quit", "_Beenden"),
    ("_Copy", "_Kopieren"), ("_Paste", "_Einfügen"), ("Cu_t", "_Ausschneiden"),
    ("_Delete", "_Löschen"), ("Select _All", "_Alles auswählen"), ("_Undo", "_Rückgängig"),
    ("_Redo", "_Wiederholen"), ("_Find", "_Suchen"), ("Find and Rep_lace", "Suchen und _ersetzen"),
    ("_Preferences", "_Einstellungen"), ("_About", "_Info"), ("New _Window", "Neues _Fenster"),
    ("New _Tab", "Neuer _Reiter"), ("Close the current tab", "Den aktuellen Reiter schließen"),
    ("Open a new window", "Ein neues Fenster öffnen"),
    ("Show hidden files", "Verborgene Dateien anzeigen"),
    ("Create a new folder", "Einen neuen Ordner anlegen"),
    ("Empty the trash", "Den Papierkorb leeren"),
    ("Rename the selected file", "Die ausgewählte Datei umbenennen"), ("File name:", "Dateiname:"),
    ("Folder name:", "Ordnername:"), ("Size:", "Größe:"), ("Modified:", "Geändert:"),
    ("Permissions", "Berechtigungen"), ("Owner:", "Besitzer:"), ("Group:", "Gruppe:"),
    ("Open the file with another application", "Die Datei mit einer anderen Anwendung öffnen"),
    ("The file could not be saved", "Die Datei konnte nicht gespeichert werden"),
    ("Are you sure you want to delete this file?", "Möchten Sie diese Datei wirklich löschen?"),
    ("Search in the current folder", "Im aktuellen Ordner suchen"),
    ("Show the toolbar", "Die Werkzeugleiste anzeigen"),
]  # fmt: skip


def _units(pairs: list[tuple[str, str]]) -> list[QaUnit]:
    return [QaUnit("de.po", s, s, t, line=n) for n, (s, t) in enumerate(pairs)]


def test_short_targets_in_another_language_are_flagged_and_the_file_is_not() -> None:
    bad = [
        ("Enter the name:", "Inserire il nome:"),  # Italian, 17 characters
        ("_Network", "네트워크(_N)"),  # Korean, four syllables and a mnemonic
        ("Computer", "컴퓨터"),  # Korean, three syllables
    ]
    flags = language_flags(_units(GERMAN + bad), "en", "de")
    assert {f.source for f in flags} == {s for s, _ in bad}
    assert {f.kind for f in flags} == {"wrong-language"}


def test_a_japanese_target_in_a_chinese_file_is_flagged_by_its_kana() -> None:
    chinese = [
        ("_Open", "打开(_O)"), ("_Save", "保存(_S)"), ("_Close", "关闭(_C)"), ("_Copy", "复制(_C)"),
        ("_Paste", "粘贴(_P)"), ("_Delete", "删除(_D)"), ("Rename", "重命名"), ("Size:", "大小:"),
        ("Show hidden files", "显示隐藏文件"), ("Create a new folder", "创建新文件夹"),
        ("Empty the trash", "清空回收站"), ("File name:", "文件名:"), ("Owner:", "所有者:"),
        ("Open a new window", "打开新窗口"), ("Search in the current folder", "在当前文件夹中搜索"),
        ("Permissions", "权限"), ("Modified:", "修改时间:"), ("Group:", "组:"),
        ("Close the current tab", "关闭当前标签页"), ("Show the toolbar", "显示工具栏"),
    ]  # fmt: skip
    bad = [("C_ase sensitive", "大文字小文字を区別(_A)")]  # Japanese: one kana among kanji
    flags = language_flags(_units(chinese * 3 + bad), "en", "zh_CN")
    assert [f.source for f in flags] == ["C_ase sensitive"]


def test_names_kept_from_the_source_are_not_another_language() -> None:
    pairs = GERMAN + [
        ("Konqueror Web Browser", "Konqueror"),
        ("Galeon Web Browser", "Galeon Web Browser Galeon"),
        ("SOCKET ID", "ID SOCKET"),
    ]
    assert language_flags(_units(pairs), "en", "de") == []


def test_a_latin_target_in_a_russian_file_is_flagged_though_it_shares_words_with_the_source() -> (
    None
):
    russian = [
        ("_File", "_Файл"), ("_Edit", "_Правка"), ("_View", "_Вид"), ("_Help", "_Справка"),
        ("Show hidden files", "Показывать скрытые файлы"), ("Xfce Panel", "Панель Xfce"),
        ("Show size in bytes", "Größe in Bytes anzeigen"),  # German, two words kept
        ("GTK+ theme", "Тема GTK+"), ("Control", "Ctrl"),  # a key name: kept short
    ]  # fmt: skip
    flags = language_flags(_units(russian), "en", "ru")
    assert [f.source for f in flags] == ["Show size in bytes"]


def test_words_no_other_target_uses_count_against_the_files_language() -> None:
    """'Stampante' (Italian) and 'Salvar Como' (Portuguese) in a German file: the identifier
    is unsure on one or two words; that the pair's many other targets never use them tips
    it."""
    bad = [("Printer", "Stampante"), ("Save As", "Salvar Como")]
    flags = language_flags(_units(GERMAN * 8 + bad), "en", "de")  # 320 targets
    assert {f.source for f in flags} == {"Printer", "Save As"}


def test_a_latin_word_of_another_language_is_no_abbreviation_of_the_sources() -> None:
    """ "Ctrl" shortens "Control"; "Doble" (Spanish) in a Chinese file does not shorten
    "Double"."""
    chinese = [
        ("_Open", "打开(_O)"), ("_Save", "保存(_S)"), ("_Close", "关闭(_C)"), ("Rename", "重命名"),
        ("Show hidden files", "显示隐藏文件"), ("Create a new folder", "创建新文件夹"),
    ]  # fmt: skip
    bad = [("Double", "Doble")]
    kept = [("Control+Shift", "Ctrl+Shift")]
    flags = language_flags(_units(chinese * 3 + bad + kept), "en", "zh_CN")
    assert [f.source for f in flags] == ["Double"]


def test_the_identifier_run_for_many_texts_at_once_gives_its_scores_one_by_one() -> None:
    import numpy as np

    from xlsearch.engine.lang.identify import identifier
    from xlsearch.engine.qa.language import _decide_many

    ident = identifier()
    texts = ["Die Datei wurde gespeichert.", "FICHIER INTROUVABLE", "", "ファイルを開く", "é"]
    texts.append("x" * 300)
    got = _decide_many(ident, texts)
    want = np.stack([ident._decide(t) for t in texts])
    assert np.abs(got - want).max() < 1e-4


def test_a_one_word_label_the_identifier_doubts_is_a_warning_a_sentence_an_error() -> None:
    bad = [
        ("Keyboard _model", "Tastatur_modell"),  # German, read as Estonian
        ("Settings", "Paramètres"),  # French, but one word
        ("Enter the name:", "Inserire il nome:"),
    ]
    flags = {f.source: f.severity for f in language_flags(_units(GERMAN + bad), "en", "de")}
    want = {"Keyboard _model": "warning", "Settings": "warning", "Enter the name:": "error"}
    assert flags == want


PORTUGUESE = [
    ("Select all files", "Selecionar todos os arquivos"), ("Open the file", "Abrir o arquivo"),
    ("Save the document", "Salvar o documento"), ("Close this window", "Fechar esta janela"),
    ("Show the files of this folder", "Mostrar os arquivos desta pasta"),
    ("Keep items sorted by name", "Manter os itens ordenados por nome"),
    ("Time to wait", "Tempo de espera"), ("Rename the file", "Renomear o arquivo"),
    ("A list of the files to delete", "Uma lista de arquivos para excluir"),
    ("Settings for this program", "Configurações para este programa"),
    ("All the windows", "Todas as janelas"), ("Name of the folder", "Nome da pasta"),
    ("Do you want to continue?", "Você quer continuar?"),
    ("Size of the file", "Tamanho do arquivo"),
    ("Move to the trash", "Mover para a lixeira"), ("Print the document", "Imprimir o documento"),
    ("Search for files", "Pesquisar por arquivos"), ("Empty the trash", "Esvaziar a lixeira"),
    ("Copy the selected files", "Copiar os arquivos selecionados"),
    ("Show hidden files", "Mostrar arquivos ocultos"),
]  # fmt: skip


def test_a_sentence_of_a_related_language_sharing_short_words_with_the_file_is_flagged() -> None:
    """A Spanish sentence in a Portuguese file: 'de', 'esta', 'todos' are the file's words
    too, and say little against the identifier's verdict on the whole sentence."""
    bad = [
        ("Select all the files of this window", "Seleccionar todos los archivos de esta ventana")
    ]
    flags = language_flags(_units(PORTUGUESE * 16 + bad), "en", "pt_BR")  # 320 targets
    assert [f.source for f in flags] == [bad[0][0]]


def test_a_few_kanji_alone_in_a_fresh_japanese_file_are_not_read_as_chinese() -> None:
    """A freshly pre-translated Japanese catalogue (few targets to learn from): a short
    all-kanji label is written alike in Japanese and Chinese, so no language warning; a
    Chinese sentence and a Korean label still are."""
    japanese = [
        ("_Open", "開く(_O)"), ("_Save", "保存(_S)"), ("Close the window", "ウィンドウを閉じる"),
        ("Regular expression", "正規表現(_X)"), ("Settings...", "設定..."),
        ("Search and replace", "検索と置換"), ("Font", "フォント"),
    ]  # fmt: skip
    bad = [
        ("The file could not be saved", "无法保存该文件，请检查您的磁盘空间"),  # Chinese
        ("Computer", "컴퓨터"),  # Korean
    ]
    flags = language_flags(_units(japanese + bad), "en", "ja")
    assert {f.source for f in flags} == {s for s, _ in bad}
