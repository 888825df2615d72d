"""Which encoding a file is in: BOMs, UTF-16/32 without BOM, XML declarations, ``--encoding``,
and charset-normalizer's guess for text files that declare nothing."""

from __future__ import annotations

import codecs
import re
import unicodedata

from xlsearch.engine.errors import DataError

# Names CAT tools and Java write that Python does not know under that spelling.
_ALIASES = {
    "windows-31j": "cp932",
    "x-sjis": "shift_jis",
    "x-mac-roman": "mac_roman",
    "macintosh": "mac_roman",
    "x-euc-jp": "euc_jp",
    "ks_c_5601-1987": "cp949",
    "unicode": "utf-16",
    "ucs-2": "utf-16",
}
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_XML_DECL = re.compile(rb"""^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][\w.:\-]*)["']""")
GUESS_BYTES = 1 << 16
"""How much of a text file without a declared encoding charset-normalizer looks at."""


def codec_name(name: str, where: str, origin: str) -> str:
    """Python's codec for ``name``; an unknown name is a one-line ``DataError``."""
    key = name.strip().lower()
    try:
        return codecs.lookup(_ALIASES.get(key, key)).name
    except LookupError:
        raise DataError(
            f"{where}: unknown encoding {name.strip()!r} ({origin})",
            hint="pass --encoding with a Python codec name, e.g. --encoding cp1252",
        ) from None


def is_wide(encoding: str) -> bool:
    """Whether ``encoding`` is not ASCII-compatible (UTF-16/32: lines cannot be split as bytes)."""
    return codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))


def from_bom(head: bytes) -> str | None:
    """The encoding a byte-order mark announces, or None."""
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc
    return None


def utf16_without_bom(head: bytes) -> str | None:
    """``utf-16-le``/``-be``/``utf-32-le``/``-be`` when the bytes look like mostly-ASCII text
    with a NUL high byte per character (as Windows tools write UTF-16 without a BOM)."""
    if head.startswith(b"<\x00\x00\x00"):
        return "utf-32-le"
    if head.startswith(b"\x00\x00\x00<"):
        return "utf-32-be"
    sample = head[: len(head) - len(head) % 2][:4096]
    pairs = len(sample) // 2
    if not pairs:
        return None
    even = sample[0::2].count(0) / pairs
    odd = sample[1::2].count(0) / pairs
    if odd > 0.4 and even < 0.05:
        return "utf-16-le"
    if even > 0.4 and odd < 0.05:
        return "utf-16-be"
    return None


def xml_encoding(head: bytes, forced: str | None, where: str) -> str:
    """The codec an XML file is read with: ``--encoding``, else a BOM, else UTF-16/32 without
    BOM, else the XML declaration's ``encoding``, else UTF-8."""
    if forced:
        return codec_name(forced, where, "--encoding")
    bom = from_bom(head)
    if bom:
        return bom
    wide = utf16_without_bom(head)
    if wide:
        return wide
    m = _XML_DECL.match(head[:1024])
    if m:
        name = m.group(1).decode("ascii")
        enc = codec_name(name, where, "declared in the XML declaration")
        # a declaration of UTF-16 on bytes without NULs is a tool's lie: the bytes rule
        return "utf-8" if is_wide(enc) else enc
    return "utf-8"


