"""The typed event log of an 18xx game's page (issue 33; the events of issue 29 item 2).

Newest first, like the action log: one item per action that caused something, linking to the
page as it was after that action, with the events under it in plain words.  Built in Python
(a late game has hundreds of events) and every text escaped; in an anonymous game the
players' names become "Player N" (``name``)."""
from __future__ import annotations

from typing import Any, Callable

from markupsafe import Markup, escape


def event_log(game: Any, texts_by_seq: dict[int, str], href: Callable[[int], str], at: int,
              name: Callable[[Any], str]) -> tuple[Markup, int]:
    """(HTML of the ``<li>`` items, how many events) of the events up to action ``at``."""
    from pbm.e18xx.events import money_of, recorded

    money = money_of(game.title)
    groups: dict[int, list[Any]] = {}
    for e in recorded(game):
        if e.seq <= at:
            groups.setdefault(e.seq, []).append(e)
    # an action's events never change once made: their HTML is kept with the replay (the server keeps
    # a game's replay between requests), per way of naming the players
    rec = getattr(game, "recorder", None)
    cache: dict[Any, str] = rec.__dict__.setdefault("_web_items", {}) if rec is not None else {}
    names = getattr(name, "public", None) if getattr(name, "anonymous", False) else None
    nkey = tuple(sorted(names.items())) if isinstance(names, dict) else None
    items = []
    for seq in sorted(groups, reverse=True):
        mark = ' class="current" aria-current="step"' if seq == at else ""
        key = (seq, len(groups[seq]), nkey)
        inner = cache.get(key)
        if inner is None:
            inner = cache[key] = "".join(f'<li class="ev ev-{escape(e.kind)}">{escape(name(e.text(money)))}</li>'
                                         for e in groups[seq])
        action = texts_by_seq.get(seq, "")
        items.append(f'<li data-action="{seq}"{mark}><a href="{escape(href(seq))}" title="the game after action '
                     f'{seq}">#{seq}</a> {escape(name(action))}<ul>{inner}</ul></li>')
    return Markup("\n".join(items)), sum(len(v) for v in groups.values())
