"""Which certificate is where on 18xx.games, for the export (issue 28).

Certificates of one corporation with the same percent are interchangeable, and pbm
and 18xx.games do not always move the same one: when a sale hands the presidency on,
18xx.games puts the whole sold bundle in the market, takes the new president's first
shares for the president's certificate and gives the seller back shares from the
market; pbm swaps directly.  The holdings agree, the certificate numbers do not.
An export must name certificates as 18xx.games numbers them, so the exporter keeps
this model of the site's certificates beside the game and names from it:

* a purchase names a certificate of the same percent that the site has at the source
  (pbm's own number when the site has it there);
* a sale names the seller's certificates in the order he got them, the president's
  certificate last, and moves them as the site does;
* after every action the model's holdings are brought to pbm's (same percent per
  holder), moving as few certificates as possible.
"""
from __future__ import annotations

from typing import Any


class SiteShares:
    """``owner -> corporation -> [share ids]`` in the order the owner got them."""

    def __init__(self, game: Any):
        self.game = game
        s = game.state
        self.where: dict[str, str] = {}
        self.lists: dict[str, dict[str, list[str]]] = {}
        for sid in sorted(s.share_owner, key=lambda x: (s.share_seq.get(x, 0), _num(x))):
            owner = s.share_owner[sid]
            if owner.startswith("unissued:"):
                continue
            self._put(sid, owner)

    # ------------------------------------------------------------------
    def _put(self, sid: str, owner: str) -> None:
        corp = _corp(sid)
        old = self.where.get(sid)
        if old is not None:
            self.lists[old][corp].remove(sid)
        self.where[sid] = owner
        self.lists.setdefault(owner, {}).setdefault(corp, []).append(sid)

    def _pres(self, sid: str) -> bool:
        """A president's certificate (the Bank of England's ``BOE_0`` is a share like the others)."""
        return sid.endswith("_0") and not self.game.state.corporations[_corp(sid)].equal_shares

    def held(self, owner: str, corp: str) -> list[str]:
        return list(self.lists.get(owner, {}).get(corp, []))

    def percent(self, owner: str, corp: str) -> int:
        return sum(self.game.sid_percent(x) for x in self.held(owner, corp))

    # ------------------------------------------------------------------
    def bought(self, buyer: str, pbm_sids: list[str], sources: dict[str, str]) -> list[str]:
        """The site's numbers of the certificates ``buyer`` got (pbm's ``pbm_sids``, which were
        at ``sources[sid]``); the model moves them."""
        out = []
        for sid in pbm_sids:
            src = sources.get(sid, "")
            pres = self._pres(sid)
            pct = self.game.sid_percent(sid)
            cands = [x for x in self.held(src, _corp(sid))
                     if self._pres(x) == pres and self.game.sid_percent(x) == pct]
            pick = sid if sid in cands else (cands[0] if cands else sid)
            self._put(pick, buyer)
            out.append(pick)
        return out

    def sold(self, seller: str, corp: str, percent: int, president_after: str | None,
             president_before: str | None) -> dict[str, Any]:
        """The certificates a sale of ``percent`` names on the site, moved as the site moves them."""
        held = self.held(seller, corp)
        plain = [x for x in held if not self._pres(x)]
        shares: list[str] = []
        total = 0
        for x in plain:
            if total >= percent:
                break
            shares.append(x)
            total += self.game.sid_percent(x)
        if total < percent:
            shares += [x for x in held if self._pres(x)]
        bundle_sum = sum(self.game.sid_percent(x) for x in shares)
        for x in shares:
            self._put(x, "pool")
        pres = f"{corp}_0"
        if president_after and president_before and president_after != president_before and \
                self.where.get(pres) in (seller, "pool"):
            new = f"P:{president_after}"
            unit = self.game.unit(corp)
            n = self.game.sid_percent(pres) // unit
            swap_to = seller if self.percent(seller, corp) >= self.game.sid_percent(pres) else "pool"
            for x in [y for y in self.held(new, corp) if not self._pres(y)][:n]:
                self._put(x, swap_to)
            self._put(pres, new)
            diff = bundle_sum - percent
            for _ in range(diff // unit):
                pool = self.held("pool", corp)
                if pool:
                    self._put(pool[0], seller)
        return {"shares": shares, "percent": percent}

    # ------------------------------------------------------------------
    def reconcile(self) -> None:
        """Bring the model's holdings to pbm's: the same percent per holder and the president's
        certificate with pbm's holder (any other move of certificates: bankruptcy, receivership,
        closing, exchanges)."""
        s = self.game.state
        want: dict[tuple[str, str], int] = {}
        for sid, owner in s.share_owner.items():
            if owner.startswith("unissued:"):
                continue
            want[(owner, _corp(sid))] = want.get((owner, _corp(sid)), 0) + self.game.sid_percent(sid)
            if sid not in self.where:
                self._put(sid, owner)
        for sid in list(self.where):
            if s.share_owner.get(sid, "").startswith("unissued:") or sid not in s.share_owner:
                owner = self.where.pop(sid)
                self.lists[owner][_corp(sid)].remove(sid)
        for corp in {c for _, c in want}:
            pres = f"{corp}_0"
            if self._pres(pres) and pres in self.where and self.where[pres] != s.share_owner.get(pres):
                self._put(pres, s.share_owner[pres])
            owners = {o for (o, c) in want if c == corp} | {o for o, by in self.lists.items() if by.get(corp)}
            excess = {o: self.percent(o, corp) - want.get((o, corp), 0) for o in owners}
            givers = [o for o in sorted(owners) if excess[o] > 0]
            takers = [o for o in sorted(owners) if excess[o] < 0]
            for t in takers:
                for g in givers:
                    while excess[t] < 0 and excess[g] > 0:
                        cands = [x for x in self.held(g, corp) if not self._pres(x)
                                 and self.game.sid_percent(x) <= min(-excess[t], excess[g])]
                        if not cands:
                            break
                        x = cands[0]
                        self._put(x, t)
                        excess[t] += self.game.sid_percent(x)
                        excess[g] -= self.game.sid_percent(x)
        # a company's own certificates lie in number order on the site (they only come back there
        # when it closes, all at once, in that order): the next moved from there is the lowest
        # (random 18VA 5p 60759: C&O closed at a bankruptcy and was started again; its unsold
        # certificates went to the market in number order, and a partial sale of the president's
        # certificate then gave the seller the first of them)
        for owner, by in self.lists.items():
            if owner.startswith("ipo:"):
                for corp, sids in by.items():
                    sids.sort(key=_num)


def _corp(sid: str) -> str:
    return sid.rsplit("_", 1)[0]


def _num(sid: str) -> int:
    tail = sid.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0