def decodes_as_utf8(sample: bytes) -> bool:
    """Whether ``sample`` (possibly cut inside a character) is valid UTF-8."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return False
    return True


_COMMONEST = ("cp1252", "iso8859_15", "latin_1")
"""Where candidate codecs read the bytes equally well (French bytes read as cp1250 and cp1252
alike), the Western one: by far the most common legacy encoding."""

_PRIOR = (*_COMMONEST, "cp1251", "cp1250")
"""The commonest legacy code pages (Windows' Western, Cyrillic, Central European): between
candidates whose texts read equally well, these first; then charset-normalizer's order (it
knows the CJK encodings apart by their languages)."""

_ESCAPE = re.compile(r"\\[abfnrtv\"\\]")
"""C-style escapes (PO, .strings, .properties): ``\\n¿Seguro`` is two words."""
_WORD = re.compile(r"[^\s\d!-/:-@\[-`{-~]+")
"""A run of characters between spaces, digits and ASCII punctuation (a word, as decoded)."""


def _script(ch: str) -> str:
    """The script a letter belongs to (Japanese kanji and kana count as one)."""
    name = unicodedata.name(ch, "?")
    return "CJK" if name.startswith(("CJK", "HIRAGANA", "KATAKANA")) else name.split(" ")[0]


_ODD = frozenset("¿¡«»¦§¨ª¬¯´¶¸º")


def _odd_inside_word(ch: str) -> bool:
    """A character that does not belong between two letters of a word (``¿³`` in ``mo¿e³``):
    a symbol, a superscript or fraction, or Latin-1 punctuation that opens or closes text."""
    return ch in _ODD or unicodedata.category(ch) in ("So", "Sm", "Sc", "Sk", "No")


def implausibility(text: str) -> int:
    """How unlike text in one language ``text`` reads (0 = plausible). Each counts one: a
    symbol between two letters (``za¿ó³æ``: Polish read as cp1252), a word mixing scripts
    (``l'繻nement``: French read as Big5), a Latin word of four letters or more, four in five
    accented (``Ïðèâåò``: Russian read as cp1252); and a text mostly of such bytes more."""
    bad = 0
    for word in _WORD.findall(_ESCAPE.sub(" ", text)):
        letters = [c for c in word if c.isalpha()]
        if not letters:
            continue
        inner = word[next(i for i, c in enumerate(word) if c.isalpha()) :]
        inner = inner[: max(i for i, c in enumerate(inner) if c.isalpha()) + 1]
        if any(_odd_inside_word(c) for c in inner):
            bad += 1
        scripts = {_script(c) for c in letters if not c.isascii()}  # "%d개", "Xfce桌面" are fine
        if len(scripts) > 1 or _inside_latin(word):
            bad += 1
        elif scripts == {"LATIN"} and len(letters) > 3:
            accented = sum(1 for c in letters if not c.isascii())
            bad += accented * 5 >= len(letters) * 4
    return bad + _foreign_bytes(text)


_BETWEEN_LATIN = re.compile(r"[A-Za-z]([^\x00-\x7f]+)[A-Za-z]")


def _inside_latin(word: str) -> bool:
    """Letters of another script between two ASCII letters (``moїna``: Polish read as
    cp1251; ``l'繻nement``: French read as Big5)."""
    return any(
        any(c.isalpha() and _script(c) != "LATIN" for c in m.group(1))
        for m in _BETWEEN_LATIN.finditer(word)
    )


def _dominant_script(text: str) -> str:
    """The script of most of the non-ASCII letters of ``text`` ("" if none)."""
    counts: dict[str, int] = {}
    for c in text:
        if not c.isascii() and c.isalpha():
            script = _script(c)
            counts[script] = counts.get(script, 0) + 1
    return max(counts, key=counts.__getitem__) if counts else ""


_TYPOGRAPHY = frozenset("\u2018\u2019\u201c\u201d\u00ab\u00bb\u2013\u2014\u2026\u00a0")


def _foreign_bytes(text: str) -> int:
    """Text that is mostly non-ASCII (Cyrillic, Greek, CJK) read in a Latin code page reads as
    accented letters and symbols (``ƒ‰ƒ“ƒ``, ``Ïðèâåò``): a text whose characters are over
    30 % non-ASCII counts as implausible when those are mostly Latin letters, or a fifth
    symbols (typographic quotes and dashes, combining marks and CJK punctuation aside)."""
    chars = [c for c in text if not c.isspace() and not c.isdigit()]
    high = [c for c in chars if not c.isascii()]
    if len(high) * 10 <= len(chars) * 3:
        return 0
    latin = sum(1 for c in high if c.isalpha() and _script(c) == "LATIN")
    odd = sum(
        1
        for c in high
        if not c.isalpha()
        and c not in _TYPOGRAPHY
        and not unicodedata.category(c).startswith("M")
        and not ("\u3000" <= c <= "\u303f" or "\uff00" <= c <= "\uffef")
    )
    return 1 + len(high) // 20 if latin * 2 > len(high) or odd * 5 > len(high) else 0


def guess_encoding(sample: bytes) -> str | None:
    """The legacy encoding bytes that are not UTF-8 most likely use, as a Python codec name.

    charset-normalizer names the candidates; on the short texts of a catalogue it often
    prefers cp1250 or even Big5 for French, so each candidate (and cp1252) is read back and
    the one whose text reads most like words of one language wins (``implausibility``); on a
    tie, Latin text first (a short French text reads as Big5 just as well), then the script
    charset-normalizer ranks first (its language models tell Greek from Cyrillic read as
    cp1251), then within that script the commoner code page (``_PRIOR``)."""
    from charset_normalizer import from_bytes

    sample = sample[:GUESS_BYTES]
    found = [m.encoding for m in from_bytes(sample)]
    candidates = list(dict.fromkeys([*found, *_PRIOR]))
    scored = []
    script_rank: dict[str, int] = {}  # charset-normalizer's language knowledge picks the script
    for rank, name in enumerate(candidates):
        try:  # a sample cut from a file may start or end inside a character
            text = sample.decode(name, errors="replace")
        except LookupError:
            continue
        if "\ufffd" in text[2:-2] or any("\x80" <= c <= "\x9f" for c in text):
            continue  # bytes this codec cannot read, or leaves undefined (C1 controls)
        dominant = _dominant_script(text)
        script = -1 if dominant in ("LATIN", "") else script_rank.setdefault(dominant, rank)
        prior = _PRIOR.index(name) if name in _PRIOR else len(_PRIOR)
        scored.append((implausibility(text), script, prior, rank, name))
    if not scored:
        return None
    try:
        return codecs.lookup(min(scored)[-1]).name
    except LookupError:
        return None


def decode_error(
    where: str, encoding: str, exc: UnicodeDecodeError, sample: bytes, origin: str = ""
) -> DataError:
    """A one-line error for undecodable bytes that suggests ``--encoding`` (with a guess
    from ``sample``, bytes around the error)."""
    bad = bytes(exc.object[exc.start : exc.start + 1])
    guess = guess_encoding(sample) if encoding.replace("-", "").startswith("utf8") else None
    hint = "pass --encoding NAME (the file's real encoding)"
    if guess and guess != codecs.lookup(encoding).name:
        hint = f"pass --encoding {guess} (it looks like {guess}), or the file's real encoding"
    return DataError(
        f"{where}: not valid {encoding}{origin} (byte 0x{bad.hex() or '??'})", hint=hint
    )
