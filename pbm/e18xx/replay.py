"""Replay an 18xx.games export (JSON) with our engine.

The export holds players (id, name), ``settings.seed``, ``settings.optional_rules``
and the action list.  ``undo``/``redo`` are resolved first; "program_*"
actions (standing orders on the site) change nothing by themselves, but the
actions they triggered are recorded in ``auto_actions`` and are applied right
after the action that carries them.
"""
from __future__ import annotations

import functools
import io
import json
import os
import pickle
import struct
import threading
import types
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from pbm.e18xx.core import actions as A
from pbm.e18xx.core.errors import GameError, ReplayError
from pbm.e18xx.core.game import Game
from pbm.e18xx.core.title import canonical_title, known_titles, load_title

IGNORED = {"message", "program_share_pass", "program_buy_shares", "program_disable", "program_auction_bid",
           "program_merger_pass", "program_independent_mines", "program_harzbahn_draft_pass", "program_close_pass",
           "log", "destination_connection"}

# A title's optional rules named ``site_*`` are 18xx.games behaviour that differs from the
# rulebook (docs/18xx/rulings-<TITLE>.md); replaying one of the site's games selects them all.
SITE_PREFIX = "site_"


def site_rules(title: str) -> list[str]:
    """The ``site_*`` optional rules of a title."""
    return [r for r in load_title(title).data.get("optional_rules", {}) if r.startswith(SITE_PREFIX)]


