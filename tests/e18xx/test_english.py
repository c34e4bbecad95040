"""The indefinite article before a company's abbreviation: 'an SR share', 'a GA share'."""
import pytest

from pbm.e18xx.core.game import Game
from pbm.e18xx.english import a
from pbm.e18xx.rounds.stock import share_name


@pytest.mark.parametrize("name,want", [
    ("SR", "an SR"), ("L&N", "an L&N"), ("ACL", "an ACL"), ("SAL", "an SAL"), ("NSW", "an NSW"),
    ("M&O", "an M&O"), ("RF&P", "an RF&P"), ("FT", "an FT"), ("OSR", "an OSR"),
    ("GA", "a GA"), ("CoG", "a CoG"), ("W&A", "a W&A"), ("B&O", "a B&O"), ("VR", "a VR"),
    ("WRA", "a WRA"), ("TAG", "a TAG"), ("QR", "a QR"),
    ("8", "an 8"), ("18", "an 18"), ("11", "an 11"), ("2", "a 2"), ("3", "a 3"),
    ("Ocilla", "an Ocilla"), ("Macon", "a Macon"),
])
def test_the_article_follows_how_the_name_is_said(name, want):
    assert a(name) == want


def test_a_share_of_a_company_said_with_a_vowel_sound_reads_an():
    g = Game("18GA", ["Ann", "Bob", "Cy"], 1, (), None)
    assert share_name(g, "SAL_1") == "an SAL share"
    assert share_name(g, "GA_1") == "a GA share"
