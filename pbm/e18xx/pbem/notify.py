"""Telling the players of an 18xx game (docs/18xx/email.md, "What you receive").

* **Preferences.** Each player chooses by a line in any mail to the game
  (``NOTIFY: every``, ``NOTIFY: turn``, ``NOTIFY: digest``): a mail for every
  change, only when it is their turn, or a daily digest of all their games
  (plus the "your turn" mails).  The moderator sets the game's default
  (``pbm 18xx pacing --notify``).  The mover's receipt always goes.
* **Digests** are sent once a day per address (outbox key
  ``18xx-digest:<address>:<date>``) by ``pbm cycle`` / ``pbm 18xx tick``,
  listing what happened in each game since the last digest.
* **Webhooks** (``pbm 18xx webhook``): a URL per game (every change) or per
  player (their turns), shaped as generic JSON, Discord (``content``) or
  Slack (``text``); queued in the outbox with the mail (kind ``webhook``,
  key ``18xx-hook:<game>:<action count>:<n>``) and posted by its flush with
  the same once-only bookkeeping.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

PREFS = ("every", "turn", "digest")
STYLES = ("json", "discord", "slack")


def preference(game_row, seat: int) -> str:
    from pbm.e18xx.pbem.pacing import settings

    mine = ((game_row.state or {}).get("notify") or {}).get(str(seat))
    return mine or settings(game_row).get("notify", "every")


def set_preference(game_row, seat: int, pref: str) -> None:
    st = dict(game_row.state or {})
    st["notify"] = {**(st.get("notify") or {}), str(seat): pref}
    game_row.state = st


def wants_mail(game_row, seat: int, *, their_turn: bool, finished: bool) -> bool:
    """Whether a change is mailed to this seat now (the digest collects the rest)."""
    if their_turn or finished:
        return True
    return preference(game_row, seat) == "every"


# ----------------------------------------------------------------- the PDF with a state mail (issue 29, item 8)
PDF_PREFS = ("every", "map", "turn", "never")
PDF_WORDS = {
    "every": "with every state mail",
    "map": "when the map has changed since your last PDF",
    "turn": "when it is your turn",
    "never": "never (the text of the mail and the web page have the state)",
    "": "when it is your turn and when the map has changed since your last PDF",
}


def pdf_preference(game_row, seat: int) -> str:
    """A seat's choice (``PDF: every | map | turn | never``), or "" for the default: on the seat's turn
    and when the map changed since the PDF it got last."""
    return str(((game_row.state or {}).get("pdf") or {}).get(str(seat), ""))


def set_pdf_preference(game_row, seat: int, pref: str) -> None:
    st = dict(game_row.state or {})
    st["pdf"] = {**(st.get("pdf") or {}), str(seat): pref}
    game_row.state = st


def map_signature(game) -> str:
    """A short fingerprint of the map: the tiles laid (with rotations) and every station token."""
    import hashlib

    m = game.state.map
    tiles = sorted((c, pl.tile_id, pl.rotation) for c, pl in m.placed.items() if pl.tile_id)
    tokens = sorted((str(k), [str(t) for t in v]) for k, v in m.tokens.items() if any(v))
    extra = sorted((str(k), [str(t) for t in v]) for k, v in getattr(m, "extra_tokens", {}).items() if v)
    return hashlib.sha256(repr((tiles, tokens, extra)).encode()).hexdigest()[:16]


def wants_pdf(game_row, seat: int, *, turn: bool, finished: bool, signature: str) -> bool:
    """Whether this seat's state mail carries the PDF now: its choice, the default being its turn or a map
    changed since its last PDF.  The last mail of a game carries it unless the seat chose ``never``."""
    pref = pdf_preference(game_row, seat)
    if pref == "never":
        return False
    if pref == "every" or finished:
        return True
    last = ((game_row.state or {}).get("pdf_map") or {}).get(str(seat))
    changed = last != signature
    if pref == "map":
        return changed
    if pref == "turn":
        return turn
    return turn or changed


def pdf_sent(game_row, seat: int, signature: str, seq: int | None = None) -> None:
    """Remember the map a seat's last PDF showed (and, with ``seq``, how many actions it showed)."""
    st = dict(game_row.state or {})
    st["pdf_map"] = {**(st.get("pdf_map") or {}), str(seat): signature}
    if seq is not None:
        st["pdf_seq"] = {**(st.get("pdf_seq") or {}), str(seat): seq}
    game_row.state = st


