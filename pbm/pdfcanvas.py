"""What pbm's PDFs share below reportlab: a canvas that draws plain strings with less work
(:class:`TextCanvas`), drawn code copied between documents where it is valid (:class:`Drawing`), and a
Flate filter that compresses a stream many documents embed once (:class:`DeflateOnce`).

A report draws some 1,700 strings (table cells, chart labels, the running header), each through
reportlab's ``drawString``: a text object is made, its origin set, the text encoded and the object
turned back into one line of PDF code.  :class:`TextCanvas` writes that same line directly for the
common case (no render mode, character or word spacing, direction or shaping, and one of pbm's
TrueType fonts), and hands every other case to reportlab.  The line it writes is the one reportlab
would write, so the PDF bytes do not change: ``tests/test_pdfcanvas.py`` compares them.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from reportlab.pdfbase.pdfmetrics import getFont, stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.textobject import ShapedStr, rtlSupport
from reportlab.lib.rl_accel import fp_str


_NONE: dict = {}


class TextCanvas(Canvas):
    """``Canvas`` with a direct path for ``drawString``, ``drawRightString`` and ``drawCentredString``."""

    def _plain_text(self, x: float, y: float, text: str) -> bool:
        """Append the code of ``text`` drawn at (x, y) as reportlab's text object would; False if this
        is not the plain case (the caller then lets reportlab draw it)."""
        if type(text) is not str or not self.bottomup or rtlSupport:  # with rlbidi, reportlab reorders text
            return False
        # Printable ASCII in a font and size this document has drawn such text in already: subset 0, its own
        # bytes (pbm.fonts.SubsetFont.splitString), after the switch to that subset made then.
        ascii_switch = self.__dict__.get("_ascii_switches", _NONE).get((self._fontname, self._fontsize, self._leading))
        if ascii_switch is not None and text and text.isascii() and text.isprintable():
            self._code.append(f"BT 1 0 0 1 {fp_str(x, y)} Tm {ascii_switch} ({self._escape(text.encode('ascii'))}) "
                              "Tj T* ET")
            return True
        font = getFont(self._fontname)
        if not getattr(font, "_dynamicFont", 0) or isinstance(text, ShapedStr):
            return False
        doc = self._doc
        parts = []
        current = -1
        switches = self.__dict__.setdefault("_font_switches", {})  # this document's, as names are
        for subset, chunk in font.splitString(text, doc):
            if subset != current:
                key = (self._fontname, subset, self._fontsize, self._leading)
                switch = switches.get(key)
                if switch is None:  # the first use registers the subset with the document
                    switch = switches[key] = (f"{font.getSubsetInternalName(subset, doc)} "
                                              f"{fp_str(self._fontsize)} Tf {fp_str(self._leading)} TL")
                    if (subset == 0 and getattr(font, "_ascii_fast", False) and doc in font.state
                            and ascii_identity(font.state[doc])):  # printable ASCII: subset 0, as itself
                        self.__dict__.setdefault("_ascii_switches", {})[key[0], key[2], key[3]] = switch
                parts.append(switch)
                current = subset
            parts.append(f"({self._escape(chunk)}) Tj")
        # reportlab: "BT", the origin, the text line followed by T*, "ET", joined by spaces
        self._code.append(f"BT 1 0 0 1 {fp_str(x, y)} Tm {' '.join(parts)} T* ET")
        return True

    def drawString(self, x, y, text, mode=None, charSpace=0, direction=None, wordSpace=None,  # noqa: N802
                   shaping=False):
        if (mode is not None or charSpace or direction or wordSpace or shaping
                or not self._plain_text(x, y, text)):
            super().drawString(x, y, text, mode, charSpace, direction, wordSpace, shaping)

    def drawRightString(self, x, y, text, mode=None, charSpace=0, direction=None,  # noqa: N802
                        wordSpace=None, shaping=False):
        if (mode is not None or charSpace or direction or wordSpace or shaping or type(text) is not str
                or not self._plain_text(x - stringWidth(text, self._fontname, self._fontsize), y, text)):
            super().drawRightString(x, y, text, mode, charSpace, direction, wordSpace, shaping)

    def drawCentredString(self, x, y, text, mode=None, charSpace=0, direction=None,  # noqa: N802
                          wordSpace=None, shaping=False):
        if (mode is not None or charSpace or direction or wordSpace or shaping or type(text) is not str
                or not self._plain_text(x - 0.5 * stringWidth(text, self._fontname, self._fontsize), y, text)):
            super().drawCentredString(x, y, text, mode, charSpace, direction, wordSpace, shaping)


# In text code: a TrueType subset chosen (``/F2+1 ``), a standard font chosen (``/F3 ``), a string literal.
_TOKEN = re.compile(r"/(F\d+)\+(\d+) |/F\d+ |\(((?:\\[0-7]{3}|\\.|[^\\()])*)\)")
_ESCAPE = re.compile(r"\\([0-7]{3}|.)")
_PRINTABLE = range(32, 127)


def _literal_bytes(literal: str) -> bytes:
    """The bytes of a PDF string literal as reportlab writes them (escapePDF: \\ooo, \\(, \\), \\\\)."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 8)) if len(m.group(1)) == 3 else m.group(1),
                       literal).encode("latin-1")


