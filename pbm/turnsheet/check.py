"""Checking a sheet's orders against the start-of-turn state (§10).

The engine's validator (``pbm.cr.validate.validate``) is the authority; this
module turns railroad numbers into codes first (§10) and gives each problem
the sheet line it came from.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm.cr.orders import Orders, Problem, copy_orders
from pbm.cr.keptview import start_of_turn_view
from pbm.cr.queries import collector_paused, release_plain
from pbm.models import Game, Player
from pbm.cr.validate import validate
from pbm.turnsheet.facts import railroad_numbers
from pbm.turnsheet.parse import ParsedSheet


def resolve_numbers(session: Session, game: Game, orders: Orders, numbers: dict[str, str] | None = None
                    ) -> list[Problem]:
    """§10: railroad numbers may stand for codes; turn them into codes everywhere (``numbers``:
    :func:`~pbm.turnsheet.facts.railroad_numbers`, read here if not given)."""
    if numbers is None:
        numbers = railroad_numbers(session, game)
    problems: list[Problem] = []

    def code(value: str | None, where: str) -> str | None:
        if value is not None and value.isascii() and value.isdigit():
            if value in numbers:
                return numbers[value]
            problems.append(Problem(where=where, message=f"there is no railroad number {value}",
                                    allowed="a railroad code or the number printed beside it"))
        return value

    for s in orders.stock:
        s.railroad = code(s.railroad, f"stock {s.priority}") or s.railroad
    for r in orders.railroads:
        r.railroad = code(r.railroad, f"{r.railroad} orders") or r.railroad
        for w in r.rate_wars:
            w.target = code(w.target, f"{r.railroad} rate war") or w.target
    if orders.control:
        orders.control = [code(c, "control") for c in orders.control]
    orders.resign = [code(c, "resign") or c for c in orders.resign]
    if orders.merge:
        orders.merge = (code(orders.merge[0], "merge") or "", code(orders.merge[1], "merge") or "")
    orders.spy_railroad = code(orders.spy_railroad, "spy railroad")
    for a in orders.pc_actions:
        a.railroad = code(a.railroad, f"PC {a.pc}")
    # two blocks for one railroad (by code and by number): the later-named fields win
    merged: dict[str, object] = {}
    for r in orders.railroads:
        merged.setdefault(r.railroad, r)
    orders.railroads = sorted(merged.values(), key=lambda r: r.railroad)  # type: ignore[arg-type, return-value]
    return problems


def check(session: Session, game: Game, player: Player, orders: Orders,
          parsed: ParsedSheet | None = None) -> tuple[Orders, list[Problem]]:
    """The orders that will be resolved and every problem, each with its sheet line when known.

    The game is read once, into a plain view (:func:`~pbm.cr.queries.load_plain`), for the railroad
    numbers and the validator both; on SQLite the view is kept for the next sheet of the same game
    while the database proves that none of its rows changed (:mod:`pbm.cr.keptview`)."""
    orders = copy_orders(orders)
    with collector_paused():  # the view's rows live only until release_plain (see there)
        view, kept = start_of_turn_view(session, game)
        try:
            # railroad_numbers, from the rows just read (all railroads of the game, by id)
            numbers = {str(r.number): r.code for r in view.railroads.values()}
            problems = resolve_numbers(session, game, orders, numbers)
            orders, found = validate(session, game, player, orders, view=view)
        finally:
            if not kept:
                release_plain(view)  # no one reads it again: its rows go now, by reference counting
        del view
    problems.extend(found)
    if parsed is not None:
        for p in problems:
            if p.line is None and parsed.source == "text":
                p.line = parsed.line_of(p.where)
    return orders, problems
