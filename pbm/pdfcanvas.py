"""A reportlab canvas that draws plain strings with less work, for every PDF pbm makes.

A report draws some 1,700 strings (table cells, chart labels, the running header), each through
reportlab's ``drawString``: a text object is made, its origin set, the text encoded and the object
turned back into one line of PDF code.  :class:`TextCanvas` writes that same line directly for the
common case (no render mode, character or word spacing, direction or shaping, and one of pbm's
TrueType fonts), and hands every other case to reportlab.  The line it writes is the one reportlab
would write, so the PDF bytes do not change: ``tests/test_pdfcanvas.py`` compares them.
"""

from __future__ import annotations

from reportlab.pdfbase.pdfmetrics import getFont, stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.textobject import ShapedStr, rtlSupport
from reportlab.lib.rl_accel import fp_str


class TextCanvas(Canvas):
    """``Canvas`` with a direct path for ``drawString``, ``drawRightString`` and ``drawCentredString``."""

    def _plain_text(self, x: float, y: float, text: str) -> bool:
        """Append the code of ``text`` drawn at (x, y) as reportlab's text object would; False if this
        is not the plain case (the caller then lets reportlab draw it)."""
        if type(text) is not str or not self.bottomup or rtlSupport:  # with rlbidi, reportlab reorders text
            return False
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
