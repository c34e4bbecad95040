"""The line at the top of every page of the state PDF, fitted to the page's width."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reportlab.pdfbase.pdfmetrics import stringWidth

from pbm.fonts import BOLD

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

SIZE = 13.0
SMALLEST = 8.0


def fitted(text: str, width: float, font: str = BOLD, size: float = SIZE, smallest: float = SMALLEST) -> tuple[str, float]:
    """(``text``, a font size from ``size`` down to ``smallest``) that fits ``width``; at the smallest
    size, the text is cut at a word and ends in an ellipsis (a finished game's heading named why it
    ended past the page's edge)."""
    one = " ".join(str(text).split())
    full = stringWidth(one, font, size)
    if full <= width:
        return one, size
    shrunk = size * width / full
    if shrunk >= smallest:
        return one, max(smallest, int(shrunk * 4) / 4)  # quarter points, so that the bytes are stable
    words = one.split(" ")
    while len(words) > 1 and stringWidth(" ".join(words) + " …", font, smallest) > width:
        words.pop()
    return " ".join(words) + " …", smallest


def draw_head(c: "Canvas", text: str, x: float, y: float, width: float) -> None:
    """Draw the page heading ``text`` at (x, y), as large as fits in ``width`` (13 pt at most)."""
    from reportlab.pdfgen.canvas import Canvas

    shown = getattr(c, "_names", None)  # an anonymous game's canvas: measured as its reader sees it
    line, size = fitted(shown(text) if shown else text, width)
    c.setFont(BOLD, size)
    Canvas.drawString(c, x, y, line)  # already in the reader's names
