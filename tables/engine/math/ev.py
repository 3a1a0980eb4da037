"""Expected values of stand, hit, double, split and surrender.

A :class:`Position` is one dealer up card and the composition the rest of the round is
drawn from (the up card and every seen card removed). Values are per unit of the hand's
initial stake, the player's net result: +1 a win, -1 a loss, -2 a lost double.

What is exact and what is approximated:

* the dealer's odds are exact for the composition (:mod:`.dealer`);
* the player's draws are taken from the same composition, *without* removing the
  player's own hit cards, and the dealer's odds are not recomputed after each of them
  (the usual "fixed composition" approximation: for a six-deck shoe it moves a hand's
  value by about 1e-4, for a single deck by up to a few 1e-3);
* split hands are valued from the pre-split composition, every split hand alike; the
  value of resplitting (up to ``max_split_hands``) is exact for that model: a recursion
  over (hands so far, hands still waiting for their second card);
* a dealer natural: where the dealer peeked (``hole_card`` peek / peek_ace) the values
  are conditioned on its absence and the natural costs the original stake only; with
  no peek it takes every stake on the layout when ``dealer_natural_takes`` is ``all``
  and the original stake only when it is ``original``;
* insurance and even money are never taken.

Two ways to play the rest of a hand: optimally (``policy=None``: the best of hit and
stand at every later card, from these same values) or by a :class:`Policy` - the
rule set's chart, which is how the house edge and the cash-out offers are computed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Final, Protocol

from audit.record.events.fields import HandAction

from .composition import Composition
from .dealer import NATURAL, dealer_odds, given_no_natural, stand_function
from .hands import best_total
from .rulesview import PlayRules

STAND: Final = "stand"
HIT: Final = "hit"
DOUBLE: Final = "double"
SPLIT: Final = "split"
SURRENDER: Final = "surrender"
ACTIONS: tuple[HandAction, ...] = (STAND, HIT, DOUBLE, SPLIT, SURRENDER)
HIT_STAND = frozenset({HIT, STAND})


class Policy(Protocol):
    """How a strategy plays a hand: one of ``legal`` for hard total ``hard`` (aces as
    one), ``soft`` if an ace counts 11, ``pair`` the value of a two-card pair or 0."""

    def decide(self, up: int, hard: int, soft: bool, pair: int, legal: frozenset[str]) -> str: ...


def legal_actions(
    play: PlayRules, up: int, hard: int, ace: bool, ncards: int, pair: int, *, after_split: bool
) -> frozenset[str]:
    """What a hand of ``ncards`` cards (hard total ``hard``, holding an ace or not; ``pair``
    the value of a two-card pair or 0) may do against ``up``."""
    best, soft = best_total(hard, ace)
    if play.stand_from is not None and best >= play.stand_from:
        # seed 000: from 17 on a hand gets no card - not even by splitting a pair
        # (as the engine's live_action: 9,9 stands)
        return frozenset({STAND})
    out = set()
    if play.must_hit_below is None or best >= play.must_hit_below:
        out.add(STAND)
    if play.stand_from is None or best < play.stand_from:
        out.add(HIT)
        if ncards == 2 and play.can_double(hard, soft, after_split=after_split):
            out.add(DOUBLE)
    if ncards == 2 and not after_split:
        if pair and play.can_split(pair):
            out.add(SPLIT)
        if play.surrender_offered(up):
            out.add(SURRENDER)
    if not out:
        out.add(STAND)
    return frozenset(out)


class Position:
    """One up card against one composition; every value memoised inside."""

    def __init__(
        self, play: PlayRules, up: int, comp: Composition, *, exact_next_card: bool = False
    ) -> None:
        self.play = play
        self.exact_next_card = exact_next_card
        self.up = up
        self.comp = comp
        n = sum(comp)
        if n <= 0:
            raise ValueError("the composition is empty")
        full = dealer_odds(up, comp, hits_soft_17=play.hits_soft_17)
        self.p_natural = p = full[NATURAL]
        peeked = play.peeks(up)
        self._conditioned = peeked or not play.natural_takes_all
        if p > 0.0 and p < 1.0 and self._conditioned:
            odds = given_no_natural(full)
            self._a, self._b = -p, 1.0 - p
        else:
            odds = full
            self._a, self._b = 0.0, 1.0
        self.odds = odds
        give_up = play.surrender_loss
        self.surrender_value = self._a + self._b * give_up if peeked else give_up
        self.q = [c / n for c in comp]
        if odds is not full and n > 1:
            # the player's cards are drawn knowing the hole card does not complete a
            # natural: P(k) = n_k / (n - 1) for the completing value k, and
            # P(c) = n_c (n - n_k - 1) / ((n - 1)(n - n_k)) for every other value
            k = 10 if up == 1 else 1
            n_k = comp[k - 1]
            self.q = [
                c / (n - 1) if i == k - 1 else c * (n - n_k - 1) / ((n - 1) * (n - n_k))
                for i, c in enumerate(comp)
            ]
        self.stand_by_total = _stand_table(odds)
        self._after: dict[int, list[float]] = {}
        self.natural_in_split = play.natural_pays_float * (1.0 - odds[NATURAL])
        # per policy: (value, hit value) by hard total without and with an ace, and the
        # lowest total worked out so far (:meth:`_hit_stand`)
        self._hs: dict[
            int, tuple[list[float], list[float], list[float], list[float], list[int]]
        ] = {}
        self._split: dict[tuple[int, int], float] = {}

    def stand_after(self, card: int) -> list[float]:
        """Stand values by best total once the player has drawn ``card`` (a value): the
        dealer's odds recomputed without it (with ``exact_next_card``)."""
        if not self.exact_next_card:
            return self.stand_by_total
        table = self._after.get(card)
        if table is None:
            comp = list(self.comp)
            comp[card - 1] -= 1
            full = dealer_odds(self.up, tuple(comp), hits_soft_17=self.play.hits_soft_17)
            if self._conditioned and 0.0 < full[NATURAL] < 1.0:
                full = given_no_natural(full)
            table = _stand_table(full)
            self._after[card] = table
        return table

    # -- the two spaces -----------------------------------------------------------
    def final(self, inner: float) -> float:
        """A value computed against ``self.odds`` as the hand's overall value."""
        return self._a + self._b * inner

    def natural_value(self) -> float:
        """A player natural, paid ``natural_pays`` unless the dealer has one too."""
        return self.play.natural_pays_float * (1.0 - self.p_natural)

    # -- legality -------------------------------------------------------------------
    def legal(
        self, hard: int, ace: bool, ncards: int, pair: int, *, after_split: bool
    ) -> frozenset[str]:
        return legal_actions(self.play, self.up, hard, ace, ncards, pair, after_split=after_split)

    # -- hit and stand --------------------------------------------------------------
    def _hit_stand(
        self, policy: Policy | None, down_to: int = 2
    ) -> tuple[list[float], list[float], list[float], list[float]]:
        """(value, hit value) by hard total, for hands without and with an ace, when
        the hand may only hit or stand from here on: worked out from 21 down to
        ``down_to`` at least (a total's row reads only the rows above it, so a position
        asked of one hand - a cash-out offer - works out only the totals that hand can
        reach; the rows are the same floats however far down they were first asked)."""
        key = id(policy) if policy is not None else 0
        rows = self._hs.get(key)
        if rows is None:
            rows = self._hs[key] = ([-1.0] * 32, [-1.0] * 32, [-1.0] * 32, [-1.0] * 32, [22])
        lowest = rows[4][0]
        if lowest <= down_to:
            return rows[0], rows[1], rows[2], rows[3]
        q, stand = self.q, self.stand_by_total
        value = (rows[0], rows[1])
        hitv = (rows[2], rows[3])
        for hard in range(lowest - 1, max(down_to, 2) - 1, -1):
            for ace in (1, 0):
                h = 0.0
                for i in range(10):
                    nxt = hard + i + 1
                    if nxt <= 21:
                        h += q[i] * value[1 if (ace or i == 0) else 0][nxt]
                    else:
                        h -= q[i]
                best, soft = best_total(hard, bool(ace))
                value[ace][hard] = self._hit_or_stand(stand[best], h, best, hard, soft, policy)
                hitv[ace][hard] = h
        rows[4][0] = max(down_to, 2)
        return rows[0], rows[1], rows[2], rows[3]

    def stand(self, hard: int, ace: bool) -> float:
        return self.stand_by_total[best_total(hard, ace)[0]] if hard <= 21 else -1.0

    def hit(self, hard: int, ace: bool, policy: Policy | None = None) -> float:
        """Take a card, then play on (optimally, or by ``policy``). With
        ``exact_next_card`` the stand after that card is valued against the dealer's
        odds without it; later cards use the fixed composition."""
        table = self._hit_stand(policy, hard)
        if not self.exact_next_card:
            return table[3 if ace else 2][hard]
        total = 0.0
        for i in range(10):
            if not self.q[i]:
                continue
            card = i + 1
            nxt = hard + card
            if nxt > 21:
                total -= self.q[i]
                continue
            has_ace = ace or card == 1
            best, soft = best_total(nxt, has_ace)
            h = table[3 if has_ace else 2][nxt]
            total += self.q[i] * self._hit_or_stand(
                self.stand_after(card)[best], h, best, nxt, soft, policy
            )
        return total

    def _hit_or_stand(
        self, s: float, h: float, best: int, hard: int, soft: bool, policy: Policy | None
    ) -> float:
        """The value of a hand worth ``s`` standing and ``h`` hitting, given what the
        rules allow at its total (the live game's limits) and the policy (best if None)."""
        play = self.play
        if play.stand_from is not None and best >= play.stand_from:
            return s
        if play.must_hit_below is not None and best < play.must_hit_below:
            return h
        if policy is None:
            return max(s, h)
        return h if policy.decide(self.up, hard, soft, 0, HIT_STAND) == HIT else s

    def play_on(self, hard: int, ace: bool, policy: Policy | None = None) -> float:
        """A hand of 3+ cards (or one that may only hit or stand): its value."""
        if hard > 21:
            return -1.0
        table = self._hit_stand(policy, hard)
        return table[1 if ace else 0][hard]

    def double(self, hard: int, ace: bool) -> float:
        """Twice the value of exactly one more card, then stand."""
        total = 0.0
        for i in range(10):
            if not self.q[i]:
                continue
            nxt = hard + i + 1
            if nxt > 21:
                total -= self.q[i]
            else:
                total += self.q[i] * self.stand_after(i + 1)[best_total(nxt, ace or i == 0)[0]]
        return 2.0 * total

    # -- split ----------------------------------------------------------------------
    def _after_split(self, v: int, c: int, policy: Policy | None) -> float:
        """A split hand holding ``v`` that receives ``c`` (no resplit): its value."""
        play = self.play
        hard, ace = v + c, v == 1 or c == 1
        if v == 1 and play.split_aces_one_card:
            if c == 10 and play.split_21_is_natural:
                return self.natural_in_split
            return self.stand(hard, ace)
        legal = self.legal(hard, ace, 2, 0, after_split=True)
        values = {}
        if STAND in legal:
            values[STAND] = self.stand(hard, ace)
        if HIT in legal:
            values[HIT] = self.hit(hard, ace, policy)
        if DOUBLE in legal:
            values[DOUBLE] = self.double(hard, ace)
        if policy is None:
            return max(values.values())
        _best, soft = best_total(hard, ace)
        choice = policy.decide(self.up, hard, soft, v if c == v else 0, frozenset(values))
        return values.get(choice, values.get(STAND, values.get(HIT, -1.0)))

    def split(self, v: int, policy: Policy | None = None) -> float:
        """Both (all) hands of a split pair of value ``v``, summed."""
        key = (v, id(policy) if policy is not None else 0)
        cached = self._split.get(key)
        if cached is not None:
            return cached
        play, q = self.play, self.q
        p = q[v - 1]
        x = sum(q[c - 1] * self._after_split(v, c, policy) for c in range(1, 11) if c != v)
        y = self._after_split(v, v, policy)
        if policy is None:
            want = True
        else:
            _best, soft = best_total(2 * v, v == 1)
            want = policy.decide(self.up, 2 * v, soft, v, frozenset({SPLIT, HIT, STAND})) == SPLIT

        @cache
        def expect(hands: int, waiting: int) -> float:
            if waiting == 0:
                return 0.0
            base = x + (1.0 - p) * expect(hands, waiting - 1)
            keep = p * (y + expect(hands, waiting - 1))
            if want and play.can_resplit(v, hands):
                again = p * expect(hands + 1, waiting + 1)
                if policy is not None or again > keep:
                    return base + again
            return base + keep

        value = expect(2, 2)
        self._split[key] = value
        return value

    # -- a whole hand ----------------------------------------------------------------
    def values(
        self,
        hard: int,
        ace: bool,
        ncards: int,
        pair: int,
        *,
        after_split: bool = False,
        policy: Policy | None = None,
        legal: frozenset[str] | None = None,
    ) -> dict[str, float]:
        """Every legal action's value for a hand (not a natural), in the final space."""
        if legal is None:
            legal = self.legal(hard, ace, ncards, pair, after_split=after_split)
        out: dict[str, float] = {}
        compute: dict[str, Callable[[], float]] = {
            STAND: lambda: self.final(self.stand(hard, ace)),
            HIT: lambda: self.final(self.hit(hard, ace, policy)),
            DOUBLE: lambda: self.final(self.double(hard, ace)),
            SPLIT: lambda: self.final(self.split(pair, policy)),
            SURRENDER: lambda: self.surrender_value,
        }
        for action in ACTIONS:
            if action in legal:
                out[action] = compute[action]()
        return out


def _stand_table(odds: tuple[float, ...]) -> list[float]:
    """Stand values by best total 0..21 against dealer ``odds``: every total to 16 loses
    to any dealer finish, so the rows to 16 are one value (:func:`.dealer.stand_function`,
    ``stand_value``'s floats bit for bit)."""
    return [stand_function(16)(odds)] * 17 + [
        stand_function(total)(odds) for total in range(17, 22)
    ]


def best(values: dict[str, float]) -> str:
    """The action of highest value (ties: the first in ACTIONS order)."""
    return max(values, key=lambda a: (values[a], -ACTIONS.index(a)))
