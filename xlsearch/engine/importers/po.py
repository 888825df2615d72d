"""Gettext PO/POT catalogues, parsed with polib (the reference Python reader)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from xlsearch.engine.importers.base import (
    ReadContext,
    Record,
    check_text,
    line_breaks,
    normalize,
    normalize_lang,
    open_binary,
    sniff,
)
from xlsearch.engine.importers.encoding import codec_name, decode_error
from xlsearch.engine.importers.limits import FILE

_CHARSET = re.compile(rb"charset\s*=\s*([A-Za-z0-9_.:\-]+)")
_STRING_LINE = re.compile(
    r'^\s*(?:#[~|]\s*)?(?:(?:msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+)?"(.*)$'
)
_LINE_END = re.compile(r"\r\n|\r|\n")


def catalogue_lines(text: str) -> list[str]:
    """A catalogue's lines as gettext and polib reading a file count them (split at LF, CRLF
    and CR only), not as ``str.splitlines`` does: U+2028, U+0085, form feeds … inside a
    string are characters of the string, not line ends."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class _CatalogueText(str):
    """A catalogue's text that polib splits into lines as it splits a file
    (``catalogue_lines``): given text, polib calls ``str.splitlines``, which ends a line at
    U+2028 or U+0085 inside a string and then finds the string not closed."""

    __slots__ = ()

    def splitlines(self, keepends: bool = False) -> list[str]:
        if keepends:
            return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", self)
        return catalogue_lines(self)


def parse_catalogue(text: str, **kwargs: Any) -> Any:
    """``polib.pofile`` of a catalogue's decoded text, its lines split as a file's are."""
    import polib

    return polib.pofile(_CatalogueText(text), **kwargs)


UNCLOSED_HINT = (
    "the file is cut short or damaged (msgfmt --check shows the same): export it again, or "
    "close the string"
)


def unclosed_string(text: str) -> int | None:
    """The first line whose quoted string does not end (a file cut short in the middle of a
    string: polib would store the text cut, its last character dropped), else None."""
    for number, line in enumerate(catalogue_lines(text), 1):
        m = _STRING_LINE.match(line)
        if m is None:
            continue
        rest = m.group(1).rstrip()
        body = rest[:-1]
        if not rest.endswith('"') or (len(body) - len(body.rstrip("\\"))) % 2:
            return number
    return None


_SYNTAX_LINE = re.compile(r"\(line (\d+)\)")
MAX_PO_BYTES = FILE.value


def _decode(ctx: ReadContext) -> str:
    """The catalogue as text: ``--encoding``, else a BOM, else the header's charset, else
    UTF-8 (``charset=CHARSET`` in templates means UTF-8)."""
    with open_binary(ctx) as stream:
        bom, head = sniff(stream, ctx)
        data = stream.read(MAX_PO_BYTES + 1)
    if len(data) > MAX_PO_BYTES:
        raise FILE.exceeded(str(ctx.path))
    where = str(ctx.path)
    if ctx.encoding:
        encoding = codec_name(ctx.encoding, where, "--encoding")
    elif bom:
        encoding = bom
    else:
        m = _CHARSET.search(data[:8192])
        name = m.group(1).decode("ascii") if m else "utf-8"
        encoding = "utf-8" if name.upper() == "CHARSET" else codec_name(name, where, "PO header")
    ctx.decoded_as = encoding
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        sample = data[max(0, exc.start - 200) : exc.start + 4096]
        raise decode_error(f"{where}:{line}", encoding, exc, sample) from exc


def read_catalogue(ctx: ReadContext) -> str:
    """A catalogue's text as every read path takes it (import, analyze, the app): decoded
    (``--encoding``, a BOM, the header's charset, UTF-8), and refused with one message per
    fault: NUL bytes anywhere (a binary file), a declared charset that garbles the text —
    header comments included, which a written-back job would carry garbled — and a string
    not closed (a file cut short)."""
    text = _decode(ctx)
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise ctx.error("looks like a binary file (NUL bytes), not text", line=line)
    _refuse_garbled(ctx, text)
    unclosed = unclosed_string(text)
    if unclosed is not None:
        raise ctx.error("a string is not closed", line=unclosed, hint=UNCLOSED_HINT)
    return text


def _refuse_garbled(ctx: ReadContext, text: str) -> None:
    """A ``DataError`` naming the first line that reads as mojibake of another codec than
    the one the file was decoded with (its declaration lies), with the fix (``--encoding``)."""
    import codecs

    from xlsearch.engine.importers.mojibake import MOJIBAKE_HINT, repaired, shown

    used = codecs.lookup(ctx.decoded_as).name if ctx.decoded_as else None
    for number, line in enumerate(catalogue_lines(text), 1):
        fixed, real = repaired(line)
        if real is None or used is None:
            continue
        try:
            same = codecs.lookup(real).name == used
        except LookupError:
            same = False
        if not same:
            raise ctx.error(
                f"read as {used}, the text comes out garbled ({shown(_text_of(line))} is "
                f"{shown(_text_of(fixed))} in {real}): the file is not in the encoding it "
                "declares",
                line=number,
                hint=MOJIBAKE_HINT.format(real=real),
            )


def _text_of(line: str) -> str:
    """A catalogue line's text: a string's content, a comment's words."""
    m = _STRING_LINE.match(line)
    if m is not None:
        return m.group(1).rstrip().removesuffix('"')
    return line.lstrip("#~|.,: ").strip()


