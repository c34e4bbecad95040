import pytest

from pbm.e18xx.fixtures import load_fixture

BANK_FIXTURE = "18GA/18GA_game_end_bank.json"


@pytest.fixture(scope="session")
def bank_export():
    data, where = load_fixture(BANK_FIXTURE)
    if data is None:
        pytest.skip(where)
    return data


FIXTURES = ["18GA/18GA_game_end_bank.json", "18GA/18GA_game_end_bankrupt.json",
            "18GA/18GA_game_end_stock_market.json"]


@pytest.fixture(scope="session", params=FIXTURES, ids=["bank", "bankrupt", "stock_market"])
def any_export(request):
    data, where = load_fixture(request.param)
    if data is None:
        pytest.skip(where)
    return data


@pytest.fixture(autouse=True)
def _show_mails(request):
    """``PBM_SHOW_MAILS=DIR``: every test writes into DIR what its moves answered -- each outcome of
    ``pbem.games.apply`` and ``pbem.intent.play_intent`` and the text of every message queued -- to
    diff a run before a change with one after it (the words of every mail unchanged)."""
    import os

    show = os.environ.get("PBM_SHOW_MAILS")
    if not show:
        yield
        return
    import email
    import re
    import sys
    from pathlib import Path

    from sqlalchemy import event
    from sqlalchemy.orm import Session

    from pbm.e18xx.pbem import games, intent
    from pbm.e18xx.pbem.moves import format_action
    from pbm.models import OutboxMessage

    lines: list[str] = []

    def said(out) -> None:
        lines.append(f"apply: accepted={out.accepted} moves={out.moves} standing={out.standing_added}")
        lines.append(f"  error: {out.error}")
        lines.extend([f"  #{a.seq} {a.player} {format_action(a.action)} via={a.via} note={a.note}" for a in out.applied])
        lines.extend([f"  note: {n}" for n in out.notes])
        lines.append(f"  offer: {out.offer}")

    def apply(*args, **kwargs):
        out = real_apply(*args, **kwargs)
        said(out)
        return out

    def play_intent(game, player, moves):
        try:
            made, notes = real_play(game, player, moves)
        except Exception as exc:
            lines.append(f"play_intent refused: {type(exc).__name__}: {exc}")
            raise
        lines.append("play_intent:")
        lines.extend([f"  {format_action(m.action)} note={m.note}" for m in made])
        lines.extend([f"  note: {n}" for n in notes])
        return made, notes

    def queued(session, _ctx, _instances) -> None:
        for obj in session.new:
            if isinstance(obj, OutboxMessage):
                msg = email.message_from_bytes(obj.raw)
                lines.append(f"mail {obj.kind} to {','.join(obj.recipients)}: {msg['Subject']}")
                for part in msg.walk():
                    if part.get_content_type() == "text/plain":
                        text = part.get_payload(decode=True).decode("utf-8", "replace")
                        lines.append(re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?", "<time>", text))

    real_apply, real_play = games.apply, intent.play_intent
    patched = []
    for mod in list(sys.modules.values()):
        for name, real, fake in (("apply", real_apply, apply), ("play_intent", real_play, play_intent)):
            if getattr(mod, name, None) is real:
                setattr(mod, name, fake)
                patched.append((mod, name, real))
    event.listen(Session, "before_flush", queued)
    try:
        yield
    finally:
        event.remove(Session, "before_flush", queued)
        for mod, name, real in patched:
            setattr(mod, name, real)
        if lines:
            safe = re.sub(r"[^\w.-]+", "_", request.node.nodeid)[:200]
            Path(show, f"{safe}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
