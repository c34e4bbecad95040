"""A daily digest says each action in the mails' words (issue 29, left from the tenth session: the
digest read "#35 Ann: lay 5 F6 0" without the company, and a private's train discount as the
private's own move): "#35 Ann for W&A: lay ...", "... for N&W: buy train 3 with P2 for $0 ($200 off)"."""
from __future__ import annotations

import email
import email.policy
import re
from datetime import datetime

from sqlalchemy import select

from pbm.db import session_scope
from pbm.models import Game, OutboxMessage

from .db_games import stored_playthrough


def test_a_digest_names_the_company_of_each_operating_move(tmp_path):
    url = stored_playthrough(tmp_path, "va", 63, seed=29, suffix="-s10", name="va")
    from pbm.e18xx.pbem.notify import digests, set_preference

    with session_scope(url) as s:
        set_preference(s.scalars(select(Game).where(Game.name == "va")).one(), 3, "digest")
    with session_scope(url) as s:
        assert digests(s, "game@example.org", datetime(2026, 11, 28, 12)) == ["digest to cy@example.org"]
    with session_scope(url) as s:
        raw = s.scalars(select(OutboxMessage.raw).where(OutboxMessage.kind == "digest")).one()
    body = email.message_from_bytes(bytes(raw), policy=email.policy.default).get_content()
    lines = [ln.strip() for ln in body.splitlines() if re.match(r"\s+#\d+ ", ln)]
    assert len(lines) == 30 and lines[-1].startswith("#63 ")
    assert re.fullmatch(r"#63 Cy for N&W: buy train 3 with P2 for \$0 \(\$\d+ off\)", lines[-1]), lines[-1]
    runs = [ln for ln in lines if ": run " in ln]
    assert runs and all(re.match(r"#\d+ (Ann|Bob|Cy) for [A-Z&]+: run ", ln) for ln in runs), runs
