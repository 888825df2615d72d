"""Translate: open a document, walk its segments, see memory matches, insert and edit a
target, analyse, pre-translate and save it back for the CAT tool."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Input, Label, Select, Static, TextArea

from xlsearch.engine.progress import CancelToken, ProgressCallback
from xlsearch.service.qa import CheckReport
from xlsearch.service.shared import target_languages, write_output
from xlsearch.service.types import (
    DocumentAnalysis,
    LookupMatches,
    MatchFragment,
    MemoryMatch,
    TranslationDocument,
    TranslationSegment,
)
from xlsearch.tui.messages import JobDone, JobFailed, JobProgress
from xlsearch.tui.screens.base import EngineCall, EngineScreen, execute

ALL = "*"
LOOKUP_DELAY = 0.05
"""Seconds a lookup waits before it starts: a key held down replaces it first (no engine
work for the segments it passes)."""
MIN_FUZZY_SHOWN = 50
"""Matches below this fuzzy % (and below the semantic threshold) are not listed."""
DOC_SUFFIXES = (
    ".xlf", ".xliff", ".sdlxliff", ".mqxliff", ".po", ".pot", ".txt", ".md", ".docx", ".html",
    ".htm",
)  # fmt: skip


def diff_text(ops: Sequence[tuple[str, str]]) -> Text:
    """A word diff as rich text: deletions struck through in red, insertions green."""
    out = Text()
    for op, text in ops:
        style = {"-": "strike red", "+": "bold green"}.get(op, "")
        out.append(text, style=style)
    return out


def one_line(text: str) -> str:
    """A segment in one table row: its line breaks shown as ↵ (a msgid that starts with
    "\\n\\n" is not a blank row)."""
    return text.replace("\r\n", "\n").replace("\n", "↵")


def memory_language_notice(engine: Any, doc: Any, collection: str | None) -> str | None:
    """One line when the memory (or ``collection``) holds no segment in the job's source or
    target language, as ``xlsearch analyze`` refuses it; None when it does."""
    from xlsearch.engine.errors import ConfigError

    try:
        engine.check_languages(collection, src=doc.src, tgt=doc.tgt or None)
    except ConfigError as e:
        said = e.message.replace("(--src)", "(the job's source language)")
        said = said.replace("(--tgt)", "(the job's target language)")
        return f"{doc.path.name}: {said}; {e.hint}: no segment can match" if e.hint else said
    return None


def target_example(engine: Any, doc: Any, collection: str | None = None) -> str:
    """A target language to suggest for ``doc``: one of the memory's other than the job's
    source language (``fr`` for an English job against an en–fr memory)."""
    others = target_languages(engine, doc.src, collection)
    return others[0] if others else ("fr" if (doc.src or "").split("-")[0] == "en" else "en")


def saved_path(path: Path) -> Path:
    """Where a translated document goes by default: next to it, never over it."""
    return path.with_name(f"{path.stem}.translated{path.suffix}")


class TranslateScreen(EngineScreen):
    """Segments (left), the current segment's matches and its target editor (right)."""

    CONTROLS = {  # what an error's hint names instead of the command-line options
        "--src": "the src field",
        "--tgt": "the tgt field",
        "--format": "rename it to .txt",
        "--collection": "the collections list",
        # no encoding field (importing the job would make it a memory): the file's own
        # declaration is what its CAT tool reads too
        "--encoding": "the file's own declaration (a PO's Content-Type charset, an XML "
        "declaration's encoding), then open it again",
    }
    BINDINGS = [
        # priority: these work while typing in the target editor (TextArea has ctrl+e etc.)
        # footer: the CAT keys; open, walk and next unconfirmed are in Help (f1), so that the
        # footer still fits 80 columns
        Binding("ctrl+o", "open", "Open", show=False, priority=True),
        Binding("ctrl+down", "next_segment", "Next seg.", show=False, priority=True),
        Binding("ctrl+up", "previous_segment", "Prev seg.", show=False, priority=True),
        Binding("ctrl+g", "confirm", "Confirm", priority=True),
        Binding("ctrl+n", "next_unconfirmed", "Next unconf.", show=False, priority=True),
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("ctrl+r", "analyze", "Analyse", priority=True),
        Binding("ctrl+e", "pretranslate", "Pre-translate", priority=True),
        Binding("ctrl+k", "check", "Check", show=False, priority=True),
        *(
            Binding(str(n), f"insert_match({n - 1})", f"Insert {n}", show=False)
            for n in range(1, 6)
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.doc: TranslationDocument | None = None
        self.current = -1
        self._current_seg: TranslationSegment | None = None
        self.result: LookupMatches | None = None
        self.analysis: DocumentAnalysis | None = None
        self._inserted: tuple[int, str, MemoryMatch] | None = None
        self._lookup_token = CancelToken()
        self._noticed: str | None = None
        """The status before a job said it works a while (a notice): put back at its end."""
        self._status_text = ""
        self._edits = 0  # changes made to the open document (targets, confirmations, fills)
        self._saved_edits = 0  # how many of them the last finished save wrote
        self._saving_edits = 0  # how many of them the save in progress writes

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="tr-bar", classes="bar"):
            yield Input(
                placeholder="document to translate (.xlf .po .txt .docx), enter",
                id="doc-path",
                compact=True,
            )
            yield Input(placeholder="src", id="tr-src", compact=True)
            yield Input(placeholder="tgt", id="tr-tgt", compact=True)
            yield Select(
                [("all collections", ALL)],
                value=ALL,
                allow_blank=False,
                id="tr-collection",
                compact=True,
            )
        yield Label(
            "Open a document: type its path above, or ctrl+o to browse (f1: every key).",
            id="tr-status",
        )
        with Horizontal(id="tr-body"):
            segs: DataTable[Any] = DataTable(
                id="tr-segments", cursor_type="row", zebra_stripes=True
            )
            yield segs
            with Vertical(id="tr-side"):
                yield Static("", id="tr-source")
                matches: DataTable[Any] = DataTable(id="tr-matches", cursor_type="row")
                yield matches
                yield Static("", id="tr-detail")
                yield TextArea("", id="tr-target", soft_wrap=True, show_line_numbers=False)
        yield Footer()

    def on_mount(self) -> None:
        self._fit_columns(self.app.size.width)
        m = self.query_one("#tr-matches", DataTable)
        m.add_column("n", width=1, key="n")
        m.add_column("fuzzy", width=5, key="fuzzy")
        m.add_column("sem", width=4, key="sem")
        m.add_column("target", key="target")
        self.query_one("#doc-path", Input).focus()
        checks = getattr(self.app, "unsaved_checks", None)
        if checks is not None:  # the app asks before ctrl+q drops unsaved translations
            checks.append(self.unsaved_document)
        engine = self.engine
        self.run_query("collections", lambda: engine.collections())

    # -- opening -----------------------------------------------------------------------------
    @on(Input.Submitted, "#doc-path")
    def _path_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.open_document(event.value.strip())

    def action_open(self) -> None:
        from xlsearch.tui.widgets.modals import FilePickerScreen

        def done(paths: list[str] | None) -> None:
            if paths:
                self.query_one("#doc-path", Input).value = paths[0]
                self.open_document(paths[0])

        self.app.push_screen(
            FilePickerScreen("Open a document to translate", ".", DOC_SUFFIXES), done
        )

    def open_document(self, path: str) -> None:
        """Read ``path`` (in a worker) and show its segments."""
        src = self.query_one("#tr-src", Input).value.strip()
        tgt = self.query_one("#tr-tgt", Input).value.strip()
        if self.doc is not None:  # the fields show the open document's languages: not a choice
            src = "" if src == self.doc.src else src
            tgt = "" if tgt == self.doc.tgt else tgt
        engine, collection = self.engine, self._collection()

        def open_job(
            progress: ProgressCallback, cancel: CancelToken
        ) -> tuple[Any, str | None, str]:
            doc = engine.open_document(path, src, tgt)
            notice = memory_language_notice(engine, doc, collection)
            if notice is None:  # the segments the analysis will report, from the start
                from xlsearch.engine.errors import CancelledError, XLSearchError

                try:
                    engine.segment_document(doc, collection, progress, cancel)
                except CancelledError:
                    raise
                except XLSearchError:  # no memory to decide with: the units as the file has
                    pass  # them (the analysis says why)
            return doc, notice, target_example(engine, doc, collection)

        self._status(f"opening {path}…")
        self.run_job("open", open_job)

    def _collection(self) -> str | None:
        value = self.query_one("#tr-collection", Select).value
        return None if value in (ALL, Select.BLANK) else str(value)

    # -- results -------------------------------------------------------------------------------
    # Textual also calls BaseScreen's handlers (log, notify) for these messages: no super().
    def on_job_done(self, message: JobDone) -> None:
        if message.job == "collections":
            sel = self.query_one("#tr-collection", Select)
            with self.prevent(Select.Changed):
                sel.set_options(
                    [("all collections", ALL)] + [(c.name, c.name) for c in message.result]
                )
        elif message.job == "open":
            self.doc, memory_notice, example = message.result
            self.analysis = None
            self._edits = self._saved_edits = self._saving_edits = 0
            self.query_one("#tr-src", Input).value = self.doc.src
            self.query_one("#tr-tgt", Input).value = self.doc.tgt
            self._fill_segments()
            self._noticed = None  # a notice of the opening (its segmentation) is over
            self._status(self._summary())
            self.query_one("#tr-segments", DataTable).focus()
            self.goto(0)
            # a job in another language than the memory: every segment would be "no match"
            for notice in (self.doc.language_notice, memory_notice):
                if notice:
                    self.notify(notice, title="Job language", severity="warning", timeout=20)
                    self._status(f"⚠ {notice}")
            langs = [self.doc.src, self.doc.tgt]
            self.run_query("languages", lambda: self.engine.language_notice(langs))
            if not self.doc.tgt:
                self.notify(
                    "The file does not say its target language: type it in the tgt field "
                    f"(e.g. {example}) before analysing",
                    title="No target language",
                    severity="warning",
                )
        elif message.job == "languages" and message.result is not None:
            # lookups in a language the model never saw: its semantic matches are noise
            text = message.result.text("app")
            self.notify(text, title="Model languages", severity="warning", timeout=15)
        elif message.job == "lookup":
            index, result = message.result
            if index == self.current:
                self.result = result
                self._show_matches()
                if getattr(result, "note", ""):
                    self._status(result.note.splitlines()[0])
                elif self._noticed is not None:  # the notice's work is done
                    self._status(self._noticed)
            self._noticed = None
        elif message.job == "analyze":
            self.analysis = message.result
            rows = self.query_one("#tr-segments", DataTable).row_count
            if self.doc is not None and rows != len(self.doc.segments):
                self._resegmented()
            self._show_analysis()
        elif message.job == "pretranslate":
            self._edits += 1
            self._show_pretranslated(*message.result)
        elif message.job == "check":
            self._show_check(message.result)
        elif message.job == "save":
            self._saved_edits = self._saving_edits
            self._status(f"saved → {message.result}")
            self.notify(str(message.result), title="Saved", timeout=4)

    def on_job_progress(self, message: JobProgress) -> None:
        p = message.progress
        if p.stage == "notice":  # seconds of work once (the memory's fragments learnt)
            if self._noticed is None:
                self._noticed = self._status_text
            self._status(f"{message.job}: {p.message}")
        elif p.total:  # what the wait is for (the memory calibration), where the job says
            what = f"{p.message} · " if p.stage == "calibrate" and p.message else ""
            self._status(f"{message.job}: {what}{p.done}/{p.total}")

    def on_job_failed(self, message: JobFailed) -> None:
        self._status(f"⚠ {message.title}: {message.message.splitlines()[0]}")

    def _status(self, text: str) -> None:
        self._status_text = text
        self.query_one("#tr-status", Label).update(text)

    def _summary(self) -> str:
        d = self.doc
        if d is None:
            return "no document open"
        return (
            f"{d.path.name} · {d.fmt} · {d.src} → {d.tgt or '?'} · {len(d.segments)} segments, "
            f"{d.translated} with a target, {d.confirmed} confirmed"
        )

    def _fill_segments(self) -> None:
        table = self.query_one("#tr-segments", DataTable)
        with self.prevent(DataTable.RowHighlighted):  # refilling is not walking
            table.clear()
            self._add_rows(table)

    def _resegmented(self) -> None:
        """The analysis split units into sentences or made paragraphs whole: show the new
        segments, the cursor on the segment it was on (or what it became)."""
        if self.doc is None:
            return
        segs = self.doc.segments
        was = self._current_seg
        at = next((s.index for s in segs if s is was), None)
        if at is None and was is not None:
            key = was.key
            at = next(
                (
                    s.index
                    for s in segs
                    if s.key.startswith(f"{key}/") or key.startswith(f"{s.key}.")
                ),
                0,
            )
        self._fill_segments()
        self.current = -1
        self.goto(at or 0)

    @staticmethod
    def _add_columns(table: DataTable[Any], source: int) -> None:
        """The segment table's columns, the source ``source`` wide, the target 2/3 of that."""
        table.add_column("#", width=4, key="n")
        table.add_column("", width=1, key="st")
        table.add_column("source", width=source, key="source")
        table.add_column("target", width=max(12, source * 2 // 3), key="target")

    def on_resize(self, event: events.Resize) -> None:
        self._fit_columns(event.size.width)

    def _fit_columns(self, width: int) -> None:
        """The source and target columns share the segment table's width, half the screen
        (a 160-column terminal shows twice the source a 100-column one does)."""
        # half the screen less its margin, "#", the mark, each column's padding, a scrollbar
        source = max(20, (width // 2 - 1 - 4 - 1 - 8 - 2) * 3 // 5)
        table = self.query_one("#tr-segments", DataTable)
        if table.columns and table.columns["source"].width == source:  # type: ignore[index]
            return
        with self.prevent(DataTable.RowHighlighted):
            table.clear(columns=True)
            self._add_columns(table, source)
            if self.doc is not None:
                self._add_rows(table)
                if self.current >= 0:
                    table.move_cursor(row=self.current, animate=False)

    def _add_rows(self, table: DataTable[Any]) -> None:
        if self.doc is None:
            return
        for seg in self.doc.segments:
            table.add_row(
                str(seg.index + 1),
                self._mark(seg),
                one_line(seg.source),
                one_line(seg.target),
                key=str(seg.index),
            )

    @staticmethod
    def _mark(seg: TranslationSegment) -> str:
        """✓ confirmed, ✎ set or edited here (for review), ● a target from the file."""
        if seg.confirmed:
            return "✓"
        if seg.changed or seg.origin:
            return "✎"
        return "●" if seg.target.strip() else ""

    # -- walking segments ------------------------------------------------------------------------
    @on(DataTable.RowHighlighted, "#tr-segments")
    def _segment_highlighted(self, event: DataTable.RowHighlighted) -> None:
        # keys come faster than these messages under key repeat: one the cursor has already
        # left is stale (following it would move the cursor back, and so on, for ever)
        if event.cursor_row != event.data_table.cursor_row:
            return
        if self.doc is not None and event.cursor_row != self.current:
            self.goto(event.cursor_row)

    def goto(self, index: int) -> None:
        """Make segment ``index`` current: keep the edited target, look the new one up."""
        if self.doc is None or not 0 <= index < len(self.doc.segments):
            return
        self.commit()
        self.current = index
        seg = self.doc.segments[index]
        table = self.query_one("#tr-segments", DataTable)
        if table.cursor_row != index:
            with self.prevent(DataTable.RowHighlighted):  # this row is already current
                table.move_cursor(row=index)
        self._lookup_token.cancel()  # the previous segment's lookup is stale
        info = f"[{index + 1}/{len(self.doc.segments)}] {seg.key}"
        if seg.tags:
            info += f" · {seg.tags} inline tags (placed from the match where they correspond)"
        if seg.locked:
            info += " · locked in your CAT tool"
        src = Text(info + "\n", style="dim")
        src.append(seg.source, style="bold")
        self.query_one("#tr-source", Static).update(src)
        editor = self.query_one("#tr-target", TextArea)
        editor.text = seg.target
        editor.read_only = seg.locked
        self._inserted = None
        self.result = None
        self.query_one("#tr-matches", DataTable).clear()
        if not seg.source.strip():  # only inline codes: nothing to look up
            self.query_one("#tr-detail", Static).update("only inline codes: nothing to look up")
            return
        self.query_one("#tr-detail", Static).update("looking up…")
        engine = self.engine
        src_lang = self.query_one("#tr-src", Input).value.strip() or self.doc.src
        tgt_lang = self.query_one("#tr-tgt", Input).value.strip() or self.doc.tgt
        collection = self._collection()

        def call(progress: ProgressCallback, cancel: CancelToken) -> tuple[int, LookupMatches]:
            found = engine.lookup(
                seg.source,
                src_lang,
                tgt_lang,
                collection,
                5,
                doc_segment=seg,
                cancel=cancel,
                on_progress=progress,  # the notice before the memory's fragments are learnt
            )
            return index, found

        self._lookup_token = CancelToken()
        self._lookup_worker("lookup", call, self._lookup_token)

    @work(thread=True, exclusive=True, exit_on_error=False, group="lookup")
    def _lookup_worker(self, job: str, call: EngineCall, token: CancelToken) -> None:
        """One lookup at a time: a newer segment cancels this one (``token``) before it
        starts or between its stages, so held-down keys never queue engine work."""
        if token.wait(LOOKUP_DELAY):
            return
        execute(self, job, call, token)

    def action_next_segment(self) -> None:
        self.goto(self.current + 1)

    def action_previous_segment(self) -> None:
        self.goto(self.current - 1)

    def action_confirm(self) -> None:
        """Confirm the current segment's target (saved as translated, never replaced by
        pre-translation), then go to the next unconfirmed segment."""
        if self.doc is None or self.current < 0:
            self.notify("Open a document first", title="Nothing to confirm")
            return
        self.commit()
        seg = self.doc.segments[self.current]
        if seg.locked:
            self.notify("This segment is locked in your CAT tool", title="Locked", timeout=3)
            return
        if not seg.target.strip():
            self.notify("Type a target or insert a match (1–5) first", title="Nothing to confirm")
            return
        from xlsearch.engine.errors import DataError

        try:
            self.doc.confirm(self.current)
        except DataError as exc:
            self.notify(str(exc), title="Not confirmed", severity="warning", timeout=8)
            return
        self._edits += 1
        self.query_one("#tr-segments", DataTable).update_cell(
            str(self.current), "st", self._mark(seg)
        )
        self._status(self._summary())
        self.action_next_unconfirmed()

    def action_next_unconfirmed(self) -> None:
        """Go to the next segment that is neither confirmed nor locked."""
        if self.doc is None:
            return
        index = self.doc.next_unconfirmed(self.current)
        if index is None:
            self.notify("Every segment is confirmed: ctrl+s saves", title="All confirmed")
            return
        self.goto(index)
        self.query_one("#tr-segments", DataTable).focus()  # 1–5 insert a match, as on arrival

    def commit(self) -> None:
        """Write the editor's text into the current segment if the translator changed it."""
        if self.doc is None or self.current < 0:
            return
        seg = self.doc.segments[self.current]
        text = self.query_one("#tr-target", TextArea).text.strip()
        if seg.locked or text == seg.target.strip():
            return
        ins = self._inserted
        if ins is not None and ins[0] == self.current and ins[1] == text:
            m = ins[2]
            quality = m.fuzzy if not m.cross_language and m.fuzzy >= 75 else 100 * (m.semantic or 0)
            origin = "fuzzy" if not m.cross_language and m.fuzzy >= 75 else "semantic"
            self.doc.set_target(
                self.current,
                text,
                quality=round(quality, 1),
                origin=origin,
                match_source=m.source,
                tag_hint=(m.source_tags, m.target_tags) if text == m.target else None,
                line_breaks=m.target_breaks if text == m.target else None,
            )
        elif ins is not None and ins[0] == self.current and ins[1] == ins[2].target.strip():
            m = ins[2]  # an inserted match, edited: its tags follow the words they stood by
            self.doc.set_target(
                self.current,
                text,
                origin="edited",
                tag_hint=(m.source_tags, m.target_tags),
                edited_from=m.target.strip(),
            )
        else:
            self.doc.set_target(self.current, text, origin="edited")
        self._edits += 1
        table = self.query_one("#tr-segments", DataTable)
        table.update_cell(str(self.current), "st", self._mark(seg))
        table.update_cell(str(self.current), "target", one_line(seg.target))

    # -- matches -------------------------------------------------------------------------------
    def all_matches(self) -> list[MemoryMatch]:
        """The matches worth showing: fuzzy ≥ ``MIN_FUZZY_SHOWN`` % (as a CAT tool's minimum
        match), or a semantic match at the lookup's threshold (cross-language ones too)."""
        if self.result is None:
            return []
        from xlsearch.service.shared import matches_worth_showing

        return matches_worth_showing(self.result, MIN_FUZZY_SHOWN)

    def fragments(self) -> list[MatchFragment]:
        """The parts of the segment the memory translates, when it has no match ≥ 75 %:
        listed after the matches, inserted at the cursor (never a whole target)."""
        return list(self.result.fragments) if self.result is not None else []

    def _show_matches(self) -> None:
        table = self.query_one("#tr-matches", DataTable)
        table.clear()
        matches = self.all_matches()
        for i, m in enumerate(matches):
            fuzzy = "xlang" if m.cross_language else f"{m.fuzzy}%"
            sem = "" if m.semantic is None else f"{m.semantic:.2f}"
            target = m.target or Text("(no target)", style="dim")
            table.add_row(str(i + 1), fuzzy, sem, target, key=str(i))
        for j, f in enumerate(self.fragments(), len(matches)):
            table.add_row(str(j + 1), "part", "", f"{f.source} → {f.target}", key=str(j))
        if not matches and self.fragments():
            self._show_detail(0)
        elif not matches:
            self.query_one("#tr-detail", Static).update(
                f"No match of {MIN_FUZZY_SHOWN} % or more in the memory."
            )
        else:
            self._show_detail(0)

    @on(DataTable.RowHighlighted, "#tr-matches")
    def _match_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    @on(DataTable.RowSelected, "#tr-matches")
    def _match_selected(self, event: DataTable.RowSelected) -> None:
        self.action_insert_match(event.cursor_row)

    def _show_detail(self, i: int) -> None:
        matches = self.all_matches()
        frags = self.fragments()
        if len(matches) <= i < len(matches) + len(frags):
            f = frags[i - len(matches)]
            self.query_one("#tr-detail", Static).update(
                Text.assemble(
                    ("fragment ", "bold"),
                    f"{f.source} → {f.target}",
                    (f"\n{f.evidence} · enter or {i + 1} inserts it at the cursor", "dim"),
                )
            )
            return
        if not 0 <= i < len(matches):
            return
        m = matches[i]
        out = Text()
        if m.cross_language:
            out.append(f"cross-language match [{m.source_lang}] ", style="bold magenta")
            out.append(m.source)
        else:
            out.append(f"{m.fuzzy}% ", style="bold")
            out.append_text(diff_text(m.diff))
        out.append(f"\n{m.target_lang or '?'}: ", style="bold")
        out.append(m.target or "(no target)")
        for flag in m.flags:
            out.append(f"\n⚠ {flag}", style="yellow")
        if m.copies > 1:
            out.append(f"\n({m.copies} copies in the memory, listed once)", style="dim")
        if any(m.contexts):
            where = ", ".join(f"{repr(c) if c else '(none)'} ×{n}" for c, n in m.contexts.items())
            out.append(f"\ncontext: {where}", style="dim")
        self.query_one("#tr-detail", Static).update(out)

    def action_insert_match(self, i: int) -> None:
        """Put match ``i``'s target into the editor (edit it, then move on or save)."""
        matches = self.all_matches()
        if self.doc is not None and self.doc.segments[self.current].locked:
            self.notify("This segment is locked in your CAT tool", title="Locked", timeout=3)
            return
        frags = self.fragments()
        if self.doc is not None and len(matches) <= i < len(matches) + len(frags):
            editor = self.query_one("#tr-target", TextArea)
            editor.insert(frags[i - len(matches)].target)  # a part, where the cursor is
            editor.focus()
            return
        if self.doc is None or not 0 <= i < len(matches) or not matches[i].target:
            self.notify("No target to insert for that match", title="Nothing inserted", timeout=3)
            return
        m = matches[i]
        editor = self.query_one("#tr-target", TextArea)
        editor.text = m.target
        self._inserted = (self.current, m.target.strip(), m)
        editor.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "insert_match":  # digits type into the editor and the inputs
            return not isinstance(self.focused, (TextArea, Input))
        return super().check_action(action, parameters)

    # -- analysis, pre-translation, saving ----------------------------------------------------
    def action_analyze(self) -> None:
        if self.doc is None:
            self.notify("Open a document first", title="Nothing to analyse")
            return
        self.commit()
        self._take_languages()
        engine, doc, coll = self.engine, self.doc, self._collection()
        self._current_seg = doc.segments[self.current] if self.current >= 0 else None
        self._status("analysing…")
        self.run_job("analyze", lambda p, c: engine.analyze(doc, coll, on_progress=p, cancel=c))

    def _take_languages(self) -> None:
        """The languages typed in the src/tgt fields become the document's (a file may lack
        its target language)."""
        from xlsearch.service.options import normalize_lang

        for field, attr in (("#tr-src", "src"), ("#tr-tgt", "tgt")):
            value = self.query_one(field, Input).value.strip()
            if value:
                setattr(self.doc, attr, normalize_lang(value) or value)

    def _show_analysis(self) -> None:
        a = self.analysis
        if a is None:
            return
        out = Text("Analysis", style="bold")
        out.append(f" ({a.seconds:.1f} s)\n")
        for row in a.table():
            name = row["band"]
            if name == "semantic":
                name = f"semantic ≥{a.threshold:.2f}"
            seg, words, pct = row["segments"], row["words"], row["percent"]
            out.append(f"{name:>16} {seg:>5} seg {words:>6} words {pct:5.1f}%\n")
        policy = getattr(a, "fill_policy", None)
        if policy is not None and policy.model:
            out.append(policy.describe() + "\n", style="dim")
            if policy.notice:
                out.append(f"notice: {policy.notice}\n", style="yellow")
                self.notify(policy.notice, title="Demo model", severity="warning", timeout=12)
        self.query_one("#tr-detail", Static).update(out)
        self._status(self._summary() + " · analysed (ctrl+e pre-translates)")

    def action_pretranslate(self) -> None:
        if self.doc is None or self.analysis is None:
            self.notify("Analyse first (ctrl+r)", title="No analysis")
            return
        if not self.analysis.tgt:
            self.notify(
                "Type the target language in the tgt field (e.g. en), then analyse again",
                title="No target language",
                severity="warning",
            )
            return
        self.commit()  # the translator's own edit first; pre-translation keeps targets
        before = [(seg.target, self._mark(seg)) for seg in self.doc.segments]
        engine, doc, analysis = self.engine, self.doc, self.analysis
        self.run_job("pretranslate", lambda _p, _c: (before, engine.pretranslate(doc, analysis)))

    def _show_pretranslated(self, before: list[tuple[str, str]], n: int) -> None:
        """Refresh the rows pre-translation filled (only those, not all 5,000)."""
        if self.doc is None:
            return
        table = self.query_one("#tr-segments", DataTable)
        for seg, was in zip(self.doc.segments, before, strict=True):
            if (seg.target, self._mark(seg)) != was:  # only the filled rows, not all 5,000
                table.update_cell(str(seg.index), "st", self._mark(seg))
                table.update_cell(str(seg.index), "target", one_line(seg.target))
        if self.current >= 0:
            self.query_one("#tr-target", TextArea).text = self.doc.segments[self.current].target
            with self.prevent(DataTable.RowHighlighted):
                self.query_one("#tr-segments", DataTable).move_cursor(row=self.current)
        self._status(self._summary() + f" · pre-translated {n}")
        self.notify(f"{n} segments filled (marked for review)", title="Pre-translated")

    def action_check(self) -> None:
        """Check every target of the document (rules, consistency, language, semantics)."""
        if self.doc is None:
            self._status("open a document first")
            return
        self.commit()
        doc, engine = self.doc, self.engine
        self._status("checking the targets…")
        self.run_job("check", lambda p, c: engine.check_document(doc, p, c))

    def _show_check(self, report: CheckReport) -> None:
        from xlsearch.tui.widgets.check import CheckScreen

        counts = report.counts()
        self._status(
            f"check: {report.checked} targets, {counts['error']} errors, "
            f"{counts['warning']} warnings, {counts['info']} notes"
        )
        if not report.flags:
            self.notify("No problems found in the targets", title="Check", timeout=4)
            return

        def done(index: int | None) -> None:
            if index is not None:
                self.goto(index)
                self.query_one("#tr-segments", DataTable).focus()

        self.app.push_screen(CheckScreen(report), done)

    def action_save(self, path: str = "") -> None:
        if self.doc is None:
            return
        self.commit()
        target = path or str(saved_path(self.doc.path))
        engine, doc, analysis = self.engine, self.doc, self.analysis
        self._saving_edits = self._edits

        def call(_p: Any, _c: Any) -> str:
            out = engine.save_document(doc, target)
            if analysis is not None:
                report = Path(out).with_suffix(".analysis.md")
                write_output(report, analysis.to_markdown(examples=None))
            return out

        self.run_job("save", call)

    def unsaved_document(self) -> str | None:
        """The open document's file name when it holds changes no save has written (the
        editor's text included), else None."""
        if self.doc is None:
            return None
        self.commit()
        return Path(self.doc.path).name if self._edits > self._saved_edits else None

    def commands(self) -> list[tuple[str, str, Any]]:
        """Screen-specific command palette entries."""
        out = [
            ("Translate: open a document", "XLIFF, PO, text or DOCX (ctrl+o)", self.action_open),
            (
                "Translate: analyse against the memory",
                "CAT bands + semantic band (ctrl+r)",
                self.action_analyze,
            ),
            (
                "Translate: pre-translate",
                "best match per segment (ctrl+e)",
                self.action_pretranslate,
            ),
            (
                "Translate: confirm the segment",
                "saved as translated, then the next unconfirmed one (ctrl+g)",
                self.action_confirm,
            ),
            (
                "Translate: next unconfirmed segment",
                "skips confirmed and locked ones (ctrl+n)",
                self.action_next_unconfirmed,
            ),
            (
                "Translate: check the targets",
                "placeholders, numbers, mnemonics, consistency, wrong language, "
                "mistranslations; enter jumps to one (ctrl+k)",
                self.action_check,
            ),
            ("Translate: save", "next to the original, *.translated.* (ctrl+s)", self.action_save),
        ]
        if self.doc is not None:
            xlf = str(self.doc.path.with_suffix(".xlf"))
            out.append(("Translate: save as XLIFF 2.0", xlf, lambda: self.action_save(xlf)))
        return out
