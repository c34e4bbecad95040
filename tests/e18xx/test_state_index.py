"""The certificate index kept by ``ShareOwners`` (state.share_owner) and what reads it."""
import copy
import random

from pbm.e18xx.core.state import ShareOwners, clone_state

from .helpers import random_game


def scanned(so: dict) -> dict:
    """owner -> corporation -> share ids, by scanning every certificate."""
    out: dict = {}
    for sid, owner in so.items():
        out.setdefault(owner, {}).setdefault(sid.rsplit("_", 1)[0], set()).add(sid)
    return out


def indexed(so: ShareOwners) -> dict:
    return {owner: {corp: set(sids) for corp, sids in by_corp.items()} for owner, by_corp in so._held.items()
            if by_corp}


def test_the_index_follows_every_kind_of_write():
    rng = random.Random(7)
    so = ShareOwners({f"{c}_{i}": f"ipo:{c}" for c in ("AB", "CD", "E_F") for i in range(9)})
    owners = ["pool", "P:Ann", "P:Bob", "ipo:AB", "unissued:CD"]
    for step in range(400):
        sid = rng.choice(sorted(so))
        kind = step % 7
        if kind == 0:
            so.update({sid: rng.choice(owners)})
        elif kind == 1:
            so.setdefault(sid, "P:Ann")
            so.setdefault(f"NEW_{step}", rng.choice(owners))
        elif kind == 2 and len(so) > 30:
            del so[sid]
        elif kind == 3 and len(so) > 30:
            so.pop(sid)
        else:
            so[sid] = rng.choice(owners)
        assert indexed(so) == scanned(so)
        for owner in owners:
            for corp in ("AB", "CD", "E_F"):
                assert set(so.held(owner, corp)) == scanned(so).get(owner, {}).get(corp, set())
    for twin in (so.copy(), copy.deepcopy(so), copy.copy(so)):
        assert twin == so and indexed(twin) == scanned(so)
        twin[sorted(so)[0]] = "P:Zed"  # a copy's index is its own
        assert indexed(so) == scanned(so) and indexed(twin) == scanned(twin)


def test_holdings_answer_as_a_scan_of_every_certificate_would():
    g = random_game(3, stop_at=700)
    s = g.state
    assert isinstance(s.share_owner, ShareOwners) and indexed(s.share_owner) == scanned(s.share_owner)
    for p in s.players:
        n = 0
        for sid, owner in s.share_owner.items():  # num_certs as it was written: a scan
            if owner == p.key:
                corp = s.corporations[sid.rsplit("_", 1)[0]]
                if corp.price and g.market_cell(corp.sym).kind == "y":
                    continue
                n += 1
        n += sum(1 for c in s.companies.values() if c.owner == p.key and not c.closed)
        assert g.num_certs(p.name) == n
        for corp in s.corporations:
            ids = g._share_ids(corp)
            assert g.percent_of(p.key, corp) == sum(pct for sid, pct in ids if s.share_owner[sid] == p.key)
            assert g.shares_of(p.key, corp) == sorted((sid for sid, _ in ids if s.share_owner[sid] == p.key),
                                                      key=s.share_seq.__getitem__)
    twin = clone_state(s)
    assert isinstance(twin.share_owner, ShareOwners) and twin.share_owner == s.share_owner
    assert indexed(twin.share_owner) == indexed(s.share_owner)
