"""The fonts of every PDF pbm makes: DejaVu Sans and DejaVu Sans Mono, shipped here.

Players' names and messages are any Unicode: the 14 standard PDF fonts
(Helvetica, Courier) cover Latin-1 only, so ``Łódź`` or ``Дмитрий`` would come
out as black boxes.  DejaVu covers Latin Extended, Greek, Cyrillic and much
more; it is redistributable under the Bitstream Vera licence (DejaVu's changes
are in the public domain), whose text is ``LICENSE-DejaVu.txt`` beside the fonts.
A character the font lacks (most emoji) is drawn as DejaVu's visible
"missing glyph" box, never dropped: see :func:`covered`.

Embedded TrueType subsets keep reportlab's invariant mode byte-deterministic.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab import rl_config
from reportlab.pdfbase.pdfdoc import PDFArray, PDFStream, PDFTrueTypeFont, PDFZCompress
from reportlab.pdfbase.ttfonts import TTFont

from pbm.pdfcanvas import DEFLATE_ONCE, ascii_identity

FOLDER = Path(__file__).resolve().parent

SANS = "PbmSans"
BOLD = "PbmSans-Bold"
ITALIC = "PbmSans-Oblique"
BOLD_ITALIC = "PbmSans-BoldOblique"
MONO = "PbmMono"

FILES = {
    SANS: "DejaVuSans.ttf",
    BOLD: "DejaVuSans-Bold.ttf",
    ITALIC: "DejaVuSans-Oblique.ttf",
    BOLD_ITALIC: "DejaVuSans-BoldOblique.ttf",
    MONO: "DejaVuSansMono.ttf",
}


class SubsetFont(TTFont):
    """reportlab's TrueType font with a quicker way to encode plain ASCII text, which is most of a report.

    reportlab encodes every string character by character into the document's font subsets.  In its
    "ASCII readable" mode (reportlab's default, and ours) the printable ASCII characters the font has are
    given their own codes in subset 0 before any text is drawn, so a string of those characters always
    encodes to subset 0 and its own bytes: :meth:`splitString` returns that at once and leaves every
    other string to reportlab's loop.  The result is the same, so the PDF bytes are the same.
    """

    _PRINTABLE = range(32, 127)

    def __init__(self, name: str, filename: str) -> None:
        super().__init__(name, filename)
        face = self.face
        self._ascii_fast = (self._asciiReadable and not getattr(face, "_full_font", None)
                            and all(n in face.charToGlyph for n in self._PRINTABLE))

    def addObjects(self, doc):  # noqa: N802 (reportlab's name)
        """reportlab's, with each subset's font program made and compressed once per process.

        A subset's program depends only on its characters, and most reports use the same ones (ASCII
        and a few signs), so the 15 reports of a turn embed the same subsets: reportlab would build
        each from the TrueType file and compress it again in every document.  The bytes are the same.
        """
        face = self.face
        if "makeSubset" not in face.__dict__:  # once per font: the face's own method, memoised
            build = face.makeSubset
            programs: dict[tuple[int, ...], bytes] = {}

            def make_subset(subset, _build=build, _programs=programs):
                key = tuple(subset)
                program = _programs.get(key)
                if program is None:
                    if len(_programs) >= 64:  # a long-running worker sees many documents: keep it bounded
                        _programs.clear()
                    program = _programs[key] = _build(subset)
                return program

            face.makeSubset = make_subset
        before = set(doc.idToObject)
        super().addObjects(doc)
        for name in set(doc.idToObject) - before:  # the new font programs and ToUnicode maps, the fonts
            obj = doc.idToObject[name]
            if isinstance(obj, PDFStream) and obj.filters == [PDFZCompress]:
                obj.filters = [DEFLATE_ONCE]
            elif (isinstance(obj, PDFTrueTypeFont) and type(obj.Widths) is PDFArray
                  and all(type(w) in (int, float) for w in obj.Widths.sequence)):
                obj.Widths = WidthsArray(obj.Widths.sequence)

    def splitString(self, text, doc, encoding="utf-8"):  # noqa: N802 (reportlab's name)
        if self._ascii_fast and type(text) is str and text.isascii() and text.isprintable():
            state = self.state.get(doc)
            if state is None:
                state = self.state[doc] = TTFont.State(self._asciiReadable, self)
            if ascii_identity(state):
                return [(0, text.encode("ascii"))] if text else []
        return super().splitString(text, doc, encoding)


class WidthsArray(PDFArray):
    """A subset's glyph widths, formatted once per process: the same subsets come back in every report,
    and reportlab formats an array number by number (its bytes do not depend on the document)."""

    _formatted: dict[tuple, bytes] = {}

    def format(self, document, IND=b"\n "):  # noqa: N803 (reportlab's name)
        key = (tuple(self.sequence), self.multiline, rl_config.pdfMultiLine, IND)
        out = self._formatted.get(key)
        if out is None:
            if len(self._formatted) >= 256:
                self._formatted.clear()
            out = self._formatted[key] = super().format(document, IND)
        return out


@cache
def register() -> None:
    """Register pbm's fonts with reportlab (once per process); <b> and <i> in Paragraphs map onto them."""
    for name, filename in FILES.items():
        pdfmetrics.registerFont(SubsetFont(name, str(FOLDER / filename)))
    addMapping(SANS, 0, 0, SANS)
    addMapping(SANS, 1, 0, BOLD)
    addMapping(SANS, 0, 1, ITALIC)
    addMapping(SANS, 1, 1, BOLD_ITALIC)
    addMapping(MONO, 0, 0, MONO)
    addMapping(MONO, 1, 0, MONO)
    addMapping(MONO, 0, 1, MONO)
    addMapping(MONO, 1, 1, MONO)


def covered(text: str, font: str = SANS) -> bool:
    """True if every character of ``text`` has a glyph in ``font`` (else it prints as a box)."""
    register()
    face = pdfmetrics.getFont(font).face
    return all(ord(ch) in face.charToGlyph for ch in text if not ch.isspace())


def describe() -> list[dict[str, str]]:
    """Each font file and whether it is readable (for ``pbm doctor``)."""
    out = []
    for name, filename in FILES.items():
        path = FOLDER / filename
        out.append({"name": name, "file": str(path), "ok": "yes" if path.is_file() else "missing"})
    return out


register()
