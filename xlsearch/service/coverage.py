"""What the model knows: a result in a language outside its card's is labelled, with the fix.

A model's card lists the languages it was trained on (the bundled teacher: English only; a
distilled student: its translations' languages and its teacher's). Scores in any other
language are close to noise, so every search, mining, STS and lookup result in such a
language says so, and names the fix: an installed model whose card covers the language,
or how to make one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from xlsearch.service.types import JSONDict

if TYPE_CHECKING:
    from xlsearch.engine.models.catalog import ModelInfo

Front = Literal["cli", "app"]


@dataclass(frozen=True)
class LanguageNotice:
    """Languages a model was not trained on, among those a result is in."""

    model: str
    """The model's short name (folder name, or ``teacher``)."""
    unseen: list[str]
    """Primary language subtags outside the model's card, in the order met."""
    known: list[str] = field(default_factory=list)
    """The languages the model's card covers (sorted, English first)."""
    covering: list[str] = field(default_factory=list)
    """Installed models whose card covers every unseen language (names to pass to
    ``xlsearch models --use``)."""

    def text(self, front: Front = "cli") -> str:
        """One line: what the model does not know, and the fix (the command line's or the
        app's words)."""
        langs = ", ".join(self.unseen)
        knows = f" (it knows {', '.join(self.known)})" if self.known else ""
        head = (
            f"model {self.model} was not trained on {langs}{knows}: its scores in "
            f"{langs} are close to noise"
        )
        if self.covering:
            names = " or ".join(self.covering[:3])
            how = (
                f"xlsearch models --use {self.covering[0]}"
                if front == "cli"
                else "Models, f8: select it and press a"
            )
            return f"{head}; a model that covers {langs}: {names} ({how})"
        fix = (
            f"xlsearch distill --train en-{self.unseen[0]}.tsv; see docs/distill.md"
            if front == "cli"
            else "Distill, f5"
        )
        return (
            f"{head}; no installed model covers {langs}: distil one from English–"
            f"{self.unseen[0]} sentence pairs ({fix})"
        )


def _primary(tag: str | None) -> str:
    return (tag or "").replace("_", "-").split("-")[0].lower()


def known_languages(spec: str, card: JSONDict) -> set[str] | None:
    """The primary subtags the model was trained on (None: its card does not say)."""
    from xlsearch.engine.models.cards import trained_languages

    return trained_languages(spec, card)


def model_known_languages(spec: str) -> set[str] | None:
    """The languages model ``spec`` (a name, folder or ``bundled:teacher``) was trained on,
    from its card (None: it does not say, or the model is gone)."""
    from xlsearch.engine.errors import XLSearchError
    from xlsearch.engine.models.cards import model_id, read_card, resolve_model_path

    try:
        path = resolve_model_path(spec)
        return known_languages(model_id(path), read_card(path))
    except XLSearchError:
        return None


def display_name(spec: str, path: Path | None = None) -> str:
    """The name the user knows a model by: ``teacher`` or its folder's name."""
    from xlsearch.engine.models.cards import BUNDLED_TEACHER

    if spec == BUNDLED_TEACHER:
        return "teacher"
    return (path or Path(spec)).name


def language_notice(
    spec: str,
    card: JSONDict,
    langs: Iterable[str | None],
    catalog: Sequence[ModelInfo] = (),
) -> LanguageNotice | None:
    """The notice for a result in ``langs`` (BCP 47 tags; None or ``und``: unknown) made
    with model ``spec`` (its ``card``); None when the model knows them all or its card
    does not say. ``catalog``: the installed models (``ModelInfo``) to name a fix from."""
    known = known_languages(spec, card)
    if known is None:
        return None
    unseen: list[str] = []
    for tag in langs:
        lang = _primary(tag)
        if lang and lang not in ("und", "zxx", "mul") and lang not in known:
            if lang not in unseen:
                unseen.append(lang)
    if not unseen:
        return None
    covering = []
    for info in catalog:
        if info.spec == spec or not getattr(info, "finished", True):
            continue
        theirs = known_languages(info.spec, info.card)
        if theirs is not None and set(unseen) <= theirs:
            covering.append(display_name(info.spec, info.path))
    ordered = sorted(known, key=lambda x: (x != "en", x))
    return LanguageNotice(display_name(spec), unseen, ordered, covering)


def mark_unseen(lang: str, unseen: Sequence[str]) -> str:
    """A result's language as a table shows it: ``ja?`` when the model was not trained on
    it (the screen's notice line says what that means)."""
    return f"{lang}?" if _primary(lang) in unseen else lang