def read_export_file(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; ReplayError saying what is wrong with the file otherwise."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path} is not UTF-8 text (byte {exc.start}); 18xx.games exports are UTF-8 JSON") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{path} is not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise ReplayError(f"{path} is not a game: its JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ReplayError(f"{path} does not hold a game (expected a JSON object)")
    return data


def check_export_shape(export: Any) -> None:
    """ReplayError unless ``export`` has the shape of an 18xx.games export: a title, players
    (names, or objects with a name), optional settings (seed, optional rules) and a list of
    actions that are objects with a type.  Field values are checked action by action later."""
    if not isinstance(export, dict) or "actions" not in export or "players" not in export:
        raise ReplayError("not an 18xx.games export: it needs 'players' and 'actions'")
    if not isinstance(export["players"], list) or not export["players"]:
        raise ReplayError("the export's 'players' must be a non-empty list of players")
    if not isinstance(export["actions"], list):
        raise ReplayError("the export's 'actions' must be a list")
    for i, a in enumerate(export["actions"], 1):
        if not isinstance(a, dict) or not isinstance(a.get("type"), str):
            raise ReplayError(f"action {i} of the export is not an action (an object with a 'type'): "
                              f"{json.dumps(a)[:60]}")
    settings = export.get("settings")
    if settings is not None and not isinstance(settings, dict):
        raise ReplayError("the export's 'settings' must be an object")
    settings = settings or {}
    seed = settings.get("seed")
    if seed is not None and not (isinstance(seed, int) or (isinstance(seed, str) and seed.lstrip("-").isdigit())):
        raise ReplayError(f"the export's seed must be a whole number, not {json.dumps(seed)[:30]}")
    rules = settings.get("optional_rules")
    if rules is not None and (not isinstance(rules, list) or not all(isinstance(r, str) for r in rules)):
        raise ReplayError("the export's optional rules must be a list of names")


def export_title(export: dict[str, Any]) -> str:
    """The export's title, registered spelling; ReplayError if it names none we know."""
    raw = export.get("title")
    if not isinstance(raw, str) or not raw.strip():
        raise ReplayError("the export names no title (its 'title' field is missing)")
    canon = canonical_title(raw)
    if canon is None:
        raise ReplayError(f"unknown title {raw!r}; known titles: {', '.join(known_titles())}")
    return canon


def export_players(export: dict[str, Any]) -> list[tuple[str, str]]:
    """``[(id, name)]`` in seat order.  Hotseat exports give players a name but no
    ``id``: the name is then the id (their ``result`` is keyed by name)."""
    out: list[tuple[str, str]] = []
    for i, p in enumerate(export.get("players") or []):
        if not isinstance(p, dict) or not str(p.get("name", "")).strip():
            raise ReplayError(f"player {i + 1} of the export has no name")
        name = str(p["name"])
        out.append((str(p["id"]) if p.get("id") is not None else name, name))
    return out


def effective_actions(raw: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The actions that count after undo/redo."""
    done: list[dict[str, Any]] = []
    undone: list[list[dict[str, Any]]] = []
    for a in raw:
        kind = a.get("type")
        if kind == "undo":
            target = a.get("action_id")
            popped: list[dict[str, Any]] = []
            if target is None:
                while done and done[-1].get("type") == "message":
                    popped.insert(0, done.pop())
                if done:
                    popped.insert(0, done.pop())
            else:
                while done and int(done[-1].get("id", 0)) > int(target):
                    popped.insert(0, done.pop())
            undone.append(popped)
        elif kind == "redo":
            if undone:
                done.extend(undone.pop())
        else:
            if kind != "message":
                undone.clear()
            done.append(a)
    return done


class Replayer:
    def __init__(self, export: dict[str, Any], check_cash: bool = True):
        check_export_shape(export)
        self.export = export
        settings = export.get("settings") or {}
        seats = export_players(export)
        self.names = {pid: name for pid, name in seats}
        title = export_title(export)
        rules = [str(r) for r in settings.get("optional_rules") or []]
        try:
            self.game = Game(title, [name for _, name in seats], int(settings.get("seed") or 0),
                             rules + [r for r in site_rules(title) if r not in rules], [pid for pid, _ in seats])
        except GameError as exc:
            raise ReplayError(f"cannot set up the game: {exc}") from None
        self.check_cash = check_cash
        self.total = self.game.total_cash()
        self.count = 0

    def entity(self, a: dict[str, Any]) -> str:
        ent = a.get("entity")
        if a.get("entity_type") == "player" or str(ent) in self.names:
            return self.names.get(str(ent), str(ent))
        return str(ent)

    def node(self, ref: str) -> str:
        """Our name of the site's route node ``HEX-i`` (tiles whose parts put a label or an icon
        before their stops number them differently: their ``site_nodes``)."""
        coord, _, idx = str(ref).rpartition("-")
        m = self.game.state.map
        if coord in m.placed and idx.isdigit():
            alias = dict(m.placed[coord].tile.site_nodes)
            if int(idx) in alias:
                return f"{coord}-{alias[int(idx)]}"
        return ref

    @staticmethod
    def route_nodes(route: dict[str, Any]) -> list[str]:
        """A route's stops.  Older exports give no ``nodes`` but ``connections``: the hexes of
        each stretch between two stops, in route order, a stretch possibly written backwards.
        Its stops are the stretches' end hexes (each end hex holds one stop in such games)."""
        if "nodes" in route or "connections" not in route:
            return list(route["nodes"])
        ends: list[str] = []
        for chain in route["connections"]:
            first, last = str(chain[0]), str(chain[-1])
            if ends and ends[-1] == last:
                first, last = last, first
            elif len(ends) == 2 and ends[0] in (first, last) and ends[-1] not in (first, last):
                ends.reverse()  # the first stretch was written backwards
                if ends[-1] == last:
                    first, last = last, first
            if not ends or ends[-1] != first:
                ends.append(first)
            ends.append(last)
        return [f"{h}-0" for h in ends]

    def convert(self, a: dict[str, Any]) -> A.Action | None:
        kind = a.get("type")
        if kind in IGNORED or a.get("pbm_auto"):  # pbm_auto: a pass pbm's engine makes by itself (pbem/site_passes.py)
            return None
        e = self.entity(a)
        g = self.game
        if kind in ("buy_shares", "sell_shares") and isinstance(a.get("pbm"), dict):
            return A.action_from_dict(a["pbm"])  # written by pbm: its own certificate numbers
        if kind == "pass":
            return A.Pass(e)
        if kind == "bid":
            return A.Bid(e, a["company"], int(a["price"]))
        if kind == "par":
            return A.Par(e, a["corporation"], int(str(a["share_price"]).split(",")[0]))
        if kind == "buy_shares":
            shares = tuple(a["shares"])
            sid = shares[0]
            owner = g.state.share_owner.get(sid, "")
            if owner.startswith("P:"):  # our certificate numbering differs after a president swap
                corp = sid.split("_")[0]
                pool = g.shares_of("pool", corp)
                if pool:
                    shares = (pool[0],)
            return A.BuyShares(e, shares)
        if kind == "sell_shares":
            corp = str(a["shares"][0]).rsplit("_", 1)[0] if a.get("shares") else None
            unit = g.unit(corp) if corp in g.state.corporations else 10
            return A.SellShares(e, tuple(a["shares"]), count=int(a.get("percent", 0)) // unit)
        if kind == "lay_tile":
            return A.LayTile(e, a["hex"], a["tile"], int(a["rotation"]))
        if kind == "place_token":
            comp = g.state.companies.get(e)
            if comp is not None and g.company_ability(e, "token") and (comp.owner or "").startswith("C:"):
                e = comp.owner[2:]  # a private's free station (18GA W&SR) is its company's station step
            return A.PlaceToken(e, a["city"], a.get("slot"))
        if kind == "run_routes":
            return A.RunRoutes(e, tuple(A.RouteSpec(r["train"], tuple(self.node(n) for n in self.route_nodes(r)),
                                                    r.get("revenue"))
                                        for r in a.get("routes", [])))
        if kind == "dividend":
            if g.auto_operates(e):  # the site records the lending corporation's automatic dividend
                return None
            return A.Dividend(e, a["kind"])
        if kind == "take_loan":
            return A.TakeLoan(e)
        if kind == "buy_train":
            return A.BuyTrain(e, a["train"], a.get("price"), a.get("variant"), a.get("exchange"))
        if kind == "discard_train":
            return A.DiscardTrain(e, a["train"])
        if kind == "buy_company":
            return A.BuyCompany(e, a["company"], int(a["price"]))
        if kind == "convert":
            return A.Convert(e)
        if kind == "assign":
            return A.Assign(e, a["target"])
        if kind == "bankrupt":
            return A.Bankrupt(e)
        if kind == "use_ability":  # pbm's own, as older pbm exports wrote 18VA P3's train limit
            return A.UseAbility(e, str(a.get("ability", "")))
        if kind == "choose_ability" and g.company_ability(e, "train_limit_bonus"):  # 18VA P3: +1 train limit
            return A.UseAbility(e, "train_limit_bonus")
        raise ReplayError(f"action {a.get('id')}: unsupported action type {kind!r}")

    def apply(self, a: dict[str, Any]) -> None:
        if a.get("type") == "end_game":  # the players ended the game on the site
            if not self.game.finished:
                self.game.end_game("manually_ended")
            return
        act = self.convert(a)
        if act is not None:
            try:
                self.game.process(act, rollback=False)  # a refusal ends the replay: no copy to restore
            except GameError as exc:
                raise ReplayError(f"action {a.get('id')} ({a.get('type')} by {self.entity(a)}) refused: {exc}") from None
            self.count += 1
            if self.check_cash and self.game.total_cash() != self.total:
                raise ReplayError(f"action {a.get('id')}: cash not conserved "
                                  f"({self.game.total_cash()} != {self.total})")

    def run(self, upto: int | None = None) -> Game:
        """Replay every action (or those whose id is at most ``upto``)."""
        try:
            actions = effective_actions(self.export["actions"])
        except (TypeError, ValueError) as exc:
            raise ReplayError(f"the export's undo/redo actions are malformed ({exc})") from None
        for a in actions:
            if upto is not None and int(a.get("id") or 0) > upto:
                break
            for act in [a, *(a.get("auto_actions") or [])]:
                try:
                    self.apply(act)
                except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
                    # a malformed field of a hand-edited or damaged export: name the action
                    raise ReplayError(f"action {a.get('id')} ({a.get('type')}) is malformed: "
                                      f"{type(exc).__name__}: {str(exc)[:80]}") from None
        return self.game


def replay(game_json: dict[str, Any] | str | Path, check_cash: bool = True) -> dict[str, Any]:
    """Replay an export; return ``{"result": {name: score}, "finished": bool, "end_reason": str}``."""
    if isinstance(game_json, (str, Path)):
        game_json = read_export_file(Path(game_json))
    game = Replayer(game_json, check_cash).run()
    return summary(game)


def summary(game: Game) -> dict[str, Any]:
    res = game.result()
    ordered = dict(sorted(res.items(), key=lambda kv: -kv[1]))
    return {"result": ordered, "finished": game.finished, "end_reason": game.state.end_reason or ""}


def expected_result(export: dict[str, Any]) -> dict[str, Any]:
    """The site's result in an export, keyed by player name."""
    names = dict(export_players(export))
    res = {names.get(str(k), str(k)): int(v) for k, v in (export.get("result") or {}).items()}
    return {"result": dict(sorted(res.items(), key=lambda kv: -kv[1])),
            "finished": export.get("status") == "finished",
            "end_reason": export.get("game_end_reason") or ""}


# -- a stored game's replay, kept between moves (issue 32) ----------------------------------
#
# A worker answering a move mail replays the game's whole stored log (hundreds of actions) only to
# apply one more.  The replay is a function of the game's setup (title, players, seed, rules, player
# ids) and of its actions alone, so the state after the first N stored actions may be kept and used
# again by whoever asks next with the same setup and the same N first actions: it is compared, in
# full, with what is stored now, so a log changed in any way (an undo, a moderator's removal, another
# game in a database at the same address) is replayed afresh.  The state is kept as a pickle, so
# each caller gets its own copy to change; the title's definitions (shared by every game of the
# title, never changed) are pickled by reference, as a fresh replay would share them.


def _atomic(obj: Any) -> bool:
    return obj is None or isinstance(obj, (str, bytes, int, float, bool, complex, range))


@lru_cache(maxsize=None)
def _title_parts(canon: str) -> tuple[list[Any], dict[int, int]]:
    """Every object the loaded title ``canon`` is made of (dataclasses, dicts, lists, tuples, sets),
    in a fixed order, and their positions by ``id``."""
    parts: list[Any] = []
    where: dict[int, int] = {}
    todo = [load_title(canon)]
    while todo:
        obj = todo.pop()
        if _atomic(obj) or id(obj) in where:
            continue
        where[id(obj)] = len(parts)
        parts.append(obj)
        if isinstance(obj, dict):
            todo.extend(reversed([*obj.keys(), *obj.values()]))
        elif isinstance(obj, (list, tuple)):
            todo.extend(reversed(obj))
        elif isinstance(obj, (set, frozenset)):
            todo.extend(sorted(obj, key=repr))
        elif hasattr(obj, "__dataclass_fields__"):
            todo.extend(reversed([getattr(obj, f) for f in obj.__dataclass_fields__]))
    return parts, where


@lru_cache(maxsize=None)
def _title_memos(canon: str) -> tuple[Any, bytes]:
    """What makes :func:`freeze` write the parts of the title ``canon`` (:func:`_title_parts`) as references
    and :func:`thaw` read them back as those same parts, so a copy shares the title as a fresh replay does:
    a pickler whose memo holds every part at its position (a pickler given a copy of that memo writes a
    part it meets as pickle's GET of that position, and what is new after them), and a pickle that fills
    an unpickler's memo with the parts at the same positions (each by its position through the
    unpickler's ``persistent_load``), read before the state.  Until issue 32's twelfth session this was
    a ``persistent_id`` hook, which the pickler calls for every object it meets, ints and strings too
    (~20,000 calls a late game, most of ``freeze``'s time); a memo is copied in C."""
    parts = _title_parts(canon)[0]
    pickler = pickle.Pickler(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL)
    pickler.memo = {i: (i, obj) for i, obj in enumerate(parts)}
    fill = bytearray(pickle.PROTO + bytes([pickle.HIGHEST_PROTOCOL]))
    for i in range(len(parts)):  # push part i, put it in the memo (at i: the memo's size), pop it
        fill += pickle.BININT + struct.pack("<i", i) + pickle.BINPERSID + pickle.MEMOIZE + pickle.POP
    fill += pickle.NONE + pickle.STOP
    return pickler, bytes(fill)


_WRAPPERS = (types.FunctionType, types.MethodType, functools.partial)


def freeze(rep: Any, title: str) -> bytes:
    """``rep`` (an object with a ``game``) as bytes; the game's own wrapped methods (the event
    recorder's, :func:`pbm.e18xx.events.attach`) are left out and made again by :func:`thaw`."""
    game = rep.game
    order = list(vars(game))  # the game's attributes in their order, the wrapped ones among them
    wrapped = {k: v for k, v in vars(game).items() if isinstance(v, _WRAPPERS)}
    for k in wrapped:
        delattr(game, k)
    try:
        out = io.BytesIO()
        out.write(title.encode() + b"\n")
        pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.memo = _title_memos(title)[0].memo  # the title's parts, by reference
        pickler.dump((rep, order))
        return out.getvalue()
    finally:
        attrs = vars(game)
        kept = {k: wrapped[k] if k in wrapped else attrs[k] for k in order}
        attrs.clear()
        attrs.update(kept)  # as they were, in their order


def thaw(blob: bytes) -> Any:
    """A new copy of what :func:`freeze` kept, its game recording events as the original did."""
    title, _, data = blob.partition(b"\n")
    canon = title.decode()
    unpickler = pickle.Unpickler(io.BytesIO(_title_memos(canon)[1] + data))
    unpickler.persistent_load = _title_parts(canon)[0].__getitem__  # type: ignore[method-assign]
    unpickler.load()  # the title's parts into the memo, at the positions freeze's pickler had them
    rep, order = unpickler.load()
    game = rep.game
    old = vars(game).pop("recorder", None)
    if old is not None:
        from pbm.e18xx.events import attach

        fresh = attach(game)  # the recorder's wrappers, on this copy; then the events it had
        vars(fresh).update(vars(old))
    attrs = vars(game)
    kept = {k: attrs[k] for k in [*order, *attrs] if k in attrs}  # in the original's order
    attrs.clear()
    attrs.update(kept)
    return rep


class ReplayCache:
    """The replayed states of the last few games a process replayed (least recently used first out)."""

    def __init__(self, size: int = 16):
        self.size = size
        self.kept: dict[Any, tuple[Any, bytes, bytes]] = {}  # key -> (setup, pickled actions, state)
        self.lock = threading.Lock()
        self.hits = self.misses = 0

    @staticmethod
    def enabled() -> bool:
        return os.environ.get("PBM_REPLAY_CACHE", "1").strip() != "0"

    def resume(self, key: Any, setup: Any, actions: list[dict[str, Any]]) -> tuple[Any, int] | None:
        """(a copy of the kept state, how many of ``actions`` it has applied), when a state was kept
        for ``key`` with this ``setup`` after actions equal to the first ones of ``actions``."""
        with self.lock:
            found = self.kept.get(key) if self.enabled() else None
            if found is not None:
                self.kept[key] = self.kept.pop(key)  # the most recently used last
        if found is None or found[0] != setup:
            self.misses += 1
            return None
        done: list[dict[str, Any]] = pickle.loads(found[1])
        if len(done) > len(actions) or actions[:len(done)] != done:
            self.misses += 1
            return None
        self.hits += 1
        return thaw(found[2]), len(done)

    def keep(self, key: Any, setup: Any, actions: list[dict[str, Any]], rep: Any, title: str) -> None:
        """Keep ``rep``, the state after ``actions`` (copied now: the caller may go on changing it)."""
        if not self.enabled():
            return
        try:
            blob = freeze(rep, title)
            acts = pickle.dumps(actions, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
            with self.lock:
                self.kept.pop(key, None)  # a state that cannot be copied is replayed every time
            return
        with self.lock:  # (a web server's threads may replay too)
            self.kept.pop(key, None)
            self.kept[key] = (setup, acts, blob)
            while len(self.kept) > self.size:
                self.kept.pop(next(iter(self.kept)))

    def clear(self) -> None:
        with self.lock:
            self.kept.clear()


REPLAYS = ReplayCache()