def pdf_since(game_row, seat: int) -> int | None:
    """How many actions the seat's previous PDF showed (None before its first): its next PDF rings the
    hexes changed since (render/pdf.py ``changed_hexes``)."""
    seq = ((game_row.state or {}).get("pdf_seq") or {}).get(str(seat))
    return int(seq) if isinstance(seq, int) else None


def pdf_line(game_row, seat: int, attached: bool, page: bool = False) -> str:
    """What a state mail says of its PDF: whether it is attached, when the seat gets one, how to change it
    (and, without a PDF, that the game's web page has the map when the moderator serves one)."""
    pref = pdf_preference(game_row, seat)
    state = "The PDF of the state is attached" if attached else (
        "No PDF with this mail (the game's web page above has the map)" if page else "No PDF with this mail")
    when = "you get none (the text of the mail and the web page have the state)" if pref == "never" else \
        f"you get it {PDF_WORDS[pref]}"  # not "you get it never" (play-through s14)
    return (f"{state}; {when}. To change that, send a mail with the line "
            f"'PDF: every', 'PDF: map', 'PDF: turn' or 'PDF: never'.")


# ----------------------------------------------------------------- webhooks
def hooks(game_row) -> list[dict[str, Any]]:
    return list((game_row.options or {}).get("webhooks") or [])


def add_hook(game_row, url: str, style: str = "json", seat: int | None = None) -> list[dict[str, Any]]:
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}")
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"a webhook address must be an http(s) URL, not {url!r}")
    new = hooks(game_row) + [{"url": url, "style": style, "seat": seat}]
    game_row.options = {**(game_row.options or {}), "webhooks": new}
    return new


def remove_hooks(game_row) -> None:
    game_row.options = {**(game_row.options or {}), "webhooks": []}


def event(session: Session, game_row, game, applied: list | None = None) -> dict[str, Any]:
    """The change as data: game, action count, state code, who must act, what happened."""
    from pbm.e18xx.pbem.games import players, via_note, who_acts
    from pbm.e18xx.pbem.moves import format_action
    from pbm.e18xx.pbem.pacing import state_code

    count = len(game.actions)
    seat_of = {p.name: p.number for p in players(session, game_row)}
    return {
        "game": game_row.name, "title": game_row.title, "action": count, "code": state_code(game_row, count),
        "finished": bool(game.finished),
        "to_act": None if game.finished else who_acts(game),
        "acting_seats": [] if game.finished else [seat_of.get(p) for p in game.acting_players()],
        "happened": [f"#{a.seq} {a.player}: {format_action(a.action)}{via_note(a.via)}" for a in applied or []],
        "events": _events_of(game, {a.seq for a in applied or []}),
    }


def _events_of(game, seqs: set[int]) -> list[dict[str, Any]]:
    """The events (pbm.e18xx.events) of the actions ``seqs``: kind, fields and text of each."""
    from pbm.e18xx.events import money_of, recorded

    money = money_of(game.title)
    return [e.to_dict(money) for e in recorded(game) if e.seq in seqs]


def shaped(style: str, ev: dict[str, Any]) -> dict[str, Any]:
    head = f"[{ev['game']}] " + ("game over" if ev["finished"] else f"{ev['to_act']} to act")
    text = "\n".join([head + f" (action {ev['action']})"] + ev["happened"][-5:]
                     + [f"  {e['text']}" for e in ev.get("events", [])[-8:]])
    if style == "discord":
        return {"content": text[:1900], "username": "pbm"}
    if style == "slack":
        return {"text": text}
    return {"event": "18xx.state", **ev}


def queue_hooks(session: Session, game_row, game, applied: list | None = None) -> int:
    """Queue the webhooks of this change (once each: keyed by game, action count and hook)."""
    from pbm.mail.outbox import queue_webhook

    hs = hooks(game_row)
    if not hs:
        return 0
    ev = event(session, game_row, game, applied)
    n = 0
    for i, h in enumerate(hs):
        seat = h.get("seat")
        if seat is not None and not (ev["finished"] or int(seat) in ev["acting_seats"]):
            continue
        queue_webhook(session, f"18xx-hook:{game_row.id}:{ev['action']}:{i}", h["url"], shaped(h["style"], ev),
                      game=game_row)
        n += 1
    return n


