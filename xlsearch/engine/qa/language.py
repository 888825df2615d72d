"""Wrong language of a target: its script, then the language identifier (py3langid) with the
file's declared language as the prior and the file's own words as evidence."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from xlsearch.engine.qa.units import Flag, QaUnit

_SCRIPTS = {
    "ar": {"ARABIC"}, "fa": {"ARABIC"}, "ur": {"ARABIC"}, "he": {"HEBREW"},
    "ru": {"CYRILLIC"}, "uk": {"CYRILLIC"}, "bg": {"CYRILLIC"}, "sr": {"CYRILLIC", "LATIN"},
    "be": {"CYRILLIC"}, "mk": {"CYRILLIC"}, "kk": {"CYRILLIC"},
    "el": {"GREEK"}, "ja": {"CJK", "HIRAGANA", "KATAKANA"}, "zh": {"CJK"},
    "ko": {"HANGUL", "CJK"}, "th": {"THAI"}, "hi": {"DEVANAGARI"}, "ka": {"GEORGIAN"},
    "hy": {"ARMENIAN"},
}  # fmt: skip
"""Scripts a language is written in (every other listed-or-not language: Latin)."""
MIN_LETTERS = 4
"""Letters (a CJK, kana or Hangul character counts two) a target needs to be judged by its
script."""
RARE_SCRIPT = 0.02
"""A script that at most this share of the file's targets use is foreign to the file: two
of its letters (one CJK, kana or Hangul character) in a target read as another language."""
_WIDE = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL"})
LANGID_MIN_CHARS = 4
LANGID_LOG_ODDS = 2.0
"""A target is flagged when the identifier's log odds for another language over the file's
declared one (among the languages a file is plausibly written in), less the evidence of the
words the file's other targets use, exceed this."""
SURE_WORDS = 3
"""The identifier's verdict on a target of fewer words than this is a warning at most."""
WORD_WEIGHT = 1.5
"""Log odds for the file's language that each word the file's other targets use adds."""
SHORT_WORD = 3
"""A word of at most this many letters, when the target has a longer word of its own, adds
only ``SHORT_WORD_WEIGHT`` (``de``, ``la``, ``os``: words related languages share say
little)."""
SHORT_WORD_WEIGHT = 0.25
SENTENCE_WORDS = 4
"""A target with at least this many words of its own ...
"""
SENTENCE_SHARE = 0.5
"""... loses at most this share of the identifier's log odds to the file's words (a
Spanish sentence in a Portuguese file shares *de*, *todos*, *esta* with it)."""
UNSEEN_WORD = 0.5
"""Log odds against the file's language for a word no other target of the pair uses ...
"""
UNSEEN_MIN_TARGETS = 300
"""... once the pair has this many translated targets (fewer: most words are new)."""
SHORT_HAN = 8
"""Han characters alone up to this many are not told apart as Japanese or Chinese."""
WIDE_WEIGHT = 0.5
"""The same for a CJK character the file's other targets use."""
UNSEEN_WIDE = 1.0
"""Log odds against the file's language for a CJK character its other targets never use (a
simplified Chinese character in a Japanese file)."""
_MNEMONIC = re.compile(r"\(\s*[_&~][^\W_]\)|[_&~](?=[^\W_])")
_WORD = re.compile(r"[^\W\d_]{2,}")


@functools.lru_cache(maxsize=8192)
def _script(ch: str) -> str:
    if ch.isascii():
        return "LATIN" if ch.isalpha() else ""
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return ""
    word = name.split(" ", 1)[0]
    if word in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL"):
        return word
    if word == "FULLWIDTH" and "LATIN" in name:
        return "LATIN"
    return word


def _script_name(script: str) -> str:
    """A script as a message names it: ``Latin``, ``Hangul``, ``CJK``."""
    return script if script == "CJK" else script.title()


