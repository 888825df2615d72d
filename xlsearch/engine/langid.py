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

_LOCK = threading.Lock()
_IDENTIFIER: Any = None


def _identifier() -> Any:
    global _IDENTIFIER
    with _LOCK:
        if _IDENTIFIER is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            _IDENTIFIER = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return _IDENTIFIER


def classify(text: str) -> tuple[str, float]:
    """(ISO 639-1 code, probability) for one text; ``("und", 0.0)`` when it has no letters."""
    if not any(ch.isalpha() for ch in text):
        return UNDETERMINED, 0.0
    lang, prob = _identifier().classify(text)
    return str(lang), float(prob)


def identify(
    texts: Sequence[str], short: int = 24, min_prob: float = 0.5, same_language: bool = False
) -> list[str]:
    """Language codes for a batch of texts.

    A short text (< ``short`` characters) classified with probability below ``min_prob``
    takes the batch's majority language instead: a one-word line in a German file is far
    more likely German than whatever its few characters suggest. With ``same_language``
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
        out.append(lang)
    return out
