"""The hands a split pair becomes, valued exactly for CDZ- and for the chart.

One :class:`PairPlay` per pair value and up card. Its hands are the lattice hands holding
a card of the pair's value (:mod:`.hands`); each is valued from the shoe less the up card,
its own cards and ``extra`` more pair cards - the other original pair card and, after
resplits, the pair cards that started further hands (the dealer's odds from the stand
table when that composition is a lattice hand, else from
:class:`~.dealer_removal.PairRemoval`).

* **CDZ-**: a split hand's decisions are the best ones for its own cards against the up
  card, from the composition at the split (the shoe less the up card and both pair
  cards), and stay the same whatever resplits and other hands bring - a fixed strategy,
  as :mod:`.splits` requires for its exact combination. This is the split model of k_c's
  combinatorial analyzer (bjstrat.net), whose published split values it reproduces to
  the fourth decimal (tests/engine/math/test_cdz.py).
* **the chart**: the chart's total-dependent decisions, after a split.

For the chart the second moment of each hand's result is carried too, for the variance
(:mod:`.variance`): exact for one hand; two hands of one split are correlated through the
dealer's hand, and that covariance is taken as if the hands were independent given the
dealer's outcome (:meth:`PairPlay.cross_moment`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from .dealer import BUST, NATURAL, push_probability, stand_function
from .dealer_removal import N_OUTCOMES, PAIR_WALK, Packed, PairRemoval
from .ev import DOUBLE, HIT, STAND
from .hands import CARD, hands_of
from .splits import combine, extra_pairs_needed, growth

if TYPE_CHECKING:
    from .cdz import UpCard
    from .strategy import Chart

OPTIMAL, CHART = "cdz", "chart"
NATURAL_LEAF = "natural"  # a split ace and a ten counted as a natural (split_21_is_natural)


@lru_cache(maxsize=128)
def pair_removal(decks: int, hits_soft_17: bool, up: int, pair: int) -> PairRemoval:
    """Shared by every rule set with this shoe and dealer rule (odds are memoised inside)."""
    return PairRemoval(decks, hits_soft_17, up, pair)


@lru_cache(maxsize=16)
def stand_functions(decks: int) -> tuple[Callable[[Sequence[float]], float], ...]:
    """Per lattice hand, its :func:`~.dealer.stand_function`."""
    return tuple(map(stand_function, hands_of(decks).best))


@dataclass(frozen=True, slots=True)
class Members:
    """The lattice hands of two or more cards holding a card of ``pair`` (children, with
    higher hard totals, first; only the two-card ones for split aces taking one card),
    with how many pair cards each holds and the key and cards (in the walk's order) of
    the others."""

    decks: int
    pair: int
    hands: tuple[int, ...]
    pairs: dict[int, int]
    rest: dict[int, int]
    rest_cards: dict[int, tuple[int, ...]]
    outside: dict[int, frozenset[int]]  # memo of beyond()

    def beyond(self, extra: int) -> frozenset[int]:
        """The hands that, with ``extra`` more pair cards out, are no lattice hand (for one
        extra card the stand table has their odds all the same)."""
        if extra not in self.outside:
            lattice = hands_of(self.decks)
            card = extra * CARD[self.pair]
            self.outside[extra] = frozenset(
                h for h in self.hands if lattice.keys[h] + card not in lattice.index
            )
        return self.outside[extra]


@lru_cache(maxsize=64)
def members_of(decks: int, pair: int, one_card: bool) -> Members:
    lattice = hands_of(decks)
    hands = [
        h
        for h in range(len(lattice.keys))
        if lattice.size[h] >= 2
        and lattice.cards[h][pair]
        and (not one_card or lattice.size[h] == 2)
    ]
    hands.sort(key=lattice.hard.__getitem__, reverse=True)
    pairs = {h: lattice.cards[h][pair] for h in hands}
    rest = {h: lattice.keys[h] - pairs[h] * CARD[pair] for h in hands}
    rest_cards = {
        h: tuple(v for v in PAIR_WALK if v != pair for _ in range(lattice.cards[h][v]))
        for h in hands
    }
    return Members(decks, pair, tuple(hands), pairs, rest, rest_cards, {})


@dataclass(frozen=True, slots=True)
class SplitResult:
    value: float  # the expected sum of the hands' results (unconditional)
    square: float  # the expected square of that sum (the chart only; 0 for CDZ-)


class PairPlay:
    """Every hand one pair can become against one up card, valued for any number of extra
    pair cards out, for CDZ- and for the chart."""

    def __init__(self, u: UpCard, pair: int) -> None:
        # shared by every rule set with the same split rules (:func:`signature`): only the
        # up card's shoe and odds and those rules are read from ``u``
        self.u = u
        self.pair = pair
        game = u.game
        lattice = u.lattice
        self.one_card = pair == 1 and game.rules.split_aces_one_card
        self.split_natural = game.rules.split_21_is_natural
        self.pays = game.play.natural_pays_float
        self._removal_of = (game.rules.decks, game.play.hits_soft_17, u.up, pair)
        self._removal: PairRemoval | None = None
        self._removal_odds: Packed | None = None  # its odds computed in a worker
        self.info = info = members_of(lattice.decks, pair, self.one_card)
        self.members, self.pairs, self.rest, self._rest_cards = (
            info.hands,
            info.pairs,
            info.rest,
            info.rest_cards,
        )
        self._natural_card = 10 if u.up == 1 else 1 if u.up == 10 else 0
        self._stand_memo: dict[int, float] = {}
        self._stand_of = stand_functions(lattice.decks)
        self._keys, self._index, self._card = lattice.keys, lattice.index, CARD[pair]
        self._reached: dict[tuple[str, Hashable], list[int]] = {}
        self.decisions: dict[Hashable, dict[int, str]] = {}  # CDZ-'s under OPTIMAL, else per chart
        self.values0: dict[int, float] = {}
        self._optimal_decided = False
        self._levels: dict[tuple[str, Hashable, int, bool], tuple[float, float, float, float]] = {}
        self._cross: dict[Hashable, float] = {}
        self._results: dict[tuple[str, Hashable, int, int], SplitResult] = {}
        self._chart: Chart | None = None  # the last chart asked, and its decisions
        self._chart_decisions: dict[int, str] = {}

    # -- sent from a worker process (:func:`.cdz.deal_values`) ------------------------------
    # what the parent rebuilds or finds in its own caches, dropped on the way: the up card
    # (linked again by :meth:`attach`), the members and the lattice's tables, and the
    # pair's removal, of which only the odds it memoised travel (its layout the parent
    # builds on first need; its reduced vectors were released once the pair's deal was
    # valued)
    _LOCAL = (
        "u",
        "info",
        "members",
        "pairs",
        "rest",
        "_rest_cards",
        "_stand_of",
        "_keys",
        "_index",
        "_card",
        "_removal",
        "_chart",
        "_chart_decisions",
    )

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        for name in self._LOCAL:
            del state[name]
        state["_removal_odds"] = self._removal.memo() if self._removal is not None else None
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)

    def attach(self, u: UpCard) -> None:
        """Link a pair received from a worker to ``u`` (the same up card, shoe and rules)."""
        self.u = u
        lattice = u.lattice
        self._removal = None
        self.info = info = members_of(lattice.decks, self.pair, self.one_card)
        self.members, self.pairs, self.rest, self._rest_cards = (
            info.hands,
            info.pairs,
            info.rest,
            info.rest_cards,
        )
        self._stand_of = stand_functions(lattice.decks)
        self._keys, self._index, self._card = lattice.keys, lattice.index, CARD[self.pair]
        self._chart = None
        self._chart_decisions = {}

    # -- compositions ---------------------------------------------------------------------
    @property
    def removal(self) -> PairRemoval:
        """The pair's dealer odds beyond the stand table, built on first need: splits to two
        hands read only the stand table, and building the ten up cards' nine pair layouts
        would cost them about 0.2 s."""
        if self._removal is None:
            self._removal = pair_removal(*self._removal_of)
            if self._removal_odds is not None:  # received from a worker: the same floats
                self._removal.remember(self._removal_odds)
                self._removal_odds = None
        return self._removal

    def _prepare(self, extras: Iterable[int], hands: Collection[int]) -> None:
        """Reduce, in one walk (hands share their leading cards across the numbers of
        extra pair cards), the dealer's finals for the hands whose composition with
        ``extra`` pair cards out is not a stand-table hand and whose odds are not
        memoised already."""
        todo: list[tuple[int, tuple[int, ...]]] = []
        for extra in extras:
            if extra == 1 and self.pair != 1:
                continue  # the stand table has them all (split aces' not: see stand_table)
            known = self.removal.known
            beyond = self.info.beyond(extra)
            if extra == 1:
                keys, card, table = self._keys, self._card, self.u.beyond
                beyond = frozenset(h for h in beyond if keys[h] + card not in table)
            todo.extend(
                (self.rest[h], self._rest_cards[h])
                for h in hands
                if h in beyond and not known(self.rest[h], self.pairs[h] + extra)
            )
        if todo:
            self.removal.prepare(todo)

    def stand(self, h: int, extra: int) -> float:
        """The stand value of lattice hand ``h`` with ``extra`` pair cards out besides its
        own."""
        memo = h * 64 + extra  # extra < 64: an int key hashes faster than a tuple
        cached = self._stand_memo.get(memo)
        if cached is not None:
            return cached
        result = self._stand_memo[memo] = self._stand_of[h](self.odds(h, extra))
        return result

    def push(self, h: int, extra: int) -> float:
        return push_probability(self.odds(h, extra), self.u.lattice.best[h])

    def odds(self, h: int, extra: int) -> Sequence[float]:
        """The dealer's odds against hand ``h`` with ``extra`` pair cards out: the stand
        table's where it has them (every such composition that is a hand, and with one
        extra pair card all), else from the pair's removal."""
        u = self.u
        whole = self._keys[h] + extra * self._card
        index = self._index.get(whole)
        if index is not None:
            odds = u.odds[index]
            if odds is not None:
                return odds
        elif extra == 1:
            found = u.beyond.get(whole)
            if found is not None:
                return found
        return self.removal.odds(self.rest[h], self.pairs[h] + extra)

    def _left(self, h: int, extra: int) -> tuple[list[int], int]:
        """Per value (index 1-10), the cards left once the up card, ``h`` and ``extra``
        pair cards are out; and how many in all."""
        own = self.u.lattice.cards[h]
        left = [0] + [count - own[v] for v, count in enumerate(self.u.counts, start=1)]
        left[self.pair] -= extra
        return left, self.u.n - self.u.lattice.size[h] - extra

    def _p_natural(self, h: int, extra: int) -> float:
        """P(the hole card makes a dealer natural) for hand ``h``."""
        if not self._natural_card:
            return 0.0
        left, n = self._left(h, extra)
        return left[self._natural_card] / n

    # -- decisions -------------------------------------------------------------------------
    def _legal(self, h: int) -> frozenset[str]:
        lattice = self.u.lattice
        return self.u.legal_after_split(lattice.hard[h], lattice.has_ace[h], lattice.size[h] == 2)

    def _leaf(self, h: int) -> str:
        """A one-card split ace's action."""
        return (
            NATURAL_LEAF
            if self.split_natural and self.u.lattice.keys[h] == CARD[1] + CARD[10]
            else STAND
        )

    def _decide_optimal(self) -> None:
        """CDZ-: the best action of every hand from the composition at the split."""
        self._optimal_decided = True
        decisions: dict[int, str] = {}
        value = self.values0
        if self.one_card:
            for h in self.members:
                decisions[h] = action = self._leaf(h)
                value[h] = self._value(h, action, 1, value)
            self.decisions[OPTIMAL] = decisions
            return
        if self.pair == 1:
            self._prepare([1], self.members)  # split aces taking more cards (stand_table)
        u, pair = self.u, self.pair
        lattice = u.lattice
        counts, n = u.counts, u.n
        natural_card = self._natural_card if u.conditioned else 0
        keys, index, card, table, beyond = self._keys, self._index, self._card, u.odds, u.beyond
        stand_memo, stand_of = self._stand_memo, self._stand_of
        # per value (1-10): the cards of it left once the up card and the other pair card
        # are out (each hand then takes off its own)
        shoe = [counts[c - 1] - (1 if c == pair else 0) for c in range(1, 11)]
        legal_of: dict[tuple[int, bool, bool], frozenset[str]] = {}
        stood: dict[int, float] = {}
        cards_of, size_of, child_of, hard_of, ace_of = (
            lattice.cards,
            lattice.size,
            lattice.child,
            lattice.hard,
            lattice.has_ace,
        )
        for h in self.members:  # children before parents
            shape = (hard_of[h], ace_of[h], size_of[h] == 2)
            legal = legal_of.get(shape)
            if legal is None:
                legal = legal_of[shape] = u.legal_after_split(*shape)
            own = cards_of[h]
            left = n - size_of[h] - 1
            children = child_of[h]
            best_action = STAND
            # the stand table's odds read here, not through stand() and odds(): this loop
            # runs for some 7,000 hands per up card. Every child holds the pair card too
            # and was decided before it: its stand value is read from ``stood``
            whole = keys[h] + card
            found = index.get(whole)
            odds = table[found] if found is not None else beyond.get(whole)
            stood[h] = standing = stand_memo[h * 64 + 1] = stand_of[h](
                odds if odds is not None else self.odds(h, 1)
            )  # None: split aces taking more cards
            best_value = standing if STAND in legal else float("-inf")
            may_double = DOUBLE in legal
            hit = double = 0.0
            for in_shoe, held, child in zip(shoe, own[1:], children[1:]):  # values 1-10 in order
                k = in_shoe - held
                if k > 0:
                    if child >= 0:
                        hit += k * value[child]
                        if may_double:
                            double += k * stood[child]
                    else:
                        hit -= k
                        double -= k
            if HIT in legal and hit / left > best_value:
                best_action, best_value = HIT, hit / left
            if may_double:
                double = 2.0 * double / left
                if natural_card:
                    double += (
                        counts[natural_card - 1]
                        - own[natural_card]
                        - (1 if natural_card == pair else 0)
                    ) / left
                if double > best_value:
                    best_action, best_value = DOUBLE, double
            decisions[h] = best_action
            value[h] = best_value
        self.decisions[OPTIMAL] = decisions

    def _decision(self, who: str, h: int, chart: Chart | None) -> str:
        if who == OPTIMAL:
            return self.decisions[OPTIMAL][h]
        assert chart is not None
        if chart is not self._chart:  # chart_key builds tuples of the whole chart
            self._chart, self._chart_decisions = (
                chart,
                self.decisions.setdefault(chart_key(chart), {}),
            )
        chart_decisions = self._chart_decisions
        action = chart_decisions.get(h)
        if action is None:
            if self.one_card:
                action = self._leaf(h)
            else:
                u, lattice = self.u, self.u.lattice
                pair_arg = self.pair if lattice.size[h] == 2 and self.pairs[h] == 2 else 0
                action = chart.decide(
                    u.up, lattice.hard[h], lattice.has_ace[h], pair_arg, self._legal(h)
                )
            chart_decisions[h] = action
        return action

    def _seconds(self) -> list[int]:
        """The two-card hands: the pair card and each second card."""
        index = self.u.lattice.index
        keys = (CARD[self.pair] + CARD[c] for c in range(1, 11))
        return [index[key] for key in keys if key in index]

    def reach(self, who: str, chart: Chart | None) -> list[int]:
        """The hands the strategy can reach, children before parents (a double's
        one-card extensions are valued as stands, not reached)."""
        memo = (who, chart_key(chart) if who == CHART else None)
        if memo in self._reached:
            return self._reached[memo]
        if who == OPTIMAL and not self._optimal_decided:
            self._decide_optimal()
        children = self.u.lattice.child
        seen: set[int] = set()
        todo = self._seconds()
        while todo:
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            if self._decision(who, h, chart) == HIT:
                todo.extend(child for child in children[h][1:] if child >= 0)
        reached = self._reached[memo] = [h for h in self.members if h in seen]
        return reached

    # -- one hand's value ---------------------------------------------------------------
    def _value(self, h: int, action: str, extra: int, value: dict[int, float]) -> float:
        """One hand's value for one action, children's values taken from ``value``."""
        if action == STAND:
            return self.stand(h, extra)
        u = self.u
        conditioned = u.conditioned
        if action == NATURAL_LEAF:
            p = self._p_natural(h, extra)
            return self.pays * (1.0 - p) - (p if conditioned else 0.0)
        left, n = self._left(h, extra)
        children = u.lattice.child[h]
        total = 0.0
        if action == DOUBLE:
            for c in range(1, 11):
                if left[c] > 0:
                    child = children[c]
                    total += left[c] * (self.stand(child, extra) if child >= 0 else -1.0)
            correction = left[self._natural_card] / n if conditioned and self._natural_card else 0.0
            return 2.0 * total / n + correction
        for c in range(1, 11):
            if left[c] > 0:
                child = children[c]
                total += left[c] * (value[child] if child >= 0 else -1.0)
        return total / n

    def _square(self, h: int, action: str, extra: int, square: dict[int, float]) -> float:
        """E[result squared] of one hand for one action (unit stake): a natural lost in a
        peek game counts 1 whatever was doubled (the round ends at the peek)."""
        u = self.u
        if action == STAND:
            return 1.0 - self.push(h, extra)
        if action == NATURAL_LEAF:
            p = self._p_natural(h, extra)
            return self.pays * self.pays * (1.0 - p) + (p if u.conditioned else 0.0)
        left, n = self._left(h, extra)
        children = u.lattice.child[h]
        total = 0.0
        if action == DOUBLE:
            # 4 (1 - P(push)) - 3 P(natural) where the natural costs one unit only
            for c in range(1, 11):
                if left[c] > 0 and children[c] >= 0:
                    total += left[c] * self.push(children[c], extra)
            p = self._p_natural(h, extra) if u.conditioned else 0.0
            return 4.0 * (1.0 - total / n) - 3.0 * p
        for c in range(1, 11):
            if left[c] > 0:
                child = children[c]
                total += left[c] * (square[child] if child >= 0 else 1.0)
        return total / n

    def _outcomes(self, h: int, action: str, value: dict[int, list[float]]) -> list[float]:
        """E[result 1{dealer outcome o}] per outcome, no extra pair cards: for the
        covariance of two hands of one split (the chart's play)."""
        odds = self.odds(h, 1)
        if action in (STAND, NATURAL_LEAF):
            return [p * self._payoff(h, action, o) for o, p in enumerate(odds)]
        left, n = self._left(h, 1)
        children = self.u.lattice.child[h]
        stake = 2.0 if action == DOUBLE else 1.0
        # busting: the stake is lost whatever the dealer holds; by burn invariance the
        # dealer's odds after the busting cards are the hand's odds less those after
        # the cards that do not bust
        out = [-stake * p for p in odds]
        for c in range(1, 11):
            child = children[c]
            if left[c] <= 0 or child < 0:
                continue
            q = left[c] / n
            child_odds = self.odds(child, 1)
            inner = (
                [p * self._payoff(child, STAND, o) for o, p in enumerate(child_odds)]
                if action == DOUBLE
                else value[child]
            )
            for o in range(N_OUTCOMES):
                out[o] += q * (stake * inner[o] + stake * child_odds[o])
        return out

    # -- the split ---------------------------------------------------------------------------
    def second_card(self, values: dict[int, float], a: int) -> tuple[float, float]:
        """(X, P): a split hand's quantity with any second card, and with a pair card,
        drawn from the shoe less the up card and ``a + 2`` pair cards."""
        u, pair = self.u, self.pair
        index = u.lattice.index
        left = u.n - a - 2
        x = 0.0
        for c in range(1, 11):
            k = u.counts[c - 1] - (a + 2 if c == pair else 0)
            if k > 0:
                x += k * values[index[CARD[pair] + CARD[c]]]
        both = index.get(2 * CARD[pair])
        return x / left, values.get(both, 0.0) if both is not None else 0.0

    def hand_levels(
        self, who: str, levels: int, squares: bool, chart: Chart | None
    ) -> list[tuple[float, float, float, float]]:
        """(X, P, X squared, P squared) for ``who`` with 0 .. ``levels - 1`` extra pair
        cards out (the squares only if ``squares``)."""
        key = chart_key(chart) if who == CHART else None
        todo = [a for a in range(levels) if (who, key, a, squares) not in self._levels]
        if todo:
            reached = self.reach(who, chart)
            children = self.u.lattice.child
            decisions = [self._decision(who, h, chart) for h in reached]
            # the hands whose dealer odds a level reads: those standing and a double's
            # one-card extensions (a hand hitting takes its children's values; a one-card
            # ace's natural needs no odds)
            leaves: set[int] = set()
            for h, action in zip(reached, decisions, strict=True):
                if action == STAND:
                    leaves.add(h)
                elif action == DOUBLE:
                    leaves.update(child for child in children[h][1:] if child >= 0)
            self._prepare([a + 1 for a in todo], leaves)
            for a in todo:
                self._levels[(who, key, a, squares)] = self._level(
                    who, a, squares, reached, decisions
                )
        return [self._levels[(who, key, a, squares)] for a in range(levels)]

    def _level(
        self, who: str, a: int, squares: bool, reached: list[int], decisions: list[str]
    ) -> tuple[float, float, float, float]:
        """One number of extra pair cards: every reached hand's value (and second moment)
        under its decision, then the second card's average."""
        if who == OPTIMAL and a == 0 and not squares:
            # the values with no extra pair card are the ones CDZ- decided on
            return (*self.second_card(self.values0, 0), 0.0, 0.0)
        extra = a + 1
        u, pair = self.u, self.pair
        lattice = u.lattice
        cards, child_of, size_of = lattice.cards, lattice.child, lattice.size
        counts, n = u.counts, u.n
        natural_card = self._natural_card if u.conditioned else 0
        stand, push = self.stand, self.push
        # per value (1-10): the cards of it left once the up card and the extra pair cards
        # are out (each hand then takes off its own)
        shoe = [counts[c - 1] - (extra if c == pair else 0) for c in range(1, 11)]
        value: dict[int, float] = {}
        square: dict[int, float] = {}
        for h, action in zip(reached, decisions, strict=True):
            if action == STAND:
                value[h] = stand(h, extra)
                if squares:
                    square[h] = 1.0 - push(h, extra)
                continue
            if action == NATURAL_LEAF:
                value[h] = self._value(h, action, extra, value)
                if squares:
                    square[h] = self._square(h, action, extra, square)
                continue
            own = cards[h]
            children = child_of[h]
            left = n - size_of[h] - extra
            total = total_sq = 0.0
            if action == DOUBLE:
                pushes = 0.0
                for in_shoe, held, child in zip(
                    shoe, own[1:], children[1:]
                ):  # values 1-10 in order
                    k = in_shoe - held
                    if k > 0:
                        if child >= 0:
                            total += k * stand(child, extra)
                            if squares:
                                pushes += k * push(child, extra)
                        else:
                            total -= k
                p_natural = (
                    (
                        counts[natural_card - 1]
                        - own[natural_card]
                        - (extra if natural_card == pair else 0)
                    )
                    / left
                    if natural_card
                    else 0.0
                )
                value[h] = 2.0 * total / left + p_natural
                if squares:
                    square[h] = 4.0 * (1.0 - pushes / left) - 3.0 * p_natural
                continue
            for in_shoe, held, child in zip(shoe, own[1:], children[1:]):  # values 1-10 in order
                k = in_shoe - held
                if k > 0:
                    if child >= 0:
                        total += k * value[child]
                        if squares:
                            total_sq += k * square[child]
                    else:
                        total -= k
                        total_sq += k
            value[h] = total / left
            if squares:
                square[h] = total_sq / left
        if who == OPTIMAL and a == 0:
            x, p = self.second_card(self.values0, 0)
        else:
            x, p = self.second_card(value, a)
        x2 = p2 = 0.0
        if squares:
            x2, p2 = self.second_card(square, a)
        return x, p, x2, p2

    def cross_moment(self, chart: Chart) -> float:
        """E[X_i X_j] for two hands of one split played by the chart, as if independent
        given the dealer's outcome: sum over outcomes o of E[X 1{o}]^2 / P(o), for one hand
        with any second card and no extra pair card (where a natural costs only the
        original stake, the natural's outcome is left out: the round then ends at -1)."""
        key = chart_key(chart)
        if key in self._cross:
            return self._cross[key]
        u, pair = self.u, self.pair
        value: dict[int, list[float]] = {}
        for h in self.reach(CHART, chart):
            value[h] = self._outcomes(h, self._decision(CHART, h, chart), value)
        index = u.lattice.index
        left = u.n - 2
        resolved = [0.0] * N_OUTCOMES
        for c in range(1, 11):
            k = u.counts[c - 1] - (2 if c == pair else 0)
            if k > 0:
                for o, e in enumerate(value[index[CARD[pair] + CARD[c]]]):
                    resolved[o] += k / left * e
        both = u.odds[index[2 * CARD[pair]]]
        assert both is not None
        total = 0.0
        for o, p in enumerate(both):
            if p > 0.0 and not (o == NATURAL and u.conditioned):
                total += resolved[o] * resolved[o] / p
        self._cross[key] = total
        return total

    def split(self, who: str, pairs_left: int, limit: int, chart: Chart) -> SplitResult:
        """Splitting the pair into at most ``limit`` hands: the unconditional value (and,
        for the chart, the second moment of the round's result)."""
        memo = (who, chart_key(chart) if who == CHART else None, pairs_left, limit)
        if memo not in self._results:
            self._results[memo] = self._split(who, pairs_left, limit, chart)
        return self._results[memo]

    def _split(self, who: str, pairs_left: int, limit: int, chart: Chart) -> SplitResult:
        u, pair = self.u, self.pair
        cards = u.n - 2
        squares = who == CHART
        levels = self.hand_levels(who, extra_pairs_needed(pairs_left, limit) + 1, squares, chart)
        ev = combine(lambda a: levels[a][0], lambda a: levels[a][1], pairs_left, cards, limit)
        square = 0.0
        if squares:
            square = combine(
                lambda a: levels[a][2], lambda a: levels[a][3], pairs_left, cards, limit
            )
            square += growth(
                pairs_left, cards, limit
            ).expected_pairs_of_hands() * self.cross_moment(chart)
        if u.conditioned and self._natural_card:
            # each hand counted -1 (and 1 squared) against a natural that costs one unit
            hole = self._natural_card
            left_hole = u.counts[hole - 1] - (2 if pair == hole else 0)
            p_natural = left_hole / cards
            if p_natural > 0.0:
                if pair == hole and pairs_left != u.counts[pair - 1] - 2:
                    # splitting tens by rank: the hole card is of the pair's rank or not
                    share = pairs_left / left_hole
                    hands = (
                        share * growth(pairs_left - 1, cards - 1, limit).expected_hands()
                        + (1 - share) * growth(pairs_left, cards - 1, limit).expected_hands()
                    )
                else:
                    hands = growth(
                        pairs_left - (1 if pair == hole else 0), cards - 1, limit
                    ).expected_hands()
                ev += (hands - 1.0) * p_natural
                square -= (hands - 1.0) * p_natural
        return SplitResult(ev, square)

    def release(self) -> None:
        """Forget the reduced dealer vectors (kept memoised: the odds)."""
        if self._removal is not None:
            self._removal.release()

    def _payoff(self, h: int, action: str, outcome: int) -> float:
        """A standing hand's result against one dealer outcome (unit stake)."""
        if action == NATURAL_LEAF:
            return 0.0 if outcome == NATURAL else self.pays
        if outcome == BUST:
            return 1.0
        if outcome == NATURAL:
            return -1.0
        total, dealer = self.u.lattice.best[h], 17 + outcome
        return 1.0 if total > dealer else 0.0 if total == dealer else -1.0