def ascii_identity(state) -> bool:
    """True if a document's subset 0 of a TrueType font codes printable ASCII as itself (reportlab's
    ASCII-readable mode), checked once per document and font: codes, once given, never change."""
    identity = state.__dict__.get("ascii_identity")
    if identity is None:
        identity = state.ascii_identity = all(state.assignments.get(n) == n for n in _PRINTABLE)
    return identity


class DeflateOnce:
    """reportlab's Flate filter, remembering what it compressed: a stream that many documents embed (a font
    subset's program and ToUnicode map, a map page's form) is compressed once.  zlib gives the same bytes
    for the same input, so the documents are unchanged.  Bounded, for a long-running worker."""

    pdfname = "FlateDecode"

    def __init__(self, limit: int = 128) -> None:
        self.limit = limit
        self.done: dict[bytes, bytes] = {}

    def encode(self, content: bytes | str) -> bytes:
        if isinstance(content, str):
            content = content.encode("utf8")
        encoded = self.done.get(content)
        if encoded is None:
            if len(self.done) >= self.limit:
                self.done.clear()
            encoded = self.done[content] = zlib.compress(content)
        return encoded

    def decode(self, encoded: bytes) -> bytes:
        return zlib.decompress(encoded)


DEFLATE_ONCE = DeflateOnce()


@dataclass(frozen=True)
class Drawing:
    """The PDF code something drew, and what in its document that code depends on: to draw the same
    thing in another document by copying the code, where that is the same.

    Text code names fonts by the document's names for them (``/F2+0``: the second font the document
    used, subset 0) and writes each character as the code the document gave it: printable ASCII as
    itself, every other character in the order the document met it.  So the code is valid in another
    document where each font it names has the same name and each other code it writes stands for the
    same character; :meth:`fits` checks exactly that, and the caller draws afresh where it does not
    (which also gives the document those names and codes, as drawing must).  The codes are read from
    the code itself, so nothing drawn can be left out of the check.
    """

    code: tuple[str, ...]
    fonts: tuple[tuple[str, str], ...]  # (reportlab font name, the document's name for it)
    codes: tuple[tuple[str, int, int], ...]  # (font name, character, its code in that font's subsets)

    @classmethod
    def of(cls, code: list[str], doc) -> "Drawing | None":
        """What ``code``, just drawn in ``doc``, depends on; None where that cannot be told (a standard
        font, a character without a glyph, text before any font): such code is drawn afresh each time."""
        names = {ref[1:]: font for font, ref in doc.fontMapping.items()}  # "F2" -> "PbmSans"
        named: set[str] = set()
        used: set[tuple[str, int]] = set()
        current: tuple[str, int] | None = None
        for m in _TOKEN.finditer("\n".join(code)):
            if m.group(1):
                font = names.get(m.group(1))
                if font is None:
                    return None
                named.add(font)
                current = (font, int(m.group(2)))
            elif m.group(3) is None:  # a standard (non-TrueType) font
                return None
            elif m.group(3):
                if current is None:
                    return None
                font, subset = current
                for b in _literal_bytes(m.group(3)):
                    if subset or b not in _PRINTABLE:
                        used.add((font, subset << 8 | b))
        codes = []
        for font in named:
            state = getFont(font).state.get(doc)
            if state is None or not ascii_identity(state):
                return None
            char_of = {n: ch for ch, n in state.assignments.items()}
            for f, n in used:
                if f == font:
                    if n not in char_of:
                        return None
                    codes.append((font, char_of[n], n))
        fonts = tuple(sorted((font, doc.fontMapping[font]) for font in named))
        return cls(tuple(code), fonts, tuple(sorted(codes)))

    def fits(self, doc) -> bool:
        """True if this code draws the same in ``doc`` as drawing afresh would."""
        mapping = doc.fontMapping
        for font, ref in self.fonts:
            if mapping.get(font) != ref:
                return False
            state = getFont(font).state.get(doc)
            if state is None or not ascii_identity(state):
                return False
        for font, ch, code in self.codes:
            if getFont(font).state[doc].assignments.get(ch) != code:
                return False
        return True
