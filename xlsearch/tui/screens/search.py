"""The home screen: search as you type, results with aligned translations, hit in context."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import PurePath
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Header, Input, Label, Select, Static

from xlsearch.engine.progress import CancelToken
from xlsearch.service.api import SEARCH_MODES, ContextView, Hit
from xlsearch.service.coverage import mark_unseen
from xlsearch.service.hits import unit_lines
from xlsearch.service.shared import why_no_hits
from xlsearch.tui.messages import JobDone, JobFailed
from xlsearch.tui.screens.base import EngineCall, EngineScreen, execute

DEBOUNCE_S = 0.25
ALL = "*"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def query_terms(query: str) -> list[str]:
    """The query's words (CJK split into characters), lower-cased, for highlighting."""
    terms: list[str] = []
    for token in re.findall(r"\w+", query.lower()):
        if _CJK.search(token):
            terms.extend(ch for ch in token if _CJK.match(ch))
        elif len(token) > 1 or token.isdigit():
            terms.append(token)
    return list(dict.fromkeys(terms))


def highlight(text: str, terms: list[str], style: str = "bold reverse") -> Text:
    """``text`` with every whole-word (or CJK character) occurrence of ``terms`` styled."""
    out = Text(text)
    for term in terms:
        pattern = re.escape(term) if _CJK.match(term) else rf"\b{re.escape(term)}\b"
        out.highlight_regex(re.compile(pattern, re.IGNORECASE), style)
    return out


def pick_translation(hit: Hit, target: str, query_lang: str = "") -> tuple[str, str]:
    """The translation to show next to ``hit``: ``target`` if present, else the query's
    language, else English, else any."""
    if target != ALL and target in hit.translations:
        return target, hit.translations[target]
    for lang in (query_lang, "en", *sorted(hit.translations)):
        if lang in hit.translations and lang != hit.lang:
            return lang, hit.translations[lang]
    return "", ""


def clipped(text: Text) -> Text:
    """One line that ends in "…" when the column is too narrow (the preview shows it all)."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def document_labels(hits: list[Hit]) -> dict[str, str]:
    """Each hit's document named by as few trailing parts of its path as tell it from the
    other hits' documents ("thunar/fr.po" where ten modules each have a fr.po)."""
    paths = {h.path or h.document for h in hits}
    tails = {p: PurePath(p).parts for p in paths}
    labels = {}
    for p, parts in tails.items():
        n = 1
        while n < len(parts) and any(q != p and t[-n:] == parts[-n:] for q, t in tails.items()):
            n += 1
        labels[p] = "/".join(parts[-n:])
    return labels