_ASCII_LETTER = re.compile(r"[A-Za-z]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_WIDE_RANGE = re.compile(r"[\u1100-\U0010ffff]")
"""Characters from Hangul Jamo up: where CJK, kana and Hangul letters are (a text without
any is judged without looking at each character)."""


@functools.lru_cache(maxsize=65536)
def letter_scripts(text: str) -> Counter[str]:
    """How many letters of ``text`` each script has (ASCII letters counted at once, the
    others one by one; cached: do not change it)."""
    latin = len(text) - len(_ASCII_LETTER.sub("", text))
    out = Counter({"LATIN": latin}) if latin else Counter()
    if not text.isascii():
        out.update(_script(ch) for ch in _NON_ASCII.findall(text) if ch.isalpha())
    return out


@functools.lru_cache(maxsize=65536)
def _strip(text: str) -> str:
    """The target's words: placeholders, markup and mnemonics (``_O``, CJK ``(_O)``) removed."""
    from xlsearch.engine.qa.rules import strip_codes

    return _MNEMONIC.sub("", strip_codes(text))


def _abbreviates(short: str, word: str) -> bool:
    """``short`` is ``word`` or an abbreviation of it (its first letter, then some of its
    letters in order: ``ctrl``, ``del``)."""
    if short == word:
        return True
    if not short or short[0] != word[:1] or len(short) > max(4, 0.75 * len(word)):
        return False  # "doble" is no abbreviation of "double"
    rest = iter(word)
    return all(ch in rest for ch in short)


@functools.lru_cache(maxsize=65536)
def _words(text: str) -> frozenset[str]:
    """Words of two letters or more; each character of a text written without spaces."""
    out = {w.casefold() for w in _WORD.findall(text)}
    if text.isascii() or not _WIDE_RANGE.search(text):
        return frozenset(out)
    wide = {ch for ch in _WIDE_RANGE.findall(text) if ch.isalpha() and _script(ch) in _WIDE}
    return frozenset((out - {w for w in out if any(ch in wide for ch in w)}) | wide)


def _probabilities(ident: Any, text: str, langs: list[str]) -> list[float]:
    """The identifier's probability of each of ``langs`` for ``text``: its scores read
    directly where the identifier offers them (py3langid's ``_decide``, 4× faster than
    ranking all 97 languages), else from its ranking."""
    decide = getattr(ident, "_decide", None)
    classes = getattr(ident, "nb_classes", None)
    if decide is not None and classes is not None:
        try:
            scores = decide(text)
            column = _columns(tuple(classes))
            cols = np.array([column.get(lang, -1) for lang in langs])
            return np.where(cols >= 0, scores[cols], 0.0).tolist()  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - another py3langid: rank instead
            pass
    ranked = {str(lang): float(p) for lang, p in ident.rank(text)}
    return [ranked.get(lang, 0.0) for lang in langs]


_DFA: dict[int, tuple[Any, np.ndarray, np.ndarray, np.ndarray]] = {}


def _dfa(ident: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """py3langid's byte automaton as numpy arrays (next state, row base, feature)."""
    got = _DFA.get(id(ident))
    if got is None or got[0] is not ident:
        nm = np.frombuffer(ident.tk_nextmove, dtype=np.uint32)
        rowbase = np.asarray(ident.tk_row, dtype=np.int64) << 8
        out = np.asarray(ident.tk_output, dtype=np.int64)
        got = _DFA[id(ident)] = (ident, nm, rowbase, out)
    return got[1], got[2], got[3]


def _decide_many(ident: Any, texts: Sequence[str]) -> np.ndarray:
    """py3langid's ``_decide`` (normalised scores per class) for many texts at once: its
    byte automaton walked for every text together, position by position (longest texts
    first), and the features' counts scored in one sparse product (10,000 sentences:
    ~0.3 CPU-s where one text at a time took ~2)."""
    from scipy import sparse

    nm, rowbase, out = _dfa(ident)
    encoded = [ident._encode(t) for t in texts]
    n = len(encoded)
    lengths = np.fromiter((len(b) for b in encoded), dtype=np.int64, count=n)
    flat = np.frombuffer(b"".join(encoded), dtype=np.uint8).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    order = np.argsort(-lengths, kind="stable")
    first = starts[order]
    longer = n - np.cumsum(np.bincount(lengths, minlength=int(lengths.max(initial=0)) + 1))
    state = np.zeros(n, dtype=np.int64)
    rows: list[np.ndarray] = []
    feats: list[np.ndarray] = []
    for pos in range(int(lengths.max(initial=0))):
        k = int(longer[pos])  # texts longer than ``pos``: the first k in ``order``
        state[:k] = nm[rowbase[state[:k]] + flat[first[:k] + pos]]
        f = out[state[:k]]
        hit = np.nonzero(f >= 0)[0]
        if len(hit):
            rows.append(order[hit])
            feats.append(f[hit])
    classes = len(ident.nb_classes)
    scores = np.zeros((n, classes), dtype=np.float32)
    if rows:
        r, f = np.concatenate(rows), np.concatenate(feats)
        used, col = np.unique(f, return_inverse=True)
        counts = sparse.csr_matrix(
            (np.ones(len(r), dtype=np.float32), (r, col.reshape(-1))), shape=(n, len(used))
        )
        counts.sum_duplicates()
        counts.data = np.log1p(counts.data)
        table = np.asarray(ident.nb_ptc[used], dtype=np.float32)
        scores = np.asarray(counts @ table, dtype=np.float32)
        found = np.diff(counts.indptr) > 0
        scores[found] += np.asarray(ident.nb_pc, dtype=np.float32)
    else:
        found = np.zeros(n, dtype=bool)
    if not ident._norm_probs:
        scores[~found] = np.finfo(np.float32).min
    else:
        scores *= (1.0 / np.sqrt(np.maximum(lengths, 1))).astype(np.float32)[:, None]
        scores = np.exp(scores - scores.max(axis=1, keepdims=True))
        scores /= scores.sum(axis=1, keepdims=True)
    for i, j in ident._alias_pairs:
        if ident._norm_probs:
            scores[:, i] += scores[:, j]
            scores[:, j] = 0.0
        else:
            scores[:, i] = np.maximum(scores[:, i], scores[:, j])
            scores[:, j] = np.finfo(np.float32).min
    return scores


def _probabilities_many(ident: Any, texts: Sequence[str], langs: list[str]) -> list[list[float]]:
    """``_probabilities`` of each of ``texts``, py3langid's automaton run for all at once
    where this identifier has it (else one text at a time)."""
    classes = getattr(ident, "nb_classes", None)
    if texts and classes is not None and hasattr(ident, "tk_nextmove"):
        try:
            scores = _decide_many(ident, texts)
            column = _columns(tuple(classes))
            cols = np.array([column.get(lang, -1) for lang in langs])
            picked = np.where(cols >= 0, scores[:, np.maximum(cols, 0)], 0.0)
            return picked.tolist()  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - another py3langid: one text at a time
            pass
    return [_probabilities(ident, t, langs) for t in texts]


@functools.lru_cache(maxsize=4)
def _columns(classes: tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, lang in enumerate(classes):
        out.setdefault(str(lang), i)  # the first column holds an aliased label's score
    return out


def _odds(probs: np.ndarray, own: int, source: int) -> tuple[np.ndarray, np.ndarray]:
    """Per text (a row of the identifier's probabilities): the log odds of the likeliest
    other language than column ``own`` (the source's column aside), and its column."""
    other = probs.copy()
    other[:, own] = 0.0
    if source >= 0:
        other[:, source] = 0.0
    best = other.argmax(axis=1)
    top = other[np.arange(len(best)), best]
    return np.log(np.maximum(top, 1e-30)) - np.log(np.maximum(probs[:, own], 1e-30)), best


Profile = tuple[Counter[str], Counter[str], int]
"""How many translated targets use each script and each word, and how many there are."""


def target_profile(units: Iterable[QaUnit]) -> Profile:
    """What the translated targets of ``units`` are written with (``language_flags``)."""
    uses: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    translated = 0
    for u in units:
        if u.target.strip():
            translated += 1
        if u.target.strip() and u.target.strip() != u.source.strip():
            text = _strip(u.target)
            uses.update(letter_scripts(text).keys())
            seen.update(_words(text))
    return uses, seen, max(1, translated)


FOREIGN_WORD = 1.5
"""Log odds for another language checked with the file (its translations' words) that each
word of the target adds which this language's translations use nowhere else and that
language's use in two units or more ..."""
FOREIGN_WIDE = 0.5
"""... the same for a CJK character (a simplified Chinese one in a Japanese file)."""


def _japanese_or_chinese(lang: str, counts: Counter[str]) -> bool:
    """Whether a ``lang`` (``ja``, ``zh``) target of these letter ``counts`` is beyond the
    identifier: a few Han characters alone are written alike in Japanese and Chinese
    (``設定``, ``正規表現``), and a Japanese one with kana among them is Japanese."""
    if lang not in ("ja", "zh") or not counts.keys() <= {"CJK", "HIRAGANA", "KATAKANA"}:
        return False
    if lang == "ja" and counts.keys() & {"HIRAGANA", "KATAKANA"}:
        return True
    return counts.keys() == {"CJK"} and counts["CJK"] <= SHORT_HAN


def _primary(tag: str) -> str:
    return (tag or "").replace("_", "-").split("-")[0].lower()


def writes_latin(lang: str) -> bool:
    """Whether ``lang`` (a tag) is written in Latin letters."""
    return "LATIN" in _SCRIPTS.get(_primary(lang), {"LATIN"})


def language_flags(
    units: Sequence[QaUnit],
    src: str,
    tgt: str,
    profile: Profile | None = None,
    vocabularies: dict[str, Counter[str]] | None = None,
) -> list[Flag]:
    """Targets written in another language than ``tgt``: letters of a script the language
    does not use or that the file's other targets hardly use (a Latin target in a Russian
    file, unless the source is the same words; a Chinese target in a Korean file), or a
    target the identifier reads as another language, with the declared language as the
    prior and the words the file's other translations use as evidence for it (``profile``:
    ``target_profile`` of every file of the pair checked together, ``units`` among them;
    ``vocabularies``: the words other languages' translations checked with it use, per
    language tag — a word only they use is evidence for theirs)."""
    from xlsearch.engine.lang.identify import COMMON_LANGUAGES, identifier
    from xlsearch.engine.qa.rules import is_credits

    prim = _primary(tgt)
    sprim = _primary(src)
    if not prim:
        return []
    want = _SCRIPTS.get(prim, {"LATIN"})
    plausible = set(COMMON_LANGUAGES) | {sprim, prim}
    texts = [_strip(u.target) for u in units]
    scripts = [letter_scripts(t) for t in texts]
    words = [_words(t) for t in texts]
    # What the file's translations are written with: scripts and words, per target.
    uses, seen, translated = profile or target_profile(units)
    rare = {s for s, n in uses.items() if n <= RARE_SCRIPT * translated}
    flags: list[Flag] = []
    ident = None
    langs = sorted(plausible)
    asked: list[tuple[QaUnit, str, float, dict[int, float], bool]] = []
    known: dict[str, list[float]] = {}  # a target written twice is identified once

    def flag(u: QaUnit, message: str, severity: str = "error") -> None:
        flags.append(Flag(u.file, u.key, u.source, u.target, "wrong-language", severity,
                          message, line=u.line))  # fmt: skip

    elsewhere = [
        (langs.index(_primary(tag)), vocab)
        for tag, vocab in (vocabularies or {}).items()
        if _primary(tag) != prim and _primary(tag) in langs
    ]
    for u, text, counts, ws in zip(units, texts, scripts, words, strict=True):
        if is_credits(u.source) or u.target.strip() == u.source.strip():
            continue
        letters = sum(counts.values())
        if not letters:
            continue
        in_source = letter_scripts(u.source)
        odd = {s: n for s, n in counts.items() if s in rare and s not in in_source}
        weight = sum(n * (2 if s in _WIDE else 1) for s, n in odd.items())
        if weight >= 2 and (weight >= 0.3 * letters or odd.keys() & _WIDE):
            top = _script_name(max(odd, key=lambda k: odd[k]))
            flag(u, f"the target is written in {top} script, which this file's "
                 f"{tgt} translations hardly use")  # fmt: skip
            continue
        foreign = sum(v for k, v in counts.items() if k not in want)
        wide = sum(v for k, v in counts.items() if k not in want and k in _WIDE)
        if letters + wide >= MIN_LETTERS and foreign / letters > 0.8:
            names = {w.casefold() for w in re.findall(r"[^\W\d_]+", _strip(u.source))}
            tw = [w.casefold() for w in re.findall(r"[^\W\d_]+", text)]
            new = [
                w for w in tw
                if w not in names and len(w) > 4 and seen[w] <= 1
                and all(_script(ch) == "LATIN" for ch in w)
            ]  # fmt: skip
            if ";" in u.source:
                new = []  # a keyword list: the team's own choice of search terms
            if names and all(any(_abbreviates(w, n) for n in names) for w in tw):
                continue  # "Ctrl" for "Control": the source's words, abbreviated
            if names and sum(w in names for w in tw) >= 0.5 * len(tw) and not new:
                continue  # names and terms kept as in the source (or used across the files)
            top = _script_name(max(counts, key=lambda k: counts[k]))
            flag(u, f"the target is written in {top} script, not in {tgt}'s")
            continue
        if len(text.strip()) < LANGID_MIN_CHARS or _japanese_or_chinese(prim, counts):
            continue
        own = ws - _words(_strip(u.source))
        if not own:
            continue  # the source's own words (names, terms) kept as written
        evidence = 0.0
        longer = any(len(w) > SHORT_WORD for w in own)
        for w in own:
            if len(w) == 1:  # a CJK character: seen in the file's other targets or not
                evidence += WIDE_WEIGHT if seen[w] > 1 else -UNSEEN_WIDE
            elif seen[w] > 1:
                evidence += SHORT_WORD_WEIGHT if longer and len(w) <= SHORT_WORD else WORD_WEIGHT
            elif len(w) > 2 and translated >= UNSEEN_MIN_TARGETS:
                evidence -= UNSEEN_WORD
        known.setdefault(text, [])
        # Words only another language's translations use: evidence for that language.
        hints: dict[int, float] = {}
        for col, vocab in elsewhere:
            theirs = [w for w in own if seen[w] <= 1 and vocab[w] >= 2]
            if theirs:
                hint = sum(FOREIGN_WIDE if len(w) == 1 else FOREIGN_WORD for w in theirs)
                hints[col] = max(hints.get(col, 0.0), hint)
        asked.append((u, text, evidence, hints, len(own) >= SENTENCE_WORDS))
    if asked:
        ident = identifier()
        texts_asked = list(known)
        known = dict(zip(texts_asked, _probabilities_many(ident, texts_asked, langs), strict=True))
        probs = np.asarray([known[text] for _, text, *_ in asked], dtype=np.float64)
        own_col = langs.index(prim)
        odds, best = _odds(probs, own_col, langs.index(sprim) if sprim in langs else -1)
        floor = np.log(np.maximum(probs, 1e-30))
        for k, ((u, _, evidence, hints, sentence), o, b) in enumerate(
            zip(asked, odds, best, strict=True)
        ):
            why = ""
            for col, hint in hints.items():  # words only that language's translations use
                o_col = floor[k, col] - floor[k, own_col] + hint
                if o_col > o:
                    o, b = o_col, col
                    why = f", with words only its {langs[col]} translations use"
            if sentence:
                evidence = min(evidence, SENTENCE_SHARE * o)
            if o - evidence > LANGID_LOG_ODDS:
                # A label of one or two words is weak evidence for the identifier
                # ("Diskette", "Tastatur_modell"): a warning; a sentence it is sure of, an error.
                sure = len(_WORD.findall(_strip(u.target))) >= SURE_WORDS
                flag(
                    u,
                    f"the target reads as {langs[b]}, not {tgt} (log odds {min(o, 99):.1f}{why})",
                    "error" if sure and o - evidence > 2 * LANGID_LOG_ODDS else "warning",
                )
    return flags
