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
from reportlab.pdfbase.ttfonts import TTFont

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


@cache
def register() -> None:
    """Register pbm's fonts with reportlab (once per process); <b> and <i> in Paragraphs map onto them."""
    for name, filename in FILES.items():
        pdfmetrics.registerFont(TTFont(name, str(FOLDER / filename)))
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