def read_po(ctx: ReadContext) -> Iterator[Record]:
    """One unit per entry: ``msgid`` (source) and ``msgstr`` (target). Plural entries give one
    unit per plural form (form 0 pairs ``msgid``, the others ``msgid_plural``). ``msgctxt``
    is kept as ``context``; a fuzzy entry gives its source only (flagged ``fuzzy``: gettext
    does not use its translation, and neither does a memory); obsolete (``#~``) entries are
    skipped, untranslated ones give their source only. Languages, one per file and side
    (``catalogue_languages``): ``--lang SRC[,TGT]``, else the header's ``X-Source-Language``
    and ``Language``, else English for the msgids (gettext's convention) and the file
    name's or the text's language for the msgstrs."""
    text = read_catalogue(ctx)
    try:
        catalogue = parse_catalogue(text)
    except (OSError, ValueError) as exc:
        m = _SYNTAX_LINE.search(str(exc))
        raise ctx.error(
            f"not a valid PO file: {_SYNTAX_LINE.sub('', str(exc)).strip()}",
            line=int(m.group(1)) if m else None,
        ) from exc
    src, tgt = catalogue_languages(ctx, catalogue)
    tu = 0
    obsolete = fuzzy = 0
    project = catalogue_project(catalogue.metadata)
    for entry in catalogue:
        if entry.obsolete:
            obsolete += 1
            continue
        meta: dict[str, Any] = {"project": project} if project else {}
        if entry.msgctxt:
            meta["context"] = entry.msgctxt
        if entry.fuzzy:
            meta["fuzzy"] = True
        if entry.msgid_plural:
            forms = sorted(entry.msgstr_plural.items()) or [(0, "")]
            if len(forms) < 2:  # one plural form (ja, zh …): msgid_plural still kept
                forms.append((1, ""))
            pairs = [
                (entry.msgid if k == 0 else entry.msgid_plural, v, {**meta, "plural": k})
                for k, v in forms
            ]
        else:
            pairs = [(entry.msgid, entry.msgstr, meta)]
        if entry.fuzzy and any(target.strip() for _s, target, _m in pairs):
            fuzzy += 1
            pairs = [(source, "", unit_meta) for source, _t, unit_meta in pairs]
        for source, target, unit_meta in pairs:
            yield from _pair(ctx, tu, entry.linenum, (src, source), (tgt, target), unit_meta)
            tu += 1
    if obsolete:
        ctx.warn(f"{obsolete:,} obsolete (#~) entries not imported", skip=False)
    if fuzzy:
        ctx.warn(
            f"{fuzzy:,} fuzzy entries: their source only (a fuzzy translation is a draft)",
            skip=False,
        )


def catalogue_project(metadata: dict[str, str]) -> str:
    """The catalogue's project (``Project-Id-Version`` less its version number), '' for
    gettext's placeholder."""
    name = (metadata.get("Project-Id-Version") or "").strip()
    if not name or name.upper().startswith("PACKAGE"):
        return ""
    return re.sub(r"\s+v?\d[\w.\-]*$", "", name)


SAMPLE_ENTRIES = 200
"""Entries whose text is read to identify a side's language when the file does not say it."""


def catalogue_languages(ctx: ReadContext, catalogue: Any) -> tuple[str, str | None]:
    """(msgid language, msgstr language) of a catalogue, decided once for the whole file:
    short UI strings identified one by one scatter over look-alike languages ("Open Link in
    New _Window" as Dutch). The msgids: ``--lang``'s first tag, else ``X-Source-Language``,
    else English — gettext's convention — unless the msgids plainly read as another
    language. The msgstrs: ``--lang``'s second tag, else the header's ``Language``, else the
    file name's (``fr.po``, ``pt_BR.po``) or the text's; None when there are none."""
    from xlsearch.engine.lang.doclang import filename_lang, hinted

    head = catalogue.metadata
    src = ctx.langs[0] if ctx.langs else normalize_lang(head.get("X-Source-Language"))
    tgt = ctx.langs[1] if len(ctx.langs) > 1 else normalize_lang(head.get("Language"))
    live = [e for e in catalogue if not e.obsolete]
    if src is None:
        src = hinted(_sample(_mnemonic_free(e.msgid) for e in live), "en")
    if tgt is None:
        sample = _sample(
            _mnemonic_free(e.msgstr or next(iter(e.msgstr_plural.values()), ""))
            for e in live
            if not e.fuzzy
        )
        hint = filename_lang(ctx.path)
        tgt = (hinted(sample, hint) if sample.strip() else hint) or None
    return src, tgt


def _sample(texts: Iterable[str]) -> str:
    out: list[str] = []
    for text in texts:
        if text.strip():
            out.append(normalize(text))
        if len(out) >= SAMPLE_ENTRIES:
            break
    return " \n".join(out)


def _mnemonic_free(text: str) -> str:
    """``_Open`` → ``Open``: a mnemonic marker splits words for the identifier."""
    return re.sub(r"[_&](?=\w)", "", text)


def _pair(
    ctx: ReadContext,
    tu: int,
    line: int,
    source: tuple[str | None, str],
    target: tuple[str | None, str],
    meta: dict[str, Any],
) -> Iterator[Record]:
    for lang, raw in (source, target):
        text = normalize(raw)
        if text and check_text(ctx, text, line):
            breaks = line_breaks(raw)  # a message's layout: its lines (stored as spaces)
            yield Record(
                tu, lang, text, line, ({**meta, "breaks": breaks} if breaks else meta) or None
            )