def document_width(columns: int) -> int:
    """The document column's width: 12 on a narrow terminal, a sixth of a wide one (up to
    30), so that ``xfce4-terminal/fr.po ×2`` shows whole where the text columns have room."""
    return 12 if columns < 130 else min(30, columns // 6)


def left_clipped(text: str, width: int) -> str:
    """``text`` in ``width`` columns, cut at its start (a path's end tells files apart)."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


def shown_hits(hits: list[Hit], target: str, query_lang: str) -> list[Hit]:
    """``hits`` with only the translation the screen shows (what an export writes)."""
    out = []
    for hit in hits:
        lang, text = pick_translation(hit, target, query_lang)
        out.append(replace(hit, translations={lang: text} if lang else {}))
    return out


class SearchScreen(EngineScreen):
    """Query box, filters, results table and a context preview of the highlighted hit."""

    AUTO_FOCUS = "#query"
    BINDINGS = [
        Binding("ctrl+f", "focus_query", "Query", show=False),
        Binding("c", "copy_hit", "Copy hit"),
        Binding("t", "copy_translation", "Copy transl."),
        Binding("space", "toggle_mark", "Mark", show=False),
        Binding("e", "export", "Export"),
        Binding("escape", "focus_query", "Query", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.hits: list[Hit] = []
        self.marked: set[int] = set()
        self.context_view: ContextView | None = None
        self.last_query = ""
        self.query_lang = ""
        self.searches = 0
        self._debounce: Timer | None = None
        self._pending_letter: tuple[str, Timer] | None = None
        """A shortcut letter typed in the table, held briefly: the start of a word?"""
        self._explicit = False
        self._started = 0.0
        self._ready = False
        self.stored: tuple[list[str], list[str]] | None = None  # (collections, languages)
        self.unseen: list[str] = []
        """Languages of the hits the model was not trained on (marked ``?``)."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="search-bar", classes="bar"):
            yield Input(
                value=getattr(self.app, "initial_query", ""),
                placeholder="Search in any language… (enter = now, ↓ = results)",
                id="query",
                compact=True,
                select_on_focus=False,
            )
            yield Select(
                [(m, m) for m in SEARCH_MODES],
                value="semantic",
                allow_blank=False,
                id="mode",
                compact=True,
            )
        with Horizontal(id="filters", classes="bar"):
            yield Input(
                placeholder="all languages",
                id="langs",
                compact=True,
                tooltip="language prefixes, comma-separated: en = en, en-GB, en-US",
            )
            yield Input(
                placeholder="any metadata",
                id="where",
                compact=True,
                tooltip="metadata filters, space-separated: KEY=VALUE (a prop such as "
                "client, project, domain; tuid, note, created-by, changed-by; * wildcard), "
                "changed>=DATE, changed<DATE, created>=DATE, created<DATE",
            )
            yield Select(
                [("all collections", ALL)],
                value=ALL,
                allow_blank=False,
                id="collection",
                compact=True,
            )
            yield Select(
                [("transl: auto", ALL)], value=ALL, allow_blank=False, id="target", compact=True
            )
            yield Label("", id="search-status")
        yield Static("", id="lang-notice", classes="lang-notice")
        table: DataTable[Any] = DataTable(id="results", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="preview")
        yield Footer()

    def on_mount(self) -> None:
        self.show_model()
        self._setup_columns()
        self.query_one("#query", Input).focus()
        self.call_after_refresh(self._first_paint_done)

    def _first_paint_done(self) -> None:
        """Interactive: now load the filters and run the initial query (off the start-up path)."""
        self.app.screen_ready()  # type: ignore[attr-defined]
        self._ready = True
        self._load_filters()
        if self.query_one("#query", Input).value.strip():
            self.start_search(explicit=True)

    def _load_filters(self) -> None:
        engine = self.engine
        self.run_query("filters", lambda: (engine.collection_names(), engine.languages()))

    def on_screen_resume(self) -> None:
        self.show_model()
        if self._ready:
            self._load_filters()

    def _setup_columns(self) -> None:
        table = self.query_one("#results", DataTable)
        table.clear(columns=True)
        doc = document_width(self.size.width)
        free = max(30, self.size.width - 5 - 6 - 6 - 14 - doc)
        table.add_column("", width=1, key="mark")
        table.add_column("score", width=5, key="score")
        table.add_column("lang", width=4, key="lang")
        table.add_column("text", width=free // 2, key="text")
        table.add_column("translation", width=free - free // 2, key="translation")
        table.add_column("document", width=doc, key="document")

    def on_resize(self) -> None:
        # a short terminal (50x16) keeps rows for the results: the preview shrinks first
        height = self.size.height
        self.query_one("#preview", Static).styles.height = (
            8 if height >= 24 else max(3, height // 4)
        )
        self._setup_columns()
        self._fill_table()

    # -- searching -----------------------------------------------------------------
    @on(Input.Changed, "#query")
    def _query_changed(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_S, self.start_search)

    @on(Input.Submitted, "#query")
    def _query_submitted(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self.start_search(explicit=True)

    @on(Input.Changed, "#langs")
    @on(Input.Changed, "#where")
    @on(Select.Changed, "#mode")
    @on(Select.Changed, "#collection")
    def _filters_changed(self) -> None:
        if self.is_mounted and self.query_one("#query", Input).value.strip():
            self._query_changed()

    @on(Select.Changed, "#target")
    def _target_changed(self) -> None:
        self._fill_table()

    def search_args(self) -> dict[str, Any]:
        """The current query and filters as ``EngineAPI.search`` keyword arguments."""
        langs = re.split(r"[\s,;]+", self.query_one("#langs", Input).value.strip().lower())
        collection = self.query_one("#collection", Select).value
        return {
            "query": self.query_one("#query", Input).value.strip(),
            "mode": self.query_one("#mode", Select).value,
            "langs": tuple(lang for lang in langs if lang),
            "collection": None if collection in (ALL, Select.BLANK) else collection,
            "where": self.query_one("#where", Input).value.strip(),
        }

    def start_search(self, explicit: bool = False) -> None:
        """Run the current query in the exclusive search worker (a newer one replaces it)."""
        args = self.search_args()
        if not args["query"]:
            self.hits = []
            self._fill_table()
            self.query_one("#search-status", Label).update("")
            return
        self._explicit = explicit
        self._started = time.perf_counter()
        self.query_one("#search-status", Label).update("searching…")
        engine = self.engine

        stored = list(self.stored[0]) if self.stored else None

        def call(_p: Any, _c: Any) -> tuple[dict[str, Any], list[Hit], str | None, Any]:
            hits = engine.search(**args)
            return args, hits, _toy_notice(engine, args, stored), _lang_notice(engine, args, hits)

        self._search_worker("search", call)

    def _detect_query_language(self, query: str) -> None:
        """The query's language, after its hits show (the identifier's first load takes a
        fresh process a second or more); the translation column follows it when it differs
        from the previous query's."""
        engine = self.engine
        args, hits = self.search_args(), list(self.hits)

        def call(_p: Any, _c: Any) -> tuple[str, str, Any]:
            said = _lang_notice(engine, args, hits, query)
            return query, engine.detect_language(query), said

        self._language_worker("query-language", call)

    @work(thread=True, exclusive=True, exit_on_error=False, group="query-language")
    def _language_worker(self, job: str, call: EngineCall) -> None:
        execute(self, job, call, CancelToken())

    @work(thread=True, exclusive=True, exit_on_error=False, group="search")
    def _search_worker(self, job: str, call: EngineCall) -> None:
        execute(self, job, call, CancelToken())

    @work(thread=True, exclusive=True, exit_on_error=False, group="preview")
    def _preview_worker(self, job: str, call: EngineCall) -> None:
        execute(self, job, call, CancelToken())

    def on_job_done(self, message: JobDone) -> None:
        if message.job == "search":
            args, hits, notice, said = message.result
            if notice and notice != getattr(self, "_toy_said", None):
                self._toy_said = notice  # once per model and collection, not per keystroke
                self.notify(notice, title="Demo model", severity="warning", timeout=12)
            self.searches += 1
            self.last_query = args["query"]
            self.hits = hits
            self.marked.clear()
            self._show_lang_notice(said)
            self._fill_table()
            ms = (time.perf_counter() - self._started) * 1000
            self.query_one("#search-status", Label).update(
                f"{len(hits)} hits" + ("" if self.app.is_headless else f" · {ms:.0f} ms")
            )
            if not hits:
                self.query_one("#preview", Static).update("No matches." + self._why_none(args))
            else:  # after the hits are on screen: its first load is CPU-heavy
                self.call_after_refresh(self._detect_query_language, args["query"])
        elif message.job == "query-language":
            query, lang, said = message.result
            if query == self.last_query and said is not None and not self.unseen:
                self._show_lang_notice(said)
                self._fill_table()
            if query == self.last_query and lang != self.query_lang:
                self.query_lang = lang
                table = self.query_one("#results", DataTable)
                row = table.cursor_row
                self._fill_table()
                if 0 <= row < len(self.hits):
                    table.move_cursor(row=row)
        elif message.job == "preview":
            self.context_view = message.result
            self._show_preview()
        elif message.job == "filters":
            collections, languages = message.result
            self.stored = (list(collections), list(languages))
            self._set_options(
                "#collection", [("all collections", ALL)] + [(c, c) for c in collections]
            )
            self._set_options(
                "#target", [("transl: auto", ALL)] + [(f"→ {lang}", lang) for lang in languages]
            )
        elif message.job == "export":
            self.notify(f"{message.result} units written", title="Exported")

    def _show_lang_notice(self, said: Any) -> None:
        """The line above the results: what the model was not trained on, and the fix (its
        languages are marked ``?`` in the table)."""
        self.unseen = list(said.unseen) if said is not None else []
        line = self.query_one("#lang-notice", Static)
        line.update(Text(f"⚠ {said.text('app')}", style="yellow") if said is not None else "")
        line.display = said is not None

    def _why_none(self, args: dict[str, Any]) -> str:
        """The plain reason for no hits, when there is one (the CLI says the same)."""
        if self.stored is None:
            return ""
        collections, languages = self.stored
        why = why_no_hits(collections, languages, args["langs"], how="Corpus (f4), Import (i)")
        return f" {why}" if why else ""

    def _set_options(self, selector: str, options: list[tuple[str, str]]) -> None:
        select = self.query_one(selector, Select)
        current = select.value
        with self.prevent(Select.Changed):
            select.set_options(options)
            if current in {value for _label, value in options}:
                select.value = current

    def on_job_failed(self, message: JobFailed) -> None:
        if message.job == "query-language":  # the translation column keeps its language
            message.prevent_default()
            message.stop()
        elif message.job == "search":
            self.query_one("#search-status", Label).update(f"⚠ {message.title}")
            text = f"{message.title}: {message.message}"
            if message.title == "Index mismatch":
                text += "\n  in the app: Corpus (f4), select the collection, press x"
            self.query_one("#preview", Static).update(Text(text, style="bold red"))
            if not self._explicit:
                self.message_log.append(repr(message))
                message.prevent_default()
                message.stop()

    # -- results -------------------------------------------------------------------
    def _fill_table(self) -> None:
        table = self.query_one("#results", DataTable)
        table.clear()
        target = self.query_one("#target", Select).value
        terms = query_terms(self.last_query)
        labels = document_labels(self.hits)
        width = table.columns["document"].width  # type: ignore[index]
        for i, hit in enumerate(self.hits):
            copies = f" ×{hit.copies}" if hit.copies > 1 else ""
            doc = labels[hit.path or hit.document]
            doc = left_clipped(doc, width - len(copies)) if "/" in doc else doc
            lang, translation = pick_translation(hit, str(target), self.query_lang)
            table.add_row(
                "●" if i in self.marked else "",
                f"{hit.score:.3f}"[:5],
                mark_unseen(hit.lang, self.unseen),
                clipped(highlight(hit.text, terms, "bold")),
                clipped(Text(f"{lang}: {translation}" if lang else "", style="italic")),
                clipped(Text(doc + copies)),
                key=str(i),
            )
        if not self.hits:
            self.context_view = None

    def current_hit(self) -> Hit | None:
        """The hit under the table cursor."""
        table = self.query_one("#results", DataTable)
        if not self.hits or table.cursor_row < 0 or table.cursor_row >= len(self.hits):
            return None
        return self.hits[table.cursor_row]

    @on(DataTable.RowHighlighted, "#results")
    def _row_highlighted(self) -> None:
        hit = self.current_hit()
        if hit is not None:
            seg = hit.segment_id
            self._preview_worker("preview", lambda _p, _c: self.engine.context(seg))

    def _show_preview(self) -> None:
        view = self.context_view
        if view is None:
            return
        terms = query_terms(self.last_query)
        out = Text()
        hit = next((h for h in self.hits if h.segment_id == view.segment_id), None)
        # the document as the table names it: enough of its path to tell same-named files apart
        name = document_labels(self.hits)[hit.path or hit.document] if hit else view.document
        out.append(f"{name} · {view.lang}\n", style="bold")
        for line in view.before:
            out.append(f"  {line}\n", style="dim")
        out.append("▶ ")
        out.append_text(highlight(view.text, terms))
        out.append("\n")
        for line in view.after:
            out.append(f"  {line}\n", style="dim")
        for lang, text in sorted(view.translations.items()):
            out.append(f"  {lang}: ", style="bold")
            out.append_text(highlight(text, terms))
            out.append("\n")
        for line in unit_lines(view.unit):
            out.append(f"  {line}\n", style="italic dim")
        self.query_one("#preview", Static).update(out)

    TABLE_KEYS = frozenset({"c", "t", "e", "space"})
    """The results table's one-key shortcuts; any other letter typed there goes to the query."""
    LETTER_KEYS = {"c": "copy_hit", "t": "copy_translation", "e": "export"}
    """Shortcut letters that also start words: they act after ``TYPING_S`` unless more
    letters follow (then they were the start of a word typed into the table: ``copy``)."""
    TYPING_S = 0.3

    def on_key(self, event: Any) -> None:
        query = self.query_one("#query", Input)
        if event.key == "down" and self.focused is query and self.hits:
            self.query_one("#results", DataTable).focus()
            event.stop()
            return
        if not (isinstance(self.focused, DataTable) and event.is_printable and event.character):
            return
        pending = self._pending_letter
        if pending is None and event.key in self.LETTER_KEYS:
            action = self.LETTER_KEYS[event.key]
            timer = self.set_timer(self.TYPING_S, lambda: self._letter_shortcut(action))
            self._pending_letter = (event.character, timer)
        elif pending is not None or event.key not in self.TABLE_KEYS:
            # typing: the words go to the query, not to the table's shortcuts
            typed = event.character
            if pending is not None:
                pending[1].stop()
                self._pending_letter = None
                typed = pending[0] + typed
            query.focus()  # appended to the query (it does not select itself on focus)
            query.cursor_position = len(query.value)
            query.insert_text_at_cursor(typed)
        else:
            return  # space: the table's own shortcut
        event.prevent_default()
        event.stop()

    def _letter_shortcut(self, action: str) -> None:
        """A shortcut letter no other letter followed: its action, as the footer says."""
        self._pending_letter = None
        if isinstance(self.focused, DataTable):
            getattr(self, f"action_{action}")()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("copy_hit", "copy_translation", "toggle_mark", "export"):
            return isinstance(self.focused, DataTable)
        return super().check_action(action, parameters)

    def action_focus_query(self) -> None:
        """Back to the query (escape, ctrl+f), all of it selected: typing replaces it."""
        query = self.query_one("#query", Input)
        query.focus()
        query.action_select_all()

    def action_copy_hit(self) -> None:
        hit = self.current_hit()
        if hit is not None:
            self.app.copy_to_clipboard(hit.text)
            self.notify(hit.text[:60], title="Copied hit", timeout=2)

    def action_copy_translation(self) -> None:
        hit = self.current_hit()
        if hit is None:
            return
        target = str(self.query_one("#target", Select).value)
        lang, text = pick_translation(hit, target, self.query_lang)
        if not text:
            self.notify("This hit has no aligned translation", title="Nothing to copy")
            return
        self.app.copy_to_clipboard(text)
        self.notify(text[:60], title=f"Copied {lang} translation", timeout=2)

    def action_toggle_mark(self) -> None:
        table = self.query_one("#results", DataTable)
        row = table.cursor_row
        if not self.hits or row < 0:
            return
        self.marked.symmetric_difference_update({row})
        table.update_cell(str(row), "mark", "●" if row in self.marked else "")

    def action_export(self) -> None:
        if not self.hits:
            self.notify("Search first, then export the hits", title="Nothing to export")
            return
        target = str(self.query_one("#target", Select).value)
        chosen = [self.hits[i] for i in sorted(self.marked)] or list(self.hits)
        items = shown_hits(chosen, target, self.query_lang)
        what = f"{len(items)} {'marked' if self.marked else ''} hits".replace("  ", " ")
        if target != ALL:
            what += f" with their {target} translation"
        from xlsearch.tui.widgets.modals import ExportScreen

        def done(result: tuple[str, str] | None) -> None:
            if result:
                path, fmt = result
                self.run_job("export", lambda _p, _c: self.engine.export(items, path, fmt))

        self.app.push_screen(ExportScreen(what), done)

    def commands(self) -> list[tuple[str, str, Any]]:
        """Screen-specific command palette entries."""
        return [
            ("Search: export hits", "TMX or TSV (marked hits, else all)", self.action_export),
            ("Search: copy hit", "copy the highlighted hit", self.action_copy_hit),
            (
                "Search: copy translation",
                "copy its aligned translation",
                self.action_copy_translation,
            ),
        ]


def _toy_notice(engine: Any, args: dict[str, Any], stored: list[str] | None) -> str | None:
    """The toy-model notice for a search with the active model (``fill_policy``); it asks
    the store nothing unless the model is a toy."""
    if args.get("mode") not in ("semantic", "hybrid") or stored == []:
        return None
    try:
        notice: str | None = engine.toy_notice(args.get("collection"))
        return notice
    except Exception:  # noqa: BLE001 - a model that cannot be read says so where it is used
        return None


def _lang_notice(engine: Any, args: dict[str, Any], hits: list[Hit], query: str = "") -> Any:
    """The languages of a semantic search (its language filter, its hits' languages and,
    given ``query``, the query's) the model was not trained on (``LanguageNotice``)."""
    if args.get("mode") not in ("semantic", "hybrid"):
        return None
    try:
        langs = [*args.get("langs", ()), *(h.lang for h in hits)]
        return engine.language_notice(langs, [query] if query else [])
    except Exception:  # noqa: BLE001 - a model that cannot be read says so where it is used
        return None
