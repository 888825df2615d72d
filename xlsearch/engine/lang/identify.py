"""Offline language identification for segments without a language (py3langid).

Why py3langid: a maintained, numpy-only port of langid.py (Lui & Baldwin 2012) with its
97-language naive-Bayes model bundled in the wheel (~3 MB): no download, no native build,
deterministic, and fast enough to label every unlabelled segment at import time. fastText's
lid.176 needs a separate model download and a C++ extension; CLD3 needs protobuf builds;
lingua's models are far larger and slower.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

UNDETERMINED = "und"
"""BCP-47 code for text without letters (numbers, punctuation, symbols)."""

COMMON_LANGUAGES = (
    "en", "de", "fr", "es", "it", "pt", "nl", "ru", "pl", "cs", "sk", "sl", "hr", "sr", "bg",
    "ro", "hu", "el", "tr", "sv", "da", "no", "nb", "fi", "et", "lv", "lt", "uk", "ca", "ga",
    "mt", "ar", "he", "fa", "hi", "bn", "ur", "id", "ms", "vi", "th", "zh", "ja", "ko", "sw",
)  # fmt: skip
"""The prior for a guess the identifier is unsure of (a short line, "Hello world." → Fula
at 13 %): the EU's languages and the most written others. Used only after the languages
of the user's own store, and only for short texts the identifier gives under 50 %."""

SHORT = 24
"""Texts shorter than this (characters) that the identifier is unsure of follow their batch,
the store or the prior (``identify``)."""

_LOCK = threading.Lock()
_IDENTIFIER: Any = None


CACHE_ENV = "XLSEARCH_LANGID_CACHE"
"""Folder for the identifier's unpacked model (default: ``<cache>/langid``)."""
_ARRAYS = ("ptc", "pc", "classes", "nextmove", "nextmove_row", "out_feat")


def identifier() -> Any:
    """The language identifier (py3langid, loaded once per process)."""
    global _IDENTIFIER
    with _LOCK:
        if _IDENTIFIER is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            _IDENTIFIER = _from_unpacked() or LanguageIdentifier.from_model_file(
                MODEL_FILE, norm_probs=True
            )
    return _IDENTIFIER


def _from_unpacked() -> Any:
    """The identifier from its model unpacked once into the cache folder: memory-mapped
    arrays load in a few milliseconds, where the wheel's LZMA file takes half a second of
    CPU in every process (next to the app's first search, or each CLI import). None when
    the folder cannot be used: the caller loads the packed model."""
    import logging

    try:
        return _load_unpacked(_unpacked_folder())
    except Exception:  # noqa: BLE001 - a cache: any problem means the packed model
        logging.getLogger("xlsearch").debug("unpacked language model unusable", exc_info=True)
        return None


