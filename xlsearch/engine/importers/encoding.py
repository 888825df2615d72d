"""Which encoding a file is in: BOMs, UTF-16/32 without BOM, XML declarations, ``--encoding``,
and charset-normalizer's guess for text files that declare nothing."""

from __future__ import annotations

import codecs
import re

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
"""Where charset-normalizer finds several codecs equally likely (French bytes read as cp1250
and cp1252 alike), the Western one: by far the most common legacy encoding."""


def guess_encoding(sample: bytes) -> str | None:
    """charset-normalizer's best guess for bytes that are not UTF-8, as a Python codec name."""
    from charset_normalizer import from_bytes

    matches = from_bytes(sample[:GUESS_BYTES])
    best = matches.best()
    if best is None:
        return None
    tied = [
        m.encoding
        for m in matches
        if (m.chaos, m.coherence) == (best.chaos, best.coherence) and m.encoding in _COMMONEST
    ]
    name = min(tied, key=_COMMONEST.index) if tied else best.encoding
    if name not in _COMMONEST and _reads_as_western(sample[:GUESS_BYTES]):
        name = "cp1252"
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


WESTERN = frozenset(
    "en fr de es it pt nl ca da sv nb no nn fi is ga eu gl af sq oc br lb fo la id ms".split()
)
"""Languages written in the Western code page (cp1252 / ISO-8859-1/15)."""


def _reads_as_western(sample: bytes) -> bool:
    """Whether ``sample`` decodes as cp1252 into text of a language written in it: French
    bytes guessed as cp1250 (``é`` is the same byte there, ``è`` is ``č``) read as French in
    cp1252; Czech or Polish bytes read as Czech or Polish in cp1250, not in cp1252."""
    from xlsearch.engine.lang.identify import classify

    try:
        text = sample.decode("cp1252")
    except UnicodeDecodeError:
        return False
    lang, prob = classify(text)
    return lang in WESTERN and prob >= 0.5


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
