"""Small pieces of English for the words players read."""
from __future__ import annotations

# letters whose names begin with a vowel sound: "an SR share" (ess), "an L&N share" (el)
_VOWEL_SOUND_LETTERS = set("AEFHILMNORSX")


def a(name: str) -> str:
    """``name`` with its indefinite article: 'a GA', 'an SR', 'an L&N', 'an ACL', 'an 8', 'a 20%'.

    A name in capitals (or capitals with ``&`` or digits) is read letter by letter, so the article follows the first letter's name; a number follows how
    it is said (8, 11, 18, 80 ... take "an"); any other name (``CoG``, ``Ocilla``) is read as a word."""
    if not name:
        return name
    first = name[0]
    if first.isdigit():
        digits = "".join(ch for ch in name if ch.isdigit())
        n = int(digits)
        spoken_an = digits.startswith("8") or n in (11, 18) or (len(digits) in (5, 6) and digits[:2] in ("11", "18"))
        return ("an " if spoken_an else "a ") + name
    letters = name.split()[0]
    abbreviation = len(letters) > 1 and (letters[1].isupper() or letters[1] in "&-." or letters[1].isdigit()) \
        or len(letters) == 1
    if abbreviation:
        return ("an " if first.upper() in _VOWEL_SOUND_LETTERS else "a ") + name
    return ("an " if first.upper() in "AEIOU" else "a ") + name
