"""Issue 29 leftovers: the state mail and the PDF use each rulebook's own words (title data ``words``,
pbm/e18xx/render/words.py), not pbm's "IPO", "market", "depot", "Private auction"; and the game
begins in the phase each book names (18GA/18AL 1.2: "When the game begins, it is Phase 1"; 1848 9.1:
the Starting Phase; 18VA 2: Phase 2 "At Start")."""
from __future__ import annotations

import random

import pytest

from pbm.e18xx.core.game import Game
from pbm.e18xx.render.view import describe
from tests.e18xx.helpers import pick


def head(g: Game) -> str:
    return describe(g).splitlines()[0]


@pytest.mark.parametrize("title, first", [
    ("18GA", "18GA - Stock Round 1: the sale of the Private Companies (rule 3.1) - Phase 1 until the first 2 train "
             "is bought (train limit 4)"),
    ("18AL", "18AL - Stock Round 1: the sale of the Private Companies (rule 3.1) - Phase 1 until the first 2 train "
             "is bought (train limit 4)"),
    ("1848", "1848 - Purchase of the Private Companies (rule 3.1) - Starting Phase until the first 2 train is bought "
             "(train limit 4)"),
    ("18VA", "18VA - Initial Stock Round (rule 4.1) - Phase 2 (train limit 4 (10-share), 2 (5-share))"),
])
def test_the_game_begins_in_the_books_phase_and_round(title, first):
    g = Game(title, ["Ann", "Bob", "Cy"], 1)
    assert head(g) == first
    assert "Private auction" not in describe(g) and "phase 2 (" not in describe(g)


def _played(title: str, seed: int, until) -> Game:
    rng = random.Random(seed)
    g = Game(title, ["Ann", "Bob", "Cy"], seed)
    for _ in range(3000):
        if until(g) or g.finished:
            break
        g.process(pick(rng, g.legal_actions()))
    assert until(g)
    return g


def _a_train_bought(g: Game) -> bool:
    return any(t.owner.startswith("C:") for t in g.state.trains.values())


@pytest.mark.parametrize("title, phase, ipo, pool, bank", [
    ("18GA", "Phase 2 (train limit 4)", "Initial Offering", "Open Market", "from the Initial Offering"),
    ("18AL", "Phase 2 (train limit 4)", "Initial Offering", "Open Market", "from the Initial Offering"),
    ("1848", "2/2+ Phase (train limit 4)", "Bank", "Bank Pool", "from the Bank"),
    ("18VA", "Phase 2 (train limit 4 (10-share), 2 (5-share))", "Treasury", "Pool", "from the Bank"),
])
def test_the_state_and_the_pdf_use_the_books_words(title, phase, ipo, pool, bank):
    from tests.e18xx.test_public_state import pdf_text

    g = _played(title, 3, _a_train_bought)
    text = describe(g)
    assert head(g).endswith(phase), head(g)
    corp = next(ln for ln in text.splitlines() if " trains " in ln and "floated" in ln)
    assert f" {ipo} " in corp and f" {pool} " in corp and " IPO " not in corp and " market " not in corp, corp
    sale = next(ln for ln in text.splitlines() if ln.startswith("Trains for sale: "))
    assert bank in sale and "Depot" not in text, sale
    pdf = pdf_text(g)
    assert ipo in pdf and pool in pdf and bank in pdf and "Depot offers" not in pdf


def test_1848_names_its_phases_as_the_book():
    """1848 9.3: the "3/3+ Phase" begins with the first 3/3+ train."""
    g = _played("1848", 3, lambda g: g.state.phase >= 1)
    assert f"{g.phase.name}/" in head(g) and " Phase (train limit" in head(g), head(g)


@pytest.mark.parametrize("title, said", [
    ("18GA", "Phase 2 begins (was Phase 1): the first 2 train is bought; nothing else changes"),
    ("1848", "2/2+ Phase begins (was Starting Phase): the first 2 train is bought; nothing else changes"),
])
def test_the_books_opening_phase_ends_with_the_first_train_as_an_event(title, said):
    from pbm.e18xx.events import attach, money_of, recorded

    rng = random.Random(3)
    g = Game(title, ["Ann", "Bob", "Cy"], 3)
    attach(g)
    while not _a_train_bought(g):
        g.process(pick(rng, g.legal_actions()))
    texts = [e.text(money_of(g.title)) for e in recorded(g) if e.seq == len(g.actions)]
    assert said in texts, texts


def test_18va_begins_in_phase_2_and_says_no_opening_phase_ended():
    from pbm.e18xx.events import attach, money_of, recorded

    rng = random.Random(3)
    g = Game("18VA", ["Ann", "Bob", "Cy"], 3)
    attach(g)
    while not _a_train_bought(g):
        g.process(pick(rng, g.legal_actions()))
    assert not any("begins (was" in e.text(money_of(g.title)) for e in recorded(g))