def _unpacked_folder() -> Any:
    """The unpacked model's folder, made on first use (named after the packed file's size
    and time, so a new py3langid unpacks again)."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from py3langid.langid import MODEL_DIR, MODEL_FILE

    packed = Path(MODEL_FILE) if Path(MODEL_FILE).is_absolute() else MODEL_DIR / MODEL_FILE
    st = packed.stat()
    env = os.environ.get(CACHE_ENV)
    if env:
        root = Path(env)
    else:
        from xlsearch.engine.runtime.locations import cache_dir

        root = cache_dir() / "langid"
    folder = root / f"model-{st.st_size}-{st.st_mtime_ns}"
    if (folder / "ok").is_file():
        return folder
    import lzma

    import numpy as np

    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".unpack-", dir=root))
    try:
        with lzma.open(packed) as src, tempfile.TemporaryFile(dir=work) as npz:
            shutil.copyfileobj(src, npz, length=1 << 20)
            npz.seek(0)
            with np.load(npz, allow_pickle=False) as data:
                for name in _ARRAYS:
                    np.save(work / f"{name}.npy", data[name], allow_pickle=False)
        (work / "ok").write_text("1", encoding="utf-8")
        try:
            work.rename(folder)  # atomic; another process may have won the race
        except OSError:
            if not (folder / "ok").is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def _load_unpacked(folder: Any) -> Any:
    import numpy as np
    from py3langid.langid import LanguageIdentifier
    from py3langid.modelio import _to_array

    arr = {
        name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in _ARRAYS
    }
    return LanguageIdentifier(
        arr["ptc"],
        np.asarray(arr["pc"]),
        arr["classes"].tolist(),
        _to_array(arr["nextmove"]),
        arr["out_feat"].tolist(),
        norm_probs=True,
        tk_row=_to_array(arr["nextmove_row"]),
    )


def classify(text: str) -> tuple[str, float]:
    """(ISO 639-1 code, probability) for one text; ``("und", 0.0)`` when it has no letters."""
    if not any(ch.isalpha() for ch in text):
        return UNDETERMINED, 0.0
    lang, prob = identifier().classify(text)
    return str(lang), float(prob)


PRIOR_WEIGHTS = {"store": 1.0, "en": 0.5, "common": 0.2, "other": 0.01}
"""Prior weights of ``settle``: the store's own languages, English (the teacher's language,
the most common source), ``COMMON_LANGUAGES``, every other language."""


def settle(text: str, lang: str, prob: float, prior: Sequence[str] = (), short: int = SHORT) -> str:
    """``lang`` (identified with ``prob``) unless ``text`` is short (< ``short``) and the
    guess unsure (< 0.5): then the language that maximises the identifier's probability
    times a prior (``PRIOR_WEIGHTS``: ``prior`` — the store's languages — first, then
    English, then ``COMMON_LANGUAGES``). "Para two." is Kikuyu at 5.7 % and English at 2.7 %;
    in a translator's file it is English. A clear script still wins ("Привет." stays
    Cyrillic: English scores 0 there)."""
    if lang == UNDETERMINED or prob >= 0.5 or len(text) >= short:
        return lang
    weights = dict.fromkeys(COMMON_LANGUAGES, PRIOR_WEIGHTS["common"])
    weights["en"] = PRIOR_WEIGHTS["en"]
    weights.update((tag.split("-", 1)[0].lower(), PRIOR_WEIGHTS["store"]) for tag in prior)
    other = PRIOR_WEIGHTS["other"]
    best, _ = max(identifier().rank(text), key=lambda lp: lp[1] * weights.get(lp[0], other))
    return str(best)


def identify(
    texts: Sequence[str],
    short: int = SHORT,
    min_prob: float = 0.5,
    same_language: bool = False,
    prior: Sequence[str] = (),
) -> list[str]:
    """Language codes for a batch of texts.

    A short text (< ``short`` characters) classified with probability below ``min_prob``
    takes the batch's majority language instead: a one-word line in a German file is far
    more likely German than whatever its few characters suggest; without a majority (a
    batch of short lines only) it is ``settle``d on ``prior`` (the store's languages) or
    the common languages. With ``same_language``
    (the texts share a source, e.g. one TSV column) and a clear majority (≥ 80 % of the
    confident labels), any minority label below 0.9 probability takes the majority too —
    names, numbers and titles otherwise come out as Pidgin, Latin or Breton.
    """
    results = [classify(t) for t in texts]
    confident = Counter(lang for lang, prob in results if prob >= min_prob and lang != UNDETERMINED)
    majority, share = None, 0.0
    if confident:
        majority, count = confident.most_common(1)[0]
        share = count / sum(confident.values())
    strong = same_language and share >= 0.8
    out = []
    for text, (lang, prob) in zip(texts, results, strict=True):
        if majority and lang != UNDETERMINED and lang != majority:
            if (prob < min_prob and len(text) < short) or (strong and prob < 0.9):
                lang = majority
        elif not majority:
            lang = settle(text, lang, prob, prior, short)
        out.append(lang)
    return out


def classify_among(text: str, allowed: Sequence[str], plausible: float = 0.05) -> str:
    """The language of ``text`` given the tags the user named (``--lang``): the identified
    language as the allowed tag with that primary subtag (``fr`` → ``fr-CA``); else the
    allowed language the identifier ranks highest, when the identifier is unsure (a short
    text mistaken for a look-alike language is set right) or that language is plausible
    (probability ≥ ``plausible``); else the identified code itself (which the import's
    ``--lang`` then leaves out)."""
    if not allowed:
        return classify(text)[0]
    by_primary: dict[str, str] = {}
    for tag in allowed:
        by_primary.setdefault(tag.split("-", 1)[0].lower(), tag)
    if not any(ch.isalpha() for ch in text):
        return UNDETERMINED
    ranked = identifier().rank(text)
    best = str(ranked[0][0])
    if best in by_primary:
        return by_primary[best]
    unsure = ranked[0][1] < 0.5
    for lang, prob in ranked:
        if lang in by_primary and (unsure or prob >= plausible):
            return by_primary[lang]
    return best
