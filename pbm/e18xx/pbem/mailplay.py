"""18xx moves by email (docs/18xx/email.md).

A player's mail holds a small header and moves in the move language
(:mod:`pbm.e18xx.pbem.moves`), one per line::

    GAME: ga-1
    PLAYER: 2
    SECRET: K7QM-2XRP-HW4T
    par W&A 90
    buy CoG ipo

:func:`claim` recognises such a mail (its GAME line names an 18xx game in
the database); :func:`handle` authenticates it by the secret (never by
From:), applies the moves all-or-nothing (:func:`pbm.e18xx.pbem.games.apply`) and
answers: a refusal gives the reason and what is legal now; an accepted mail
sends everyone the new state (text and PDF), the next to act with "your turn"
in the subject.  Ingestion (:mod:`pbm.mail.ingest`) stores the raw mail first
and filters bounces and loops before this module is called.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, object_session

from pbm.mail import outbox
from pbm.mail.compose import make_message, one_line
from pbm.mail.message import clean_address, contents_once

from pbm.e18xx.core.title import load_title
from pbm.e18xx.pbem.moves import action_words, format_action, printed_tile
from pbm.e18xx.pbem.games import (Applied, Replayed, answer_offer, apply, is_18xx, legal_lines, offer_answer, players,
                                  replay_rows, via_note, who_acts)

_HEADER = re.compile(r"^\s*(?:(game|player|secret|seen|away|notify|pdf|autorun|auto|for)\s*[:=]|(game|player|secret)\s)"
                     r"\s*(.*?)\s*$", re.IGNORECASE)
_NAME = re.compile(r"^(?=.*[a-z])[A-Z][^\W\d_]*([ .'-]+[A-Z][^\W\d_]*){0,2}\.?$")
_QUOTED = re.compile(r"^(\s*>)+ ?")
_SIGN_OFF = re.compile(r"^(thanks|thank you|thx|cheers|regards|best|best wishes|kind regards|warm regards|"
                       r"sincerely|yours|yours truly|all the best|greetings|ta|bye|love|sent from my)\b[\s,.!:-]*",
                       re.IGNORECASE)
_GREETING = re.compile(r"^(hi|hello|hey|hiya|howdy|dear|greetings|good (morning|afternoon|evening|day))\b"
                       r"[^\n]{0,40}$", re.IGNORECASE)
_STOP = re.compile(r"^(-- ?|-{3,}\s*original message\s*-{3,}|_{5,}|on .{1,200} wrote:)$", re.IGNORECASE)


@dataclass
class MoveMail:
    """What a mail says: header values and the move text (header lines blanked, so line numbers hold)."""

    game: str = ""
    player: str = ""
    secret: str = ""
    seen: str = ""  # "212 K4QF7M": the action number (and state code) the moves were written against
    away: str = ""  # "2026-12-01 2026-12-05" or "none"
    notify: str = ""  # every | turn | digest
    pdf: str = ""  # every | map | turn | never: when my state mails carry the PDF (issue 29, item 8)
    auto: str = ""  # on | off: the computer may move for me on a time-out (operating rounds too)
    for_seat: str = ""  # FOR: 2 - a proxy moves for that (absent) seat
    autorun: str = ""  # on | off: standing order "run auto and pay out every OR"
    moves: str = ""
    where: str = "message body"
    ignored: list = None  # prose after the moves: [(line, text)] (docs/mail.md)
    greeting: list = None  # a greeting above the moves ("Hi all,"): [(line, text)]


def _is_move_line(text: str) -> bool:
    """Does the line start with a move word (or an answer to an offer)?  A mistyped move still does."""
    from pbm.e18xx.pbem.games import offer_answer
    from pbm.e18xx.pbem.moves import MoveError, parse_line

    if offer_answer(text) is not None:
        return True
    try:
        parse_line(text, "x")
    except MoveError as exc:
        return "unknown move" not in str(exc)
    except Exception:
        return True
    return True


def _near_move_word(text: str) -> bool:
    import difflib

    from pbm.e18xx.pbem.moves import USAGE

    words = text.split()
    word = words[0].lower() if words else ""
    return bool(word) and bool(difflib.get_close_matches(word, [*USAGE, "accept", "decline"], 1, 0.66))


def _only_sign_off(kept: list[str]) -> bool:
    """Is every written line of ``kept`` a sign-off ("Thanks, Ada") or a name?"""
    texts = [ln.split("#", 1)[0].strip() for ln in kept]
    return all(_SIGN_OFF.match(t) or (_NAME.match(t) and not _near_move_word(t)) for t in texts if t)


def _cut_prose(kept: list[str]) -> list[tuple[int, str]]:
    """Blank the prose after the last move in ``kept`` (in place) and return it as [(line, text)].

    The moves end at a sign-off ("Thanks, Ada"), or at a line after a blank line that neither
    starts with a move word nor is a typing slip of one (a name, a remark); an unknown word right
    under a move, or one a move follows, stays a move and is refused with its line (docs/mail.md)."""
    last = max((i for i, ln in enumerate(kept) if ln.strip() and _is_move_line(ln)), default=-1)
    if last < 0 and not _only_sign_off(kept):
        return []  # no move at all: the lines are read as moves and refused by name (play-through s11)
    blank = False
    for i in range(last + 1, len(kept)):
        text = kept[i].split("#", 1)[0].strip()
        if not text:
            blank = True
            continue
        name = i == len(kept) - 1 - next((k for k, ln in enumerate(reversed(kept)) if ln.strip()), 0) and \
            _NAME.match(text) and not _near_move_word(text)  # "Ada" signed under the moves
        if _SIGN_OFF.match(text) or name or (blank and not _near_move_word(text)):
            tail = [(n + 1, kept[n].strip()) for n in range(i, len(kept)) if kept[n].strip()]
            for n in range(i, len(kept)):
                kept[n] = ""
            return tail
        blank = False
    return []


def _cut_greeting(kept: list[str]) -> list[tuple[int, str]]:
    """Blank a greeting above the first move in ``kept`` (in place: "Hi all,", "Hello Bob,", "Dear
    fellow players,") and return it as [(line, text)]; only when every written line above the first
    move is a greeting (play-through s16b, 18AL mail 8: "Hi all," was refused "unknown move 'Hi'")."""
    first = next((i for i, ln in enumerate(kept) if ln.strip() and _is_move_line(ln)), None)
    above = [(i, kept[i].strip()) for i in range(first or 0) if kept[i].strip()]
    if not first or not above or not all(_GREETING.match(t.split("#", 1)[0].strip()) for _, t in above):
        return []
    for i, _ in above:
        kept[i] = ""
    return [(i + 1, t) for i, t in above]


def read_text(text: str, where: str = "message body") -> MoveMail:
    """Split a mail's text into the header values and the moves.

    Quoted lines (``>``) are ignored and reading stops at a signature
    (``-- ``) or a quoted original message, so a reply to our mail works; the
    GAME, PLAYER and SEEN lines of the quoted mail count when the reply has none.
    Prose after the moves (a sign-off, a name) is set aside as ``ignored``."""
    out = MoveMail(where=where)
    kept: list[str] = []
    quoted: dict[str, str] = {}
    stopped = False
    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        if stopped or stripped.startswith(">"):
            m = _HEADER.match(_QUOTED.sub("", line))
            if m and (m.group(1) or m.group(2)).lower() in ("game", "player", "seen"):
                quoted.setdefault((m.group(1) or m.group(2)).lower(), m.group(3))
            if not stopped:
                kept.append("")
            continue
        if _STOP.match(stripped) or _STOP.match(line.rstrip("\n")):
            stopped = True
            continue
        m = _HEADER.match(line)
        if m:
            key, value = (m.group(1) or m.group(2)).lower(), m.group(3)
            key = "for_seat" if key == "for" else key
            if not getattr(out, key):
                setattr(out, key, value)
            kept.append("")
            continue
        kept.append(line)
    if not out.seen.strip() and quoted.get("seen"):  # a top-posted reply: the SEEN line of the mail it quotes
        out.seen = quoted["seen"]
    if not out.game.strip() and quoted.get("game"):
        out.game = quoted["game"]
        if not out.player.strip():
            out.player = quoted.get("player", "")
    out.greeting = _cut_greeting(kept)
    out.ignored = _cut_prose(kept)
    out.moves = "\n".join(kept)
    return out


@dataclass
class Claim:
    game: object  # pbm.models.Game, or None: the GAME line names no game, and the mail is meant for 18xx ``meant``
    mail: MoveMail
    meant: tuple = ()  # the 18xx games a mail with a misspelt GAME line was likely meant for (issue 29)


def _meant(session: Session, msg, wanted: str) -> tuple:
    """The 18xx games a mail whose GAME line names no game was meant for: the games named most like it,
    or else the open games its sender plays in; () when those are not all 18xx games (a turnsheet's)."""
    import difflib

    from pbm.mail.message import sender_address
    from pbm.models import Game, Player

    games = list(session.scalars(select(Game).order_by(Game.id)))
    close = set(difflib.get_close_matches(wanted, [g.name.lower() for g in games], 3, 0.6))
    cand = [g for g in games if g.name.lower() in close]
    if not cand:
        addr = (sender_address(msg) or "").lower()
        ids = {p.game_id for p in session.scalars(select(Player)) if addr and clean_address(p.email or "").lower() == addr}
        cand = [g for g in games if g.id in ids and g.status == "open"]
    if not cand or not all(is_18xx(g) for g in cand):
        return ()
    return tuple(cand)


def claim(session: Session, msg) -> Claim | None:
    """The 18xx game a mail is for (its GAME line names one), or None (not ours: a turnsheet, say)."""
    from pbm.models import Game

    for cand in contents_once(msg).candidates:
        if cand.text is None:
            continue
        mm = read_text(cand.text, cand.name)
        if not mm.game:
            continue
        wanted = mm.game.strip().lower()
        row = next((g for g in session.scalars(select(Game).order_by(Game.id)) if g.name.lower() == wanted), None)
        if row is not None and is_18xx(row):
            _moves_in_subject(mm, msg)
            return Claim(row, mm)
        if row is None:
            meant = _meant(session, msg, wanted)
            if meant:
                return Claim(None, mm, meant)
        return None
    return None


def _moves_in_subject(mm: MoveMail, msg) -> None:
    """A mail whose body holds no move but whose Subject is moves (``Subject: pass, run auto``)
    is read from its Subject (issue 29 item 9); a Subject that is not moves is left alone."""
    from pbm.e18xx.pbem.moves import MoveError, parse_moves

    if mm.moves.strip() or mm.away or mm.notify or mm.pdf or mm.auto or mm.autorun:
        return
    subject = str(msg.get("Subject") or "").strip()
    subject = re.sub(r"^(\s*(re|fwd?|aw|sv)\s*:\s*)+", "", subject, flags=re.IGNORECASE)
    subject = re.sub(r"^\[[^\]]{1,60}\]\s*", "", subject)
    if not subject or len(subject) > 200:
        return
    if subject.lower() == "undo":  # 'undo' stands alone: taken back by handle (pbem/selfundo.py)
        mm.moves, mm.where = subject, "subject"
        return
    from pbm.e18xx.pbem.games import offer_answer

    for text in _subject_tails(subject):
        if offer_answer(text):  # 'Re: [g] Ann for L&N to act - accept NDY': the answer to an offer (s14b #81)
            mm.moves, mm.where = text, "subject"
            return
        try:
            found = parse_moves(text, "x")
        except MoveError:
            continue
        if found:
            mm.moves, mm.where = text, "subject"
            return


def _subject_tails(subject: str) -> list[str]:
    """The Subject, then what follows its last ' - ' or ': ' - a reply to "Your turn: Di" with the
    move added (``Your turn: Di - pass``) is read as that move (play-through s11 finding 12)."""
    out = [subject]
    for sep in (" - ", ": "):
        if sep in subject:
            out.append(subject.rsplit(sep, 1)[1].strip())
    return [t for t in out if t]


# ----------------------------------------------------------------- texts
def reply_header(game_row, number: int, count: int | None = None) -> str:
    from pbm.e18xx.pbem.pacing import seen_line

    seen = "" if count is None else "\n" + seen_line(game_row, count)
    return f"GAME: {game_row.name}\nPLAYER: {number}{seen}\nSECRET:"


def state_text(session: Session, game_row, rep: Replayed, *, legal: bool = True, last: int = 12) -> str:
    """The state for the terminal and the mails: whose turn, last moves, players, companies, chart, map."""
    from pbm.e18xx.pbem.games import action_rows
    from pbm.e18xx.render.view import describe

    g = rep.game
    rows = action_rows(session, game_row)
    names = {p.number: p.name for p in players(session, game_row)}
    from pbm.e18xx.pbem.pacing import seen_line, status_lines

    lines = [f"{game_row.title} game {game_row.name} - {len(rows)} action(s) so far ({seen_line(game_row, len(rows))})"]
    if g.finished:
        from pbm.e18xx.events import end_reason_words
        lines.append(f"GAME OVER: {end_reason_words(g)}. Result: " +
                     ", ".join(f"{n} {g.title.money(v)}" for n, v in sorted(g.result().items(), key=lambda kv: -kv[1])))
    else:
        lines.append(f"To act: {who_acts(g)}")
        lines += status_lines(session, game_row, g)[:1]
        from pbm.e18xx.pbem.games import offer_waiting, pending_offer

        offer = pending_offer(game_row)
        if offer is not None:  # 18GA 3.2: the sale waits for its owner
            lines.append(offer_waiting(g, offer))  # the seller company of a train too (issue 29)
    if rows:
        from pbm.e18xx.core import actions as A

        lines += ["", "Last moves:"]
        for r in rows[-last:]:
            via = via_note(r.action.get("_via"))
            ent, text = action_words(g, A.action_from_dict(r.action), r.seq)  # a private's move: its company's
            who = names.get(r.player_number or 0, "-")
            ent = "" if ent == who else f" for {ent}"
            lines.append(f"  #{r.seq:<4} {who}{ent}: {text}{via}")
    lines += ["", describe(g, name=game_row.name)]
    if legal and not g.finished:
        lines += ["", f"{who_acts(g)} may:"] + [f"  {x}" for x in legal_lines(g)]
    return "\n".join(lines)


def _proxy_moves(game) -> list[str]:
    """For the proxy of the seat to act: what that seat may do, as its own mail lists it (the
    company, its train duty, the moves, the turn's outline), to write after 'FOR: n'."""
    from pbm.e18xx.pbem.intent import turn_outline

    out = _acting_company(game) + _train_duty(game)
    out.append(f"  {who_acts(game)} may (write it after the FOR line):")
    out += [f"    {x}" for x in legal_lines(game, limit=12)]
    outline = turn_outline(game)
    return out + ([f"  {x}" for x in outline] if outline else whole_turn_lines(game))


def summary_lines(game, rows: list, seat, *, turn: bool, orders: list[str] | None = None) -> list[str]:
    """The phone-sized top of a state mail: whose turn, what changed since your last move,
    your cash and shares, and (on your turn) the legal moves in the move language."""
    from pbm.e18xx.core import actions as A

    name = seat.name
    s = game.state
    out = ["In short:", f"  To act: {'nobody - the game is over' if game.finished else who_acts(game)}"
           + (" (YOU)" if turn else "")]
    mine = [r.seq for r in rows if r.player_number == seat.number and r.action.get("_via") in (None, "added")]
    since = [r for r in rows if r.seq > (mine[-1] if mine else 0)]
    if since:
        out.append(f"  Since your last move: {len(since)} action(s)" + ("" if len(since) <= 6 else ", the last 6:"))
        for r in since[-6:]:
            ent, text = action_words(game, A.action_from_dict(r.action), r.seq)
            out.append(f"    #{r.seq} {ent}: {text}{via_note(r.action.get('_via'))}")
    held = []
    for corp in sorted(s.corporations):
        try:
            pct = game.percent_of(f"P:{name}", corp)
        except Exception:  # noqa: BLE001 - a title without percentages: certificates only
            pct = 0
        if pct:
            held.append(f"{corp} {pct}%")
    cash = s.cash.get(f"P:{name}", 0)
    try:  # the cash a standing bid holds (3.1(b)): "$600 ($130 of it set aside for bids)" (play-through s12)
        from pbm.e18xx.render.public import bids_held
        aside = bids_held(game, name) if getattr(s.round, "bids", None) else 0
    except Exception:  # noqa: BLE001 - a title without bids held
        aside = 0
    money = game.title.money
    out.append(f"  You: {money(cash)}" + (f" ({money(aside)} of it set aside for bids)" if aside else "")
               + (f"; shares: {', '.join(held)}" if held else "; no shares"))
    for o in orders or []:
        out.append(f"  Standing order: {o}")
    if turn and not game.finished:
        from pbm.e18xx.pbem.intent import turn_outline

        out += _acting_company(game)
        out += _train_duty(game)
        out.append("  You may:")
        out += [f"    {x}" for x in legal_lines(game, limit=12)]
        outline = turn_outline(game)  # the company's whole turn and a mail of it (issue 29)
        out += [f"  {x}" for x in outline] if outline else whole_turn_lines(game)
    out.append("  (The full state follows; the PDF, when it is attached, has the map and charts.)")
    return out + [""]


def end_words(game) -> str:
    """Why ``game`` ended, in words (``pbm.e18xx.events.end_words``)."""
    from pbm.e18xx.events import end_words as words

    return words(game.state.end_reason)


def _outline(game) -> list[str]:
    """The whole turn to write, after a refusal's list of the open step's moves: a refused company turn
    listed only that step's moves ('pass' in the tile step) and not the station, run and train steps the
    turn mail had shown (18VA s17 mail 25)."""
    if game is None or game.finished:
        return []
    from pbm.e18xx.pbem.intent import turn_outline

    outline = turn_outline(game)
    return [f"  {x}" for x in outline] if outline else whole_turn_lines(game)


def whole_turn_lines(game) -> list[str]:
    """How a whole turn is written in one mail, for the player to act (issue 29 item 1): a company's
    turn, or a stock turn; the list above gives only the open step's moves (play-through s12, mail
    #32: GA's 'lay 5 D10 1 / buy 2 train' left the turn open - 'done' was said in no mail - and took
    a second mail)."""
    s = game.state
    ent = game.current_entity()
    op = game._or_operator() if s.round.kind == "operating" else None
    if op is not None and ent in s.corporations and ent != op:
        # a company acting inside another's turn (over its train limit: 4.2.5(g)) writes that one
        # move, not a whole turn (play-through s13v F2: W&A's discard was told 'lay / token / run ...')
        first = next((x.split("#")[0].strip() for x in legal_lines(game) if x.strip()), "")
        return [f"  {ent} acts inside {op}'s turn: write that move in this mail"
                + (f", e.g. '{first}'" if first else "") + "; it is all this mail needs."]
    if s.round.kind == "operating" and ent in s.corporations:
        return [f"  Write {ent}'s whole turn in this one mail, one move a line in the rulebook's order (a step left "
                "out is skipped where the rules allow); the mail ends the turn (as if 'done'), unless its last "
                "line is 'more', e.g.:",
                "    lay <tile> <hex> <rotation> / token <city> / run auto (or: run 2 <stop> <stop>) / payout (or: "
                "withhold) / buy train <type>"]
    if s.round.kind == "stock":
        return ["  Write your whole stock turn in this one mail (sales, one purchase): the mail ends your turn "
                "(as if 'done'), unless its last line is 'more'."]
    return []


def _acting_company(game) -> list[str]:
    """The company the mail's turn is written for, in one line: its treasury, trains and train
    limit (play-through s12: the 'In short' block showed the president's cash, not the company's)."""
    s = game.state
    cur = game.current_entity()
    if s.round.kind != "operating" or cur not in s.corporations:
        return []
    labels: dict[str, int] = {}
    old = False
    for t in game.corp_trains(cur):
        # an obsolete train says so, as the state's table does (play-through s12v, OR 7.3: "trains 4
        # (limit 2)" while the state said "4 (obsolete)": it runs once more, then the company needs one)
        label = game.train_label(t) + (" (obsolete)" if getattr(s.trains.get(t), "obsolete", False) else "")
        old = old or label.endswith("(obsolete)")
        labels[label] = labels.get(label, 0) + 1
    trains = ", ".join(f"{n}x {k}" if n > 1 else k for k, n in labels.items())
    cash = s.cash.get(f"C:{cur}", 0)
    return [f"  {cur}: {game.title.money(cash)} in its treasury; "
            + (f"trains {trains}" if trains else "no train") + f" (limit {game.train_limit(cur)})"
            + ("; an obsolete train runs this turn, then leaves" if old else "")]


def _train_duty(game) -> list[str]:
    """On a company's turn, when it owns no train and must buy one (1848 8.1, 18xx 4.2.5 and the
    like): say so before its moves, with its cash and the bank's cheapest train (play-through s12:
    NSW's turn after its 3s rusted said nothing of it)."""
    s = game.state
    corp = game.current_entity()
    if s.round.kind != "operating" or corp not in s.corporations:
        return []
    try:
        if not game._must_buy_train(corp):
            return []
        prices = [s.trains[t].price for t in game._depot_trains()
                  if not game.outside_limit(s.trains[t].name)]  # a 2E does not meet the duty (1848 8.2.5)
        step = game.or_step("buy_train")
        rule = step.rule(game.title) if step is not None else ""
    except Exception:  # noqa: BLE001 - a title without the duty: nothing to say
        return []
    m = game.title.money
    cheapest = f"; the bank's cheapest train costs {m(min(prices))}" if prices else ""
    return [f"  {corp} owns no train: it must buy one this turn" + (f" (rule {rule})" if rule else "")
            + f"; it has {m(s.cash[s.corporations[corp].key])}{cheapest}"]


def _orders_of(game_row, name: str) -> list[str]:
    """A player's standing orders as the mails show them, each with how to cancel it."""
    from pbm.e18xx.pbem.games import autorun_players

    out = []
    if name in ((game_row.state or {}).get("standing") or {}):
        out.append("pass rest of round (ends with this round)")
    if name in autorun_players(game_row):
        out.append("run auto and pay out every OR (cancel: a mail with AUTORUN: off)")
    return out


AWAY_HINT = ("Away for some days? Add the line 'AWAY: FIRST LAST' (days as YYYY-MM-DD) and your move clock pauses; "
             "'AWAY: FIRST LAST proxy N' also lets player N move for you (the proxy's mail says 'FOR: {seat}'); "
             "'AWAY: none' when you are back.")


def _seat_lines(number: int, game_row, count: int | None = None) -> list[str]:
    return ["", "To move, reply with these lines at the top (your secret after SECRET:), then one move per line:",
            "", reply_header(game_row, number, count), "", AWAY_HINT.format(seat=number), "", "-- ",
            "pbm (automatic message)"]


def _pdf_name(game_row, seq: int) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", game_row.name).strip("-") or "game"
    return f"{safe}-{seq:04d}.pdf"


def state_mail_key(game_row, seq: int, number: int) -> str:
    """Outbox key of the state mail to seat ``number`` after ``seq`` actions.  A moderator's
    undo takes action numbers back, so the keys carry how many undos came before: the state
    after an undo, and the moves made after it, are new mails (issue 18 item 3)."""
    undos = int((game_row.options or {}).get("undos", 0))
    return f"18xx:{game_row.id}:{seq}:{number}" + (f":u{undos}" if undos else "")


def _attachment(msg, data: bytes, filename: str):
    """The MIME part ``msg.add_attachment(data, ...)`` would add for a PDF: made once and attached (by
    :func:`_attach`) to the mail of every reader who gets the same PDF, instead of encoding it again
    for each (the generator writes a shared part the same way into each message; nothing changes it)."""
    part = type(msg)(policy=msg.policy)
    part.set_content(data, maintype="application", subtype="pdf", filename=filename)
    if "content-disposition" not in part:
        part["Content-Disposition"] = "attachment"
    return part


def _attach(msg, part) -> None:
    """``msg.add_attachment`` of a part made by :func:`_attachment`, step for step."""
    if msg.get_content_maintype() != "multipart" or msg.get_content_subtype() != "mixed":
        msg.make_mixed()
    msg.attach(part)


@dataclass(frozen=True, slots=True)
class PlainRow:
    """A stored action as the state mails read it: its number, its seat, the action (a plain copy of
    the row's fields, read by each seat's part of a state mail: an ORM row's attributes cost ~10 times
    as much to read, and a late game has ~700 rows)."""

    seq: int
    player_number: int | None
    action: dict


def happened_words(game, action) -> str:
    """A move of the mail as "What happened" lists it: a run names each train by the side it was
    bought as, as the events and the last moves do ("run 2+ H11 G10-0", not "run 2 H11 G10-0" for
    a 2+ train: play-through s13 F10)."""
    from pbm.e18xx.core import actions as A

    if isinstance(action, A.RunRoutes) and action.routes and not action.auto:
        if any(not re.match(r"^[A-Z]{1,2}\d{1,3}(-\d+)?$", n) for r in action.routes for n in r.nodes):
            from pbm.e18xx.pbem.moves import action_words  # stops by name as the map spells them (s14b F10)
            return action_words(game, action)[1]
        from pbm.e18xx.pbem.movelist import say
        return say(game, action)
    return format_action(action)


def plain_rows(rows: list) -> list[PlainRow]:
    return [PlainRow(r.seq, r.player_number, r.action) for r in rows]


@dataclass(frozen=True, slots=True)
class PlainSeat:
    """A seat as its part of a state mail reads it (compared with every row of the log)."""

    number: int
    name: str


def broadcast(session: Session, game_row, game, sender: str, *, mover=None, inbound=None, extra: list[str] | None = None,
              applied: list[Applied] | None = None, note: str = "", rep: Replayed | None = None,
              headline: str = "", turn_notes: list[str] | None = None, mover_note: str = "",
              seat_notes: dict[int, str] | None = None, others_note: str = "") -> int:
    """Queue the new state to every player (once each); returns how many messages were queued.

    ``note`` is said to every reader; ``mover_note`` only in the mover's receipt (what his own mail
    set or was told: AWAY, NOTIFY, prose set aside, his offer and his moves after it); ``seat_notes``
    to the seats it names and ``others_note`` to every other seat (issue 29: an offer's note said
    "Your moves after the offer" to players who had made none).

    The mover's message is the receipt of ``inbound`` (key ``receipt:<hash>``);
    the others are keyed by game, action count and seat, so running this again
    queues nothing new."""
    from pbm.e18xx.render.pdf import render_pdf

    from pbm.e18xx.pbem.anon import anonymous_18xx, names_for
    from pbm.e18xx.pbem.notify import (map_signature, pdf_line, pdf_sent, pdf_since, queue_hooks,
                                         wants_mail, wants_pdf)

    rep = rep or replay_rows(session, game_row)
    seq = len(rep.game.actions)
    queue_hooks(session, game_row, rep.game, applied)
    pdfs: dict[int | None, object] = {}  # the PDF's MIME part per 'since' (its rings), made when the first seat that wants it is mailed (issue 29, item 8)
    signature = map_signature(rep.game)
    text = state_text(session, game_row, rep)
    acting = set(rep.game.acting_players())
    from pbm.e18xx.pbem.games import offer_name, pending_offer
    offer = None if rep.game.finished else pending_offer(game_row)
    # the seat an offer waits for answers it: its proxy is told too when it is away (play-through s13w F2)
    answering = {str(offer["owner"])} if offer and offer.get("owner") else set()
    done: set[str] = set()
    queued = 0
    happened = []
    if applied:
        happened = ["What happened:"] + [
            f"  #{a.seq} {a.player}: {happened_words(rep.game, printed_tile(rep.game, a.action))}" + via_note(a.via)
            + (f" - {a.note}" if getattr(a, "note", "") else "")
            for a in applied] + [""]
    from pbm.e18xx.pbem.eventlines import mail_block, mark_mailed
    from pbm.e18xx.pbem.games import action_rows

    from pbm.web.links import mail_lines

    page = mail_lines(game_row)  # the game's live page, once the moderator serves one (docs/web.md)
    page = ["", *page] if page else []
    rows = plain_rows(action_rows(session, game_row))  # read by every seat's summary and events: read once
    seats = players(session, game_row)
    mails: list[tuple] = []  # (key, kind, recipients, message) to queue
    # the mover first, so a shared address gets the receipt
    seats.sort(key=lambda p: (mover is None or p.number != mover.number, p.number))
    for p in seats:
        is_mover = mover is not None and p.number == mover.number
        addrs = [a for a in [clean_address(p.email or "")] + (list(extra or []) if is_mover else []) if a]
        addrs = [a for a in dict.fromkeys(addrs) if a.lower() not in done]
        if not addrs:
            continue
        turn = p.name in acting and not rep.game.finished
        proxied = [] if rep.game.finished else _proxied_turns(game_row, seats, acting | answering, p.number)
        if not is_mover and not wants_mail(game_row, p.number, their_turn=turn or bool(proxied),
                                           finished=rep.game.finished):
            continue  # this player chose turn-only mail or the daily digest
        waiting = _offer_wait(game_row, p.name) if turn else ""
        if rep.game.finished:
            subject = f"[{one_line(game_row.name, 40)}] Game over"
        elif waiting:  # his offer waits for its answer: nothing is asked of him yet
            subject = f"[{one_line(game_row.name, 40)}] Your offer waits for {_offer_owner(game_row)}'s answer"
        elif turn:
            subject = f"[{one_line(game_row.name, 40)}] Your turn: {who_acts(rep.game)}"
        else:
            subject = f"[{one_line(game_row.name, 40)}] {who_acts(rep.game)} to act"
        if headline:
            subject = subject.replace("] ", f"] {headline} - ", 1)
        head = []
        if is_mover and inbound is not None:
            head = [f"ACCEPTED: your message #{inbound.seq} ({len(applied or [])} action(s) stored).", ""]
            if turn_notes:  # how the mail was read as a turn: steps skipped, passes ignored (pbem/intent.py)
                head += ["Your mail, read as a turn:"] + [f"  {x}" for x in turn_notes] + [""]
        said = mover_note if is_mover else (seat_notes or {}).get(p.number, others_note)
        for x in (said, note):
            if x:
                head += [x, ""]
        if waiting:
            head += [f"YOUR OFFER WAITS ({who_acts(rep.game)}). {waiting}", ""]
        elif turn:
            head += [f"IT IS YOUR TURN ({who_acts(rep.game)}).", ""]
        for q in proxied:  # the proxy of an absent seat that is to act is told so, and how (play-through s13 F4)
            if q.name in answering and q.name not in acting:  # an offer waits for the absent seat (s13w F2)
                head += [f"YOU ARE {q.name.upper()}'S PROXY: {q.name} (player {q.number}) is away and named you to "
                         f"move for them, and an offer waits for {q.name}'s answer. To answer for {q.name}, reply "
                         f"with your own GAME, PLAYER and SECRET lines, then the line FOR: {q.number}, then "
                         f"'accept {offer_name(offer)}' or 'decline {offer_name(offer)}'.", ""]
                continue
            head += [f"YOU ARE {q.name.upper()}'S PROXY: {q.name} (player {q.number}) is away and named you to move "
                     f"for them, and it is {q.name}'s turn ({who_acts(rep.game)}). To move for {q.name}, reply "
                     f"with your own GAME, PLAYER and SECRET lines, then the line FOR: {q.number}, then the moves.",
                     ""]
        seat = PlainSeat(p.number, p.name)  # read once per row of the log below: not through the ORM
        short = summary_lines(rep.game, rows, seat, turn=turn, orders=_orders_of(game_row, p.name))
        if not turn and any(q.name in acting for q in proxied):  # the proxy writes the absent seat's turn from
            short = short[:-2] + _proxy_moves(rep.game) + short[-2:]  # its list (18VA s14: no list, no outline)
        events = mail_block(game_row, rep.game, rows, seat, {q.number: q.name for q in seats})  # issue 29 item 2
        attach = wants_pdf(game_row, p.number, turn=turn, finished=rep.game.finished, signature=signature)
        body = "\n".join(head + short + happened + events + [text] + page
                         + ["", pdf_line(game_row, p.number, attach, bool(page))]
                         + _seat_lines(p.number, game_row, seq)) + "\n"
        msg = make_message(sender, addrs, subject, body,
                           in_reply_to=inbound.message_id if (is_mover and inbound is not None) else None)
        since = pdf_since(game_row, p.number)  # its rings: what changed since the reader's previous PDF
        if attach and anonymous_18xx(game_row):  # each reader's own PDF: the others are "Player N"
            msg.add_attachment(render_pdf(rep, game_row.name, names_for(session, game_row, [p.name]), since=since),
                               maintype="application", subtype="pdf", filename=_pdf_name(game_row, seq))
            pdf_sent(game_row, p.number, signature, seq)
        elif attach:  # the PDF, and its MIME part (base64), made once for the readers whose previous PDF showed the same
            if since not in pdfs:
                pdfs[since] = _attachment(msg, render_pdf(rep, game_row.name, since=since), _pdf_name(game_row, seq))
            _attach(msg, pdfs[since])
            pdf_sent(game_row, p.number, signature, seq)
        if is_mover and inbound is not None:
            mails.append((f"receipt:{inbound.sha256[:24]}", "receipt", addrs, msg))
        else:
            mails.append((state_mail_key(game_row, seq, p.number), "18xx", addrs, msg))
        mark_mailed(game_row, p.number, seq)
        done.update(a.lower() for a in addrs)
        queued += 1
    outbox.queue_many(session, mails, game=game_row)  # in this order, written together
    return queued


def _tell_proxy(session: Session, game_row, sender: str, player) -> None:
    """The seat an AWAY line names as proxy is mailed that it may move for the absent seat, and how
    (play-through s13 F4: the proxy was never told); once per absence."""
    rng = ((game_row.state or {}).get("away") or {}).get(str(player.number)) or []
    if len(rng) < 3:
        return
    seat = next((p for p in players(session, game_row) if p.number == int(rng[2])), None)
    addr = clean_address(seat.email or "") if seat is not None else ""
    if not addr:
        return
    text = (f"{player.name} (player {player.number}) is away from {rng[0]} to {rng[1]} and named you their proxy: "
            f"while they are away you may move for them. To do so, reply with your own GAME, PLAYER and SECRET "
            f"lines, then the line\n\n  FOR: {player.number}\n\nthen the moves. {_proxy_now(session, game_row, player)}")
    body = "\n".join([text, ""] + _seat_lines(seat.number, game_row)) + "\n"
    msg = make_message(sender, [addr], f"[{one_line(game_row.name, 40)}] You are {player.name}'s proxy", body)
    outbox.queue(session, f"proxy:{game_row.id}:{player.number}:{rng[0]}:{rng[1]}:{rng[2]}", "18xx", [addr], msg,
                 game=game_row)


def _proxy_now(session: Session, game_row, player) -> str:
    """What the proxy's notice says of the turn: the absent seat may be to act already, away from
    today (play-through s13v 18AL: Bob's AWAY in his own stock turn told Cy "You are told when it
    is their turn", and nothing more was to come: the turn was Bob's already)."""
    from pbm.e18xx.pbem.pacing import proxy_of

    rep = replay_rows(session, game_row)
    g = rep.game
    if not g.finished and player.name in set(g.acting_players()) and proxy_of(game_row, player.number) is not None:
        return (f"It is {player.name}'s turn now ({who_acts(g)}): you may move for them at once. "
                f"You are told when it is their turn again.")
    return "You are told when it is their turn."


def _proxied_turns(game_row, seats, acting: set, seat: int) -> list:
    """The seats that are to act, away today, and named ``seat`` their proxy (AWAY: ... proxy N)."""
    from pbm.e18xx.pbem.pacing import proxy_of

    if not (game_row.state or {}).get("away"):
        return []
    return [q for q in seats if q.name in acting and q.number != seat and proxy_of(game_row, q.number) == seat]


# ----------------------------------------------------------------- handling a mail
def _authenticate(session: Session, ctx, c: Claim):
    """(game row, player row) or the reason the mail is refused."""
    from pbm.auth import check_secret
    from pbm.models import Player

    game = c.game
    mm = c.mail
    if ctx.game is not None and game.id != ctx.game.id:
        return (f"your mail is for game {game.name}, but this address takes mail for game {ctx.game.name}; "
                "send it to the address given for your game")
    if game.status != "open":
        return f"game {game.name} is {game.status}; it takes no more moves"
    if not mm.player.strip():
        return "the PLAYER line is missing or empty: write your seat number, e.g. PLAYER: 2"
    if not mm.player.strip().isdigit() or len(mm.player.strip()) > 3:
        return "the PLAYER line must be your seat number (a number, e.g. PLAYER: 2)"
    number = int(mm.player.strip())
    player = session.scalar(select(Player).where(Player.game_id == game.id, Player.number == number))
    if player is None:
        n = len(players(session, game))
        return f"game {game.name} has no player {number} (seats are 1-{n})"
    if not mm.secret.strip():
        return "the SECRET line is missing or empty: write the secret you were given after SECRET:"
    if not player.secret_hash or not check_secret(mm.secret, player.secret_hash):
        return (f"the secret does not match player {number}'s secret (only letters and digits count; "
                "check for typing slips, or ask the moderator)")
    return game, player


def handle(session: Session, row, ctx, sender: str, c: Claim):
    """Handle one stored mail for an 18xx game; returns an ingest Outcome."""
    from pbm.mail.answer import Outcome
    from pbm.mail.answer import finish as _finish
    from pbm.mail.answer import contact_line, refusal_subject, refuse
    from pbm.mail.answer import reply as _reply
    from pbm.mail.redact import remember

    contact = contact_line(ctx.moderator)
    remember(row, c.mail.secret)  # right or wrong, cut out of the stored message (pbm.mail.redact)
    if c.game is None:  # a misspelt GAME line: said in the words of move mail, never a turnsheet's (issue 29)
        why = "the GAME line names no game here"
        names = ", ".join(f"{g.name} ({g.title})" for g in c.meant)
        body = (f"Your message #{row.seq} was received and stored, but NOT accepted.\n\nWhy: {why}. "
                f"Games played by mail here that it may be meant for: {names}.\n\nNothing in it was used. "
                f"Copy the GAME line from the last mail of your game (e.g. GAME: {c.meant[0].name}) and send "
                f"your moves again.\n\n{contact}\n\n-- \npbm (automatic answer)\n")
        _finish(row, "rejected", why, sheet_in=c.mail.where)
        replied = refuse(session, ctx, row, sender, why, [], tag=c.meant[0].name, body=body)
        return Outcome(row.id, row.seq, "rejected", why, replied)
    tag = c.game.name
    auth = _authenticate(session, ctx, c)
    if isinstance(auth, str):
        # not authenticated: the answer quotes nothing of the mail, and a stranger gets one a day (issue 34)
        _finish(row, "rejected", auth, sheet_in=c.mail.where)
        body = (f"Your message #{row.seq} was received and stored, but NOT accepted.\n\nWhy: {auth}\n\n"
                f"Nothing in it was used. A move mail starts with:\n\n{reply_header(c.game, 0).replace('PLAYER: 0', 'PLAYER: <your seat number>')}"
                f" <your secret>\n\nthen one move per line.\n\n{contact}\n\n-- \npbm (automatic answer)\n")
        replied = refuse(session, ctx, row, sender, auth, [], tag=tag, body=body)
        return Outcome(row.id, row.seq, "rejected", auth, replied)
    game, player = auth
    row.game_id, row.player_number, row.turn = game.id, player.number, game.turn
    recipients = [a for a in (clean_address(player.email or ""), sender) if a]
    via = ""
    writer = player  # the seat that wrote the mail (a proxy's own seat when FOR: moves for another)
    if c.mail.for_seat.strip():
        target = _proxy_target(session, game, player, c.mail.for_seat)
        if isinstance(target, str):
            _finish(row, "rejected", target, sheet_in=c.mail.where)
            body = (f"Your message #{row.seq} was received, but NOTHING in it was used.\n\nWhy: {target}\n\n{contact}\n\n"
                    "-- \npbm\n")
            replied = _reply(session, ctx, row, recipients, refusal_subject(row.seq, target, tag),
                             body, game)
            return Outcome(row.id, row.seq, "rejected", target, replied, 1, player.number)
        via = f"proxy {player.name}"
        player = target
    stale = _stale(session, game, player, c.mail)
    if stale is not None:
        _finish(row, "rejected", stale, sheet_in=c.mail.where)
        rep = replay_rows(session, game)
        body = "\n".join([
            f"Your message #{row.seq} was received, but NOTHING in it was used.", "", f"Why: {stale}", "",
            state_text(session, game, rep)] + _seat_lines(player.number, game, len(rep.game.actions))
            + ["", contact]) + "\n"
        replied = _reply(session, ctx, row, recipients, refusal_subject(row.seq, stale, tag), body, game)
        return Outcome(row.id, row.seq, "rejected", stale, replied, 1, player.number)
    away_note = "" if via else "\n".join(x for x in (_away(game, player, c.mail), _notify(game, player, c.mail),
                                                  _pdf(game, player, c.mail),
                                                  _auto(game, player, c.mail), _autorun(game, player, c.mail))
                                 if x)
    settings_note = away_note  # what the mail's own lines set (AWAY, PDF...): taken even if its moves are refused
    if c.mail.away.strip() and not via and not c.mail.moves.strip():
        _tell_proxy(session, game, ctx.sender, player)  # the proxy named hears of it at once (s13 F4)
    if away_note and not c.mail.moves.strip():
        _finish(row, "accepted", "", sheet_in=c.mail.where)
        from pbm.e18xx.pbem.computer import play_due

        more, rep2 = play_due(session, game)  # a standing order given now may be due now
        if more:
            _finish(row, "accepted", "", actions=[a.seq for a in more], sheet_in=c.mail.where)
            broadcast(session, game, rep2.game, ctx.sender, mover=player, inbound=row,
                      extra=[sender] if sender else [], applied=more, rep=rep2, mover_note=away_note)
            return Outcome(row.id, row.seq, "accepted", "", recipients, 0, player.number)
        body = f"{away_note}\n\n-- \npbm (automatic answer)\n"
        replied = _reply(session, ctx, row, recipients, f"[{tag}] Noted: your message #{row.seq}", body, game)
        return Outcome(row.id, row.seq, "accepted", "", replied, 0, player.number)
    if c.mail.greeting:  # a greeting above the moves: said once, never a move
        from pbm.mail.answer import ignored_text

        away_note = "\n".join(x for x in (away_note, ignored_text(c.mail.greeting, "a greeting above your orders"))
                               if x)
    if c.mail.ignored:  # prose after the moves: said once, never a move (docs/mail.md)
        from pbm.mail.answer import ignored_text

        away_note = "\n".join(x for x in (away_note, ignored_text(c.mail.ignored)) if x)
    from pbm.e18xx.pbem.selfundo import is_undo

    wants_undo = is_undo(c.mail.moves)
    if c.mail.away.strip() and not via:  # after the moves of the same mail: whose turn it is then (s13w)
        tell_proxy_after = True
    else:
        tell_proxy_after = False
    if wants_undo is not False and not via:  # 'undo': take back my last mail (issue 29)
        if tell_proxy_after:
            _tell_proxy(session, game, ctx.sender, player)
        return _undo_mail(session, row, ctx, sender, c, game, player, recipients, contact, tag, bool(wants_undo),
                          away_note)
    answered = None
    public: list[str] = []  # what every reader is told (the mover's own notes stay in away_note)
    seat_notes: dict[int, str] = {}
    others_note = ""
    if offer_answer(c.mail.moves) is not None:  # the owner's answer to an offer (18GA 3.2)
        out, answered = answer_offer(session, game, player.number, c.mail.moves, message_id=row.id)
        if out.accepted:
            public.append(_answer_note(answered, bool(out.applied), game))
            if out.notes:  # what became of the buyer's moves written after the offer: his mail says it too
                public += out.notes  # (play-through s11 finding 7: only the seller heard)
                out.notes = []
            if not out.applied:
                _tell_buyer(session, game, ctx.sender, answered, out.game)
    else:
        out = apply(session, game, player.number, c.mail.moves, message_id=row.id, via=via)
        if not out.accepted and not c.mail.moves.strip() and c.mail.ignored:
            out.error = _no_move_read(c.mail.ignored, game.title)
        if out.accepted and out.offer is not None:
            away_note = "\n".join(x for x in (away_note, _offer_note(out.offer, game)) if x)
            from pbm.e18xx.pbem.computer import answer_for_computer

            computer = answer_for_computer(session, game, ctx.sender)  # a computer seat answers at once
            said = ""
            if computer is None:
                _tell_owner(session, game, ctx.sender, out.offer)
                if out.offer.get("owner_seat") is not None:  # who must answer: how (issue 29, part B)
                    seat_notes[int(out.offer["owner_seat"])] = _offer_note_owner(out.offer, game)
                others_note = _offer_note_others(out.offer, game)
            else:
                done, answered = computer
                said = _answer_note(answered, bool(done.applied), game) if done.accepted else \
                    f"OFFER NOT TAKEN: {done.error}"
                away_note = "\n".join(x for x in (away_note, said) if x)
                others_note = "\n".join([_offer_note_others(out.offer, game, answered=True), said])
                out.applied += done.applied
                out.replayed, out.game = done.replayed or out.replayed, done.game or out.game
            if via:  # a proxy made the offer: the seat she moved for reads it as the buyer
                seat_notes[player.number] = "\n".join(x for x in (_offer_note(out.offer, game), said) if x)
    if tell_proxy_after:  # the proxy's notice says whose turn it is after this mail's moves (s13w)
        _tell_proxy(session, game, ctx.sender, player)
    if not out.accepted:
        _finish(row, "rejected", out.error, sheet_in=c.mail.where)
        assert out.game is not None
        rep = out.replayed or replay_rows(session, game)
        # its AWAY, PDF, NOTIFY... lines were taken before the moves (s14 F11: "NOTHING in it was used",
        # yet the AWAY line of the refused mail paused the clock): say so
        kept = settings_note
        head = (f"Your message #{row.seq} was received, but none of its moves was used (the moves of a mail are "
                "applied whole or not at all); its other lines were taken:\n" + kept) if kept else \
            f"Your message #{row.seq} was received, but NOTHING in it was used (a mail is applied whole or not at all)."
        body = "\n".join([
            head, "", f"Why: {out.error}", ""] + _now_lines(game, player.number, out) + [
            "", "Correct the moves and send them again.", "", state_text(session, game, rep, legal=False)]
            + _seat_lines(player.number, game, len(rep.game.actions)) + ["", contact]) + "\n"
        replied = _reply(session, ctx, row, recipients, refusal_subject(row.seq, out.error, tag), body,
                         game)
        return Outcome(row.id, row.seq, "rejected", out.error, replied, 1, player.number)
    from pbm.e18xx.pbem.pacing import computer_seats

    if computer_seats(game) and not out.game.finished:  # the computer's seats answer at once
        from pbm.e18xx.pbem.computer import play_due

        more, rep2 = play_due(session, game)
        if more:
            out.applied += more
            out.replayed, out.game = rep2, rep2.game
    _finish(row, "accepted", "", actions=[a.seq for a in out.applied], sheet_in=c.mail.where,
            standing=out.standing_added)
    back = _back_from_away(game, player, c.mail, via, getattr(ctx, "now", None))
    if back:
        away_note = "\n".join(x for x in (away_note, back) if x)
    extra = [sender] if sender else []
    if writer is not player:  # a proxy's receipt is her own seat's mail; the absent seat gets its own (issue 29)
        away_note = "\n".join(x for x in (f"You moved for player {player.number} ({player.name}) as their proxy; "
                                          f"they get the state of their seat by mail as usual.", away_note) if x)
    broadcast(session, game, out.game, ctx.sender, mover=writer, inbound=row, extra=extra, applied=out.applied,
              rep=out.replayed, note="\n".join(x for x in public if x), turn_notes=out.notes, mover_note=away_note,
              seat_notes=seat_notes, others_note=others_note)
    return Outcome(row.id, row.seq, "accepted", "", recipients, 0, player.number)


def _undo_mail(session: Session, row, ctx, sender: str, c: Claim, game, player, recipients: list[str], contact: str,
               tag: str, alone: bool, note: str):
    """An ``undo`` mail: the player's last mail is taken back if nobody has acted since (pbem/selfundo.py)."""
    from pbm.mail.answer import Outcome, refusal_subject
    from pbm.mail.answer import finish as _finish
    from pbm.mail.answer import reply as _reply

    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.selfundo import undo_own

    if not alone:
        why = ("'undo' stands alone in its mail (it takes back your last mail); send your other moves in "
               "another mail")
        done = None
    else:
        done = undo_own(session, game, player.number)
        why = "" if done.ok else done.why
    if why:
        _finish(row, "rejected", why, sheet_in=c.mail.where)
        body = (f"Your message #{row.seq} was received, but NOTHING in it was used.\n\nWhy: {why}\n\n{contact}\n\n"
                "-- \npbm (automatic answer)\n")
        replied = _reply(session, ctx, row, recipients, refusal_subject(row.seq, why, tag), body, game)
        return Outcome(row.id, row.seq, "rejected", why, replied, 1, player.number)
    assert done is not None
    _finish(row, "accepted", "", sheet_in=c.mail.where)
    taken = "; ".join(f"#{r.seq} {format_action(A.action_from_dict(r.action))}" for r in done.removed)
    said = (f"UNDONE: {player.name} took back their last mail ({len(done.removed)} action(s): {taken}); "
            "nobody had acted since.")
    rep = replay_rows(session, game)
    broadcast(session, game, rep.game, ctx.sender, mover=player, inbound=row, extra=[sender] if sender else [],
              applied=[], rep=rep, note=said, mover_note=note)
    return Outcome(row.id, row.seq, "accepted", "", recipients, 0, player.number)


def _no_move_read(ignored: list[tuple[int, str]], title: str) -> str:
    """Why a mail with text but no move line is refused: the line not read as a move, named (it said
    only "no moves found" for 'start CoG at par 70': play-through s11 finding 11). The example is the
    game's own title's: its first company at its lowest par value (issue 29: it named 18GA's CoG in
    every title)."""
    from pbm.e18xx.pbem.moves import USAGE

    line, text = ignored[0]
    return (f"no moves found: line {line}, {one_line(text, 80)!r}, is not a move (a move starts with one of: "
            f"{', '.join(USAGE)}; e.g. '{par_example(title)}' starts a company)")


def par_example(title: str) -> str:
    """A ``par`` move of ``title`` a player may make: its first corporation a player starts by choosing a
    par value (not one a private starts: 1848's CAR with P6, 18VA's B&O with P4), at the lowest par value
    of its market."""
    t = load_title(title)
    by_private = {ab.get("corporation") for comp in t.data["companies"] for ab in comp.get("abilities", [])
                  if ab.get("type") in ("fixed_par", "par_on_buy")}
    corp = next((c["sym"] for c in t.data["corporations"] if c["sym"] not in by_private),
                t.data["corporations"][0]["sym"])
    prices = sorted({t.market[r][c].price for r, c in t.par_cells()})
    return f"par {corp} {prices[0]}" if prices else f"par {corp} <price>"


def _offer_note(offer: dict, game_row=None) -> str:
    note = _offer_note_only(offer, game_row)
    rest = offer.get("rest") or []
    if offer.get("ends_turn"):  # the offer ended the mail: the sale ends the turn (play-through s13 F5)
        note += (f" Your mail ended with the offer, so your turn ends with the sale when {offer['owner']} accepts "
                 "(as if 'done'; end a mail with 'more' to keep the turn open after a sale); if the offer is "
                 "declined, you are still to act.")
    elif rest:  # the moves written after the offer wait for the answer (play-through s10b finding 6)
        note += (f" Your moves after the offer ({' / '.join(rest)}) wait for that answer: they are made "
                 f"right after the sale when {offer['owner']} accepts, and not at all if the offer is declined "
                 "(you are then still to act).")
    elif offer.get("kept_open"):
        note += (" Your mail ended with 'more': the turn stays open after the sale, and you write the rest of "
                 "it after the answer.")
    else:
        note += (" Moves written after an offer in the same mail are made as soon as the sale is agreed (the "
                 "turn then ends with them, as if 'done', unless the mail's last line is 'more'); without them "
                 "you write the rest of the turn after the answer.")
    return note


def _now_lines(game_row, seat: int, out) -> list[str]:
    """What a refused mail's writer reads under "Why:": who is to act and what he may do; or, when an
    offer waits for this writer's answer, that offer and its two answers, not the buyer's moves (18GA
    s17c mail #40: "Now: Eve to act. Eve may: buy private LTR 20 ..." to Ann, whose answer was awaited)."""
    from pbm.e18xx.pbem.games import offer_name, offer_thing, pending_offer

    offer = pending_offer(game_row)
    if offer is not None and offer.get("owner_seat") == seat:
        c = offer_name(offer)
        return [f"Now: {offer['buyer_name']}'s offer for {offer_thing(offer)} waits for your answer:",
                f"  accept {c}", f"  decline {c}"]
    return [f"Now: {who_acts(out.game)} to act. {who_acts(out.game)} may:"] + [f"  {x}" for x in out.legal] \
        + _outline(out.game)


def _offer_note_owner(offer: dict, game_row=None) -> str:
    """The offer as the one who must answer it reads it in the state mail: what is offered to him,
    under which rule, and the lines to reply (issue 29, part B; his own "Offer for ..." mail says it too)."""
    from pbm.e18xx.pbem.games import offer_label, offer_name, offer_rule, offer_terms, offer_why

    c = offer_name(offer)  # a train by its type, as every other mail of the offer names it (s13 F8: '4-0')
    title = load_title(game_row.title) if game_row is not None else None
    rule = offer_rule(title, offer)
    if offer.get("kind") == "train":
        what = (f"OFFER TO YOU, NOT YET A SALE: {_buyer(offer)} offers you {_price(offer, game_row)} for the "
                f"{offer_label(offer)} train of your company {offer['seller']} ({rule}: {offer_terms(title)}).")
    else:
        what = (f"OFFER TO YOU, NOT YET A SALE: {_buyer(offer)} offers you {_price(offer, game_row)} for your private {c} "
                f"({rule}: {offer_why(offer)}).")
    rest = [] if offer.get("ends_turn") else offer.get("rest") or []  # 'done' unwritten: not said (s13)
    then = (f" If you accept, {offer['buyer_name']}'s moves written after the offer ({' / '.join(rest)}) are "
            "made right after the sale." if rest and not offer.get("ends_turn") else "")
    return (f"{what} The game waits for your answer. To sell, reply with the line\n\n  accept {c}\n\n"
            f"To refuse:\n\n  decline {c}\n\nNothing changes hands until you accept; the offer lapses if "
            f"anything else happens in the game first.{then}")


def _offer_note_others(offer: dict, game_row=None, answered: bool = False) -> str:
    """The offer as a player who neither made it nor answers it reads it: who offered what to whom,
    and who is to act now (issue 29, part B: they were told "Your moves after the offer")."""
    from pbm.e18xx.pbem.games import offer_name, offer_rule, offer_thing

    rule = offer_rule(load_title(game_row.title) if game_row is not None else None, offer)
    whom = (f"{offer['owner']} (president of {offer['seller']})" if offer.get("kind") == "train"
            else str(offer["owner"]))
    made = f"OFFER: {_buyer(offer)} offered {whom} {_price(offer, game_row)} for {offer_thing(offer)} ({rule})."
    if answered:
        return made
    rest = [] if offer.get("ends_turn") else offer.get("rest") or []  # 'done' unwritten: not said (s13)
    then = (f" {offer['buyer_name']}'s moves written after the offer ({' / '.join(rest)}) are made only if "
            f"{offer['owner']} accepts." if rest and not offer.get("ends_turn") else "")
    return (f"{made} Nothing has changed hands yet: {offer['owner']} is to answer ('accept {offer_name(offer)}' "
            f"or 'decline {offer_name(offer)}') and {offer['buyer_name']} waits for that answer; nothing is asked "
            f"of you.{then}")


def _price(offer: dict, game_row=None) -> str:
    """The offered price in the title's currency (1848 prices in pounds)."""
    if game_row is None:
        return f"${offer['price']}"
    return str(load_title(game_row.title).money(int(offer["price"])))


def _buyer(offer: dict) -> str:
    """The buyer as the others read it: ``WRA (Bob's company)`` or the player ``Bob``."""
    if offer.get("buyer_name") and offer["buyer_name"] != offer["entity"]:
        return f"{offer['entity']} ({offer['buyer_name']}'s company)"
    return str(offer["entity"])


def _offer_note_only(offer: dict, game_row=None) -> str:
    from pbm.e18xx.pbem.games import offer_name, offer_rule, offer_terms, offer_thing, offer_why

    if offer.get("kind") == "train":
        rule = offer_rule(load_title(game_row.title) if game_row is not None else None, offer)
        terms = offer_terms(load_title(game_row.title) if game_row is not None else None)
        if terms.endswith("both agree"):  # the buyer's note names the presidents (the seller's needs not)
            terms = "a train changes hands between companies of different presidents only at a price both agree"
        return (f"OFFER MADE, NOT YET A SALE: {offer['entity']} offers {offer['owner']} {_price(offer, game_row)} for "
                f"{offer_thing(offer)}. {terms[0].upper()}{terms[1:]} ({rule}); it happens when {offer['owner']} "
                f"answers 'accept "
                f"{offer_name(offer)}' and is withdrawn by 'decline {offer_name(offer)}' or by any other move.")
    rule = offer_rule(load_title(game_row.title) if game_row is not None else None, offer)
    return (f"OFFER MADE, NOT YET A SALE: {offer['entity']} offers {offer['owner']} {_price(offer, game_row)} for "
            f"{offer['company']}. {offer_why(offer).capitalize()} ({rule}); "
            f"it happens when {offer['owner']} answers 'accept {offer['company']}' "
            f"and is withdrawn by 'decline {offer['company']}' or by any other move.")


def _answer_note(offer: dict | None, sold: bool, game_row=None) -> str:
    from pbm.e18xx.pbem.games import offer_rule, offer_thing

    if offer is None:
        return ""
    if sold:
        return (f"SALE AGREED: {offer['owner']} accepted {offer['entity']}'s offer: {offer_thing(offer)} "
                f"for {_price(offer, game_row)}" + (f" ({offer_rule(load_title(game_row.title), offer)})."
                                            if offer.get("kind") != "train" and game_row is not None else "."))
    return (f"OFFER DECLINED: {offer['owner']} declined {offer['entity']}'s offer of {_price(offer, game_row)} for "
            f"{offer_thing(offer)}; {offer['buyer_name']} is still to act.")


def _offer_mail(session: Session, game_row, sender: str, offer: dict, seat_number, key: str, subject: str,
                text: str) -> None:
    seat = next((p for p in players(session, game_row) if p.number == seat_number), None)
    addr = clean_address(seat.email or "") if seat is not None else ""
    if not addr:
        return
    body = "\n".join([text, ""] + _seat_lines(seat.number, game_row)) + "\n"
    msg = make_message(sender, [addr], f"[{one_line(game_row.name, 40)}] {subject}", body)
    outbox.queue(session, key, "18xx", [addr], msg, game=game_row)


def _tell_owner(session: Session, game_row, sender: str, offer: dict) -> None:
    """The owner hears of the offer and how to answer it (18GA 3.2; a train: 18AL 4.2.5(d), 18VA 4.6.1)."""
    c = offer["company"]
    if offer.get("kind") == "train":
        from pbm.e18xx.pbem.games import offer_label, offer_name, offer_rule, offer_terms

        c = offer_name(offer)  # the train by its type (issue 29 leftovers)
        rule = offer_rule(load_title(game_row.title), offer)
        text = (f"{offer['entity']} offers {_price(offer, game_row)} for the {offer_label(offer)} train of your company "
                f"{offer['seller']} ({rule}: {offer_terms(load_title(game_row.title))}).\n\n"
                f"To sell, reply with the line:\n\n  accept {c}\n\nTo refuse:\n\n  decline {c}\n\n"
                "Nothing changes hands until you accept; the offer lapses if anything else happens in the "
                "game first.")
        _offer_mail(session, game_row, sender, offer, offer.get("owner_seat"),
                    f"offer:{game_row.id}:{offer['at']}:{offer['company']}:{offer['buyer']}:{offer['price']}",
                    f"Offer for {offer['seller']}'s {c} train: {_price(offer, game_row)} from {offer['entity']}", text)
        return
    from pbm.e18xx.pbem.games import offer_rule, offer_why

    text = (f"{offer['entity']} offers you {_price(offer, game_row)} for your private {c} "
            f"({offer_rule(load_title(game_row.title), offer)}: {offer_why(offer)}).\n\n"
            f"To sell, reply with the line:\n\n  accept {c}\n\n"
            f"To refuse:\n\n  decline {c}\n\nNothing changes hands until you accept; the offer lapses if "
            "anything else happens in the game first.")
    _offer_mail(session, game_row, sender, offer, offer.get("owner_seat"),
                f"offer:{game_row.id}:{offer['at']}:{c}:{offer['buyer']}:{offer['price']}",
                f"Offer for your {c}: {_price(offer, game_row)} from {offer['entity']}", text)


def _tell_buyer(session: Session, game_row, sender: str, offer: dict | None, g=None) -> None:
    """The buyer hears that the owner declined, and what he may do now (18GA s15 mail #132: the mail
    said only "Make another move")."""
    from pbm.e18xx.pbem.games import offer_thing

    if offer is None:
        return
    may = [f"{who_acts(g)} may:"] + [f"  {x}" for x in legal_lines(g)] if g is not None and not g.finished else []
    _offer_mail(session, game_row, sender, offer, offer.get("buyer"),
                f"offer-declined:{game_row.id}:{offer['at']}:{offer['company']}:{offer['price']}",
                f"Offer declined: {offer_thing(offer)}", "\n".join([
                    _answer_note(offer, False, game_row), "", "Make another move (or another offer).", *may]))


def _stale(session: Session, game_row, player, mail: MoveMail) -> str | None:
    """Why moves written against an older state are refused (pacing.check_seen), or None."""
    from pbm.e18xx.pbem.games import action_rows
    from pbm.e18xx.pbem.pacing import check_seen

    if not mail.moves.strip() and (mail.away or mail.notify or mail.pdf or mail.auto or mail.autorun):
        return None
    names = {p.number: p.name for p in players(session, game_row)}
    rows = action_rows(session, game_row)
    why = check_seen(game_row, player.number, mail.seen, rows, names)
    return why if why is not None else _stale_pass(session, game_row, mail, len(rows))


def _stale_pass(session: Session, game_row, mail: MoveMail, count: int) -> str | None:
    """A lone ``pass`` written in a stock round that has since ended is refused (docs/18xx/email.md,
    "A pass written for a round that has ended"): it would end a company's operating step instead."""
    from pbm.e18xx.pbem.games import replay_rows
    from pbm.e18xx.pbem.pacing import _SEEN, seen_line

    lines = [ln.split("#", 1)[0].strip().lower() for ln in mail.moves.splitlines()]
    m = _SEEN.match(mail.seen or "")
    if [ln for ln in lines if ln] != ["pass"] or not m or int(m.group(1)) >= count:
        return None
    then = replay_rows(session, game_row, upto=int(m.group(1))).game
    now = replay_rows(session, game_row).game
    if then.finished or now.finished or then.state.round.kind != "stock" or now.state.round.kind == "stock":
        return None
    step = now.what_now()
    rule = f" ({step['rule']})" if step.get("rule") else ""
    return (f"your 'pass' was written against action {m.group(1)}, in the stock round; that stock round "
            f"has ended, and a pass now would end {step['entity']}'s step \"{step['description']}\"{rule} "
            f"instead. Nothing was passed. Read the new state and send your moves again with "
            f"'{seen_line(game_row, count)}'")


def _autorun(game_row, player, mail: MoveMail) -> str:
    """Record an AUTORUN line (the standing order "run auto and pay out every OR")."""
    from pbm.e18xx.pbem.games import set_autorun

    text = mail.autorun.strip().lower()
    if not text:
        return ""
    if text not in ("on", "off"):
        return f"The AUTORUN line must be 'on' or 'off' (not {one_line(text, 20)!r}); nothing changed."
    set_autorun(game_row, player.name, text == "on")
    if text == "on":
        return ("Standing order noted: in every operating round your companies run their best routes and pay "
                "out as soon as they must run (you still lay tiles, place tokens and buy trains). "
                "To cancel: a mail with AUTORUN: off.")
    return "Standing order cancelled: you run routes and choose dividends yourself again."


def _auto(game_row, player, mail: MoveMail) -> str:
    """Record an AUTO line (on/off); returns what the answer says."""
    from pbm.e18xx.pbem.pacing import set_auto

    text = mail.auto.strip().lower()
    if not text:
        return ""
    if text not in ("on", "off", "yes", "no"):
        return f"The AUTO line must be 'on' or 'off' (not {one_line(text, 20)!r}); nothing changed."
    on = text in ("on", "yes")
    set_auto(game_row, player.number, on)
    return ("Noted: if your move clock runs out, the computer moves for you (best routes, pay out, "
            "trains it must buy; pass in stock rounds)." if on else
            "Noted: the computer will not move for you on a time-out.")


def _notify(game_row, player, mail: MoveMail) -> str:
    """Record a NOTIFY line; returns what the answer says."""
    from pbm.e18xx.pbem.notify import PREFS, set_preference

    text = mail.notify.strip().lower()
    if not text:
        return ""
    if text not in PREFS:
        return f"The NOTIFY line must be one of {', '.join(PREFS)} (not {one_line(text, 20)!r}); nothing changed."
    set_preference(game_row, player.number, text)
    return {"every": "Noted: you get a mail for every change.",
            "turn": "Noted: you get a mail only when it is your turn (and at the end).",
            "digest": "Noted: you get a daily digest, and a mail at once when it is your turn."}[text]


def _pdf(game_row, player, mail: MoveMail) -> str:
    """Record a PDF line (``PDF: every | map | turn | never``); returns what the answer says."""
    from pbm.e18xx.pbem.notify import PDF_PREFS, PDF_WORDS, set_pdf_preference

    text = mail.pdf.strip().lower()
    if not text:
        return ""
    if text not in PDF_PREFS:
        return f"The PDF line must be one of {', '.join(PDF_PREFS)} (not {one_line(text, 20)!r}); nothing changed."
    set_pdf_preference(game_row, player.number, text)
    if text == "never":  # not "carry the PDF never" (play-through s14)
        return "Noted: your state mails carry no PDF (the text of the mail and the web page have the state)."
    return f"Noted: your state mails carry the PDF {PDF_WORDS[text]}."


def _away(game_row, player, mail: MoveMail) -> str:
    """Record an AWAY line (``AWAY: 2026-12-01 2026-12-05``, ``AWAY: none``); returns what the answer says."""
    from pbm.e18xx.pbem.pacing import parse_day, set_away

    text = mail.away.strip()
    if not text:
        return ""
    if text.lower() in ("none", "back", "no"):
        set_away(game_row, player.number, None, None)
        return "Noted: you are no longer marked away; your move clock runs normally."
    proxy = None
    pm = re.search(r"\bproxy\s*:?\s*(\d{1,3})\s*$", text, re.IGNORECASE)
    if pm:
        proxy = int(pm.group(1))
        text = text[:pm.start()].strip()
        if proxy == player.number or proxy not in {p.number for p in players(object_session(game_row), game_row)}:
            return f"The proxy in the AWAY line must be another player's seat number, not {proxy}; nothing changed."
    until = re.match(r"^(?:until|till|til|to|through)\s+(\S+)$", text, re.IGNORECASE)
    if until:  # 'AWAY: until 2026-12-05': from today (18VA s14 mail #93)
        from pbm.clock import utcnow
        text = f"{utcnow().date()} {until.group(1)}"
    parts = re.split(r"\s*(?:\s|,|/|\bto\b|\.\.)\s*", text)
    parts = [x for x in parts if x]
    try:
        start = parse_day(parts[0])
        end = parse_day(parts[1]) if len(parts) > 1 else start
    except (ValueError, IndexError):
        return (f"The AWAY line {one_line(text, 40)!r} was not understood (write AWAY: 2026-12-01 2026-12-05); "
                "nothing about absence was changed.")
    if end < start:
        start, end = end, start
    set_away(game_row, player.number, start, end, proxy)
    return (f"Noted: you are away from {start} to {end} (inclusive); your move clock pauses while you are away"
            + (f"; player {proxy} may move for you meanwhile (their mail with FOR: {player.number})." if proxy else "."))


def _back_from_away(game_row, player, mail: MoveMail, via: str, now=None) -> str:
    """A player marked away today who moves himself is back (ruling, docs/18xx/email.md "Absence"):
    his absence ends, so his move clock runs again for his next turn (session 15: an 1848 player's
    clock stayed "paused: away" after he had moved himself).  Not when a proxy moved for him, nor
    when the same mail sets his absence."""
    from pbm.clock import utcnow
    from pbm.e18xx.pbem.pacing import is_away, set_away

    if via or mail.away.strip() or not is_away(game_row, player.number, now or utcnow()):
        return ""
    until = ((game_row.state or {}).get("away") or {}).get(str(player.number), ["", ""])[1]
    set_away(game_row, player.number, None, None)
    return (f"You were marked away until {until}; as you moved yourself, you are taken to be back: your move "
            "clock runs normally again (write AWAY: FROM TO again if you are still away).")


def _offer_owner(game_row) -> str:
    """Who must answer the offer waiting (the seller, or the president of the selling company)."""
    from pbm.e18xx.pbem.games import pending_offer

    return one_line(str((pending_offer(game_row) or {}).get("owner", "")), 30)


def _offer_wait(game_row, reader: str) -> str:
    """The buyer's line while his offer waits for an answer (18VA s13: RFPR's president read "IT IS YOUR
    TURN" and nothing said the game waits for the seller first)."""
    from pbm.e18xx.pbem.games import pending_offer

    offer = pending_offer(game_row)
    if not offer or offer.get("buyer_name") != reader:
        return ""
    return (f"Your offer waits for {offer['owner']}'s answer first: nothing more is asked of you until then "
            "(another move of yours withdraws the offer).")


def _proxy_target(session: Session, game_row, player, text: str):
    """The absent seat a proxy moves for (FOR: N), or why not."""
    from pbm.e18xx.pbem.pacing import proxy_of

    t = text.strip()
    if not t.isdigit() or len(t) > 3:
        return f"the FOR line must be the seat number of the player you move for, not {one_line(t, 20)!r}"
    seat = next((p for p in players(session, game_row) if p.number == int(t)), None)
    if seat is None:
        return f"game {game_row.name} has no player {t}"
    if proxy_of(game_row, seat.number) != player.number:
        return (f"you may not move for player {seat.number}: they have not named you their proxy "
                "for today (AWAY: FROM TO proxy N)")
    return seat


# ----------------------------------------------------------------- for pbm cycle (through pbm.kinds)
def paced_games(session: Session) -> list[str]:
    """The open 18xx games (their move clocks are run by ``pbm cycle``)."""
    from pbm.models import Game

    return [g.name for g in session.scalars(select(Game).where(Game.status == "open").order_by(Game.id))
            if is_18xx(g)]


# ----------------------------------------------------------------- the start, and `pbm status`
def announce_start(session: Session, game_row, sender: str) -> int:
    """A new game: its move clock starts at its creation, and every player is mailed the state with a note
    that the game has started; the first to act gets "your turn", the legal moves and the reply lines
    (issue 18, item 11).  Keyed like any state mail (action 0), so it goes once."""
    from pbm.e18xx.pbem.pacing import touch

    rep = replay_rows(session, game_row)
    count = len(rep.game.actions)
    touch(game_row, count, game_row.created_at)
    seats = ", ".join(f"{p.name} (player {p.number})" for p in players(session, game_row))
    note = (f"THE GAME HAS STARTED: {game_row.title} game {game_row.name}, seed {game_row.seed}; the players in "
            f"seat order: {seats}. Every player gets the state by mail after each move.")
    return broadcast(session, game_row, rep.game, sender, note=note, rep=rep, headline="Game started")


def move_status(session: Session, game_row, now=None) -> str:
    """``pbm status`` of an 18xx game: whose move it is, since when, the move clock, the last move."""
    from pbm.e18xx.core import actions as A
    from pbm.e18xx.pbem.games import action_rows, offer_waiting, pending_offer
    from pbm.e18xx.pbem.pacing import status_lines

    rep = replay_rows(session, game_row)
    g = rep.game
    from pbm.web.links import mail_lines

    page = mail_lines(game_row)  # the game's live page, once the moderator serves one (docs/web.md)
    page = ["", *page] if page else []
    rows = action_rows(session, game_row)
    seats = players(session, game_row)
    by_name = {p.name: p for p in seats}
    phase = "game over" if g.finished else f"{g.state.round.kind} round"
    out = [f"Game {game_row.name} ({game_row.title}, moves by email): {len(rows)} action(s) so far, {phase}."]
    if g.finished:
        from pbm.e18xx.events import end_reason_words
        out.append(f"GAME OVER: {end_reason_words(g)}.")
    else:
        acting = [by_name[n] for n in g.acting_players() if n in by_name]
        who = "; ".join(f"player {p.number}, " + (p.email or "no address") for p in acting)
        out.append(f"To move: {who_acts(g)}" + (f" ({who})" if who else ""))
        offer = pending_offer(game_row)
        if offer is not None:
            out.append(offer_waiting(g, offer))
    out += status_lines(session, game_row, g, now)
    if rows:
        last = rows[-1]
        names = {p.number: p.name for p in seats}
        out.append(f"Last move: #{last.seq} {names.get(last.player_number or 0, '-')}: "
                   f"{action_words(g, A.action_from_dict(last.action), last.seq)[1]}{via_note(last.action.get('_via'))}")
    out.append(f"Full state and legal moves: `pbm 18xx status {game_row.name}`; the move clock: "
               f"`pbm 18xx pacing {game_row.name}`.")
    return "\n".join(out) + "\n"