# ----------------------------------------------------------------- digests
def _to_act(game, seat) -> str:
    """Whose turn it is in a game, for its digest (issue 29): "To act: Bob", "(you)" when it is the reader's."""
    from pbm.e18xx.pbem.games import who_acts

    if game.finished:
        return "The game is over."
    return f"To act: {who_acts(game)}" + (" (you)" if seat.name in game.acting_players() else "")


def _caused(game) -> dict[int, list[str]]:
    """Action number -> the texts of its events (pbm.e18xx.events), for a digest."""
    from pbm.e18xx.events import money_of, recorded

    money = money_of(game.title)
    out: dict[int, list[str]] = {}
    for e in recorded(game):
        out.setdefault(e.seq, []).append(e.text(money))
    return out


def digests(session: Session, sender: str, now: datetime) -> list[str]:
    """One digest per address and day, for the seats that chose ``digest``; returns what was queued."""
    from sqlalchemy import select

    from pbm.mail import outbox
    from pbm.mail.compose import make_message
    from pbm.mail.message import clean_address
    from pbm.models import Game as GameRow

    from pbm.e18xx.pbem.eventlines import action_line
    from pbm.e18xx.pbem.games import action_rows, is_18xx, players, replay_rows, via_note
    from pbm.e18xx.pbem.pacing import seen_line

    day = now.date().isoformat()
    per_addr: dict[str, list[tuple[Any, Any, list[Any]]]] = {}
    for row in session.scalars(select(GameRow).order_by(GameRow.id)):
        if not is_18xx(row):
            continue
        rows = None
        for p in players(session, row):
            addr = clean_address(p.email or "")
            if not addr or preference(row, p.number) != "digest":
                continue
            rows = rows if rows is not None else action_rows(session, row)
            last = int(((row.state or {}).get("digested") or {}).get(str(p.number), 0))
            new = [r for r in rows if r.seq > last]
            if new:
                per_addr.setdefault(addr.lower(), []).append((row, p, new))
    done = []
    from pbm.models import OutboxMessage

    for addr, items in sorted(per_addr.items()):
        key = f"18xx-digest:{addr}:{day}"
        if session.scalar(select(OutboxMessage.id).where(OutboxMessage.key == key)) is not None:
            continue  # today's digest went already: the rest waits for tomorrow's
        lines = [f"Your daily digest ({day}):", ""]
        for row, p, new in items:
            names = {q.number: q.name for q in players(session, row)}
            shown = new[-30:]
            lines.append(f"{row.title} game {row.name} (you are player {p.number}, {p.name}): "
                         f"{len(new)} new action(s)" + (f", the last {len(shown)} below" if len(shown) < len(new)
                                                       else "") + f"; now {seen_line(row, new[-1].seq)}")
            game = replay_rows(session, row).game
            lines.append(f"  {_to_act(game, p)}")
            caused = _caused(game)  # what each action caused, under it (issue 29 item 2)
            for r in shown:
                # the mails' words: who for which company, and a share's source ("#63 Ann for CAR:
                # run auto", "#12 Bob: buy CoG ipo"); its price is in the event under it
                lines.append(f"  {action_line(r, names, game)}{via_note(r.action.get('_via'))}")
                lines += [f"      {text}" for text in caused.get(r.seq, [])]
            lines.append("")
        lines += ["You get a mail at once when it is your turn. To change: a mail to the game with "
                  "NOTIFY: every | turn | digest.", "", "-- ", "pbm (automatic message)"]
        msg = make_message(sender, [addr], f"pbm daily digest {day}", "\n".join(lines) + "\n")
        outbox.queue(session, key, "digest", [addr], msg)
        for row, p, new in items:
            st = dict(row.state or {})
            st["digested"] = {**(st.get("digested") or {}), str(p.number): new[-1].seq}
            row.state = st
        done.append(f"digest to {addr}")
    return done
