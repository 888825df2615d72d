"""Documents written the way word processors write them."""

from __future__ import annotations

from pathlib import Path


def tracked_docx(path: Path) -> Path:
    """A paragraph with an unaccepted insertion and deletion (Word's track changes)."""
    import docx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    d = docx.Document()
    p = d.add_paragraph("Prüfen Sie den Öldruck ")
    for kind, text in (("ins", "alle 250 Stunden"), ("del", "täglich")):
        change = OxmlElement(f"w:{kind}")
        change.set(qn("w:id"), "1")
        change.set(qn("w:author"), "A")
        run = OxmlElement("w:r")
        run.append(OxmlElement("w:t" if kind == "ins" else "w:delText"))
        run[0].text = text
        change.append(run)
        p._p.append(change)
    p.add_run(". Danach das Ventil.")
    d.save(str(path))
    return path
