"""A title's own words for the things every title has (issue 29: mails and PDF use the rulebook's
words, never pbm's or the engine's): where new shares and trains are bought, where used ones lie,
what the sale of the private companies is called, how a phase is named and what the game begins
in. Title data ``words`` (titles/<title>/title.json); a title without them reads pbm's plain words."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbm.e18xx.core.title import PLAIN_WORDS

if TYPE_CHECKING:  # pragma: no cover
    from pbm.e18xx.core.protocol import Engine as Game  # the game as a protocol: no import circle with core.game

PLAIN = PLAIN_WORDS  # pbm's words where a title has none (core.title)


def word(game: "Game", key: str) -> str:
    """The title's word for ``key`` (see PLAIN)."""
    return game.title.word(key)


def no_train_bought(game: "Game") -> bool:
    """No train has left the bank yet (one set aside for a private, 18GA's OSR, is not bought)."""
    return all(t.owner in ("depot", "N") for t in game.state.trains.values())


def phase_words(game: "Game") -> str:
    """The phase as the book names it: ``Phase 3``, 1848's ``3/3+ Phase``; before the first train is
    bought, the phase the book begins the game in where it is not the first train's (18GA/18AL 1.2:
    "When the game begins, it is Phase 1"; 1848 9.1: the Starting Phase), with the next one's start."""
    words: dict[str, Any] = game.title.data.get("words") or {}
    start = words.get("start_phase")
    if start and game.state.phase == 0 and no_train_bought(game):
        first = game.title.trains[0].name
        return f"{start} until the first {first} train is bought"
    return phase_name(game, game.state.phase)


def phase_name(game: "Game", index: int) -> str:
    """Phase ``index`` of the title as the book names it: ``Phase 3``, 1848's ``3/3+ Phase``."""
    return game.title.phase_label(index)


def round_words(game: "Game") -> str:
    """The round as the book names it: the sale of the privates by the title's name for it."""
    s = game.state
    r = s.round
    if r.kind == "auction":
        return word(game, "private_sale")
    if r.kind == "stock":
        return f"Stock Round {s.turn}"
    return f"Operating Round {s.turn}.{r.num} of {s.ors_in_set}"