def chart_key(chart: Chart | None) -> Hashable:
    """What a chart decides, as a dict key (two rule sets may share a chart)."""
    if chart is None:
        return None
    return (tuple(chart.hard.items()), tuple(chart.soft.items()), tuple(chart.pairs.items()))


# PairPlay objects shared between rule sets whose split hands are played alike
_SHARED: OrderedDict[Hashable, PairPlay] = OrderedDict()
SHARED_LIMIT = 200


def pair_play(u: UpCard, pair: int) -> PairPlay:
    """The (shared) analysis of a pair against ``u``'s up card under ``u``'s rules."""
    key = _shared_key(u, pair)
    found = _SHARED.get(key)
    if found is None:
        found = PairPlay(u, pair)
        adopt(u, pair, found)
    else:
        _SHARED.move_to_end(key)
    return found


def adopt(u: UpCard, pair: int, played: PairPlay) -> None:
    """Share ``played`` (made here, or received from a worker) as the analysis of
    ``pair`` against ``u``'s up card under ``u``'s rules."""
    _SHARED[_shared_key(u, pair)] = played
    while len(_SHARED) > SHARED_LIMIT:
        _SHARED.popitem(last=False)


def _shared_key(u: UpCard, pair: int) -> Hashable:
    """Which rule sets play a pair's split hands alike against ``u``'s up card."""
    play, rules = u.game.play, u.game.rules
    one_card = pair == 1 and rules.split_aces_one_card
    # a natural's cost matters only against an ace or a ten up
    conditioned = u.conditioned and u.up in (1, 10)
    # which split hands may double, asked of the rules (whatever decides it)
    doubles = tuple(
        play.can_double(hard, soft, after_split=True)
        for hard in range(2, 22)
        for soft in (False, True)
        if not soft or hard <= 11
    )
    return (
        rules.decks,
        play.hits_soft_17,
        u.up,
        pair,
        conditioned,
        doubles,
        play.must_hit_below,
        play.stand_from,
        one_card,
        rules.split_21_is_natural and one_card and play.natural_pays,
    )
