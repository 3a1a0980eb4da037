"""Exact values of every first deal: composition-dependent play (CDZ-) and the chart.

Every decision is valued from the exact remaining composition: the shoe less the up card
and every card of the hand, the hand's own hit cards included (the dealer's odds from
:mod:`.dealer_removal`, one walk over every hand for every up card). Two players are
valued side by side:

* **CDZ-** ("composition-dependent, zero memory"): each decision of an unsplit hand is
  the best one for that hand's own cards against the up card; split hands as
  :mod:`.split_hands` says (decided from the composition at the split, then fixed);
* **the chart** (:mod:`.strategy`): the rule set's total-dependent chart, played at every
  decision (after a split too), valued with the same exact compositions.

Splits are exact for those fixed post-split strategies (:mod:`.splits`, Farmer's method):
resplits up to ``max_split_hands``; "unlimited" is valued up to
:data:`UNLIMITED_SPLIT_HANDS` hands.

All values are *unconditional* on the hole card, per unit of initial stake: where a dealer
natural costs only the original stake (a peek, or ``dealer_natural_takes = original``)
each hand's value counts the natural as -1 and a double's as -2 + 1; a split, whose hands
would each lose 1, gets back ``(E[hands | natural] - 1) P(natural)``; where the natural
takes every stake nothing is corrected. Decisions compare values that share the same
natural term, so they are the decisions of the conditioned game.

For the chart the second moment of every deal's result is carried too (:mod:`.variance`).
"""

from __future__ import annotations

import gc
import multiprocessing
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.queues import SimpleQueue

from audit.record.processes import process_pool

from ..rules import RuleSet
from .composition import Composition, shoe
from .dealer import NATURAL, Odds, push_probability, stand_value
from .dealer_removal import StandRows, stand_rows
from .deals import Deal, initial_deals
from .ev import DOUBLE, HIT, SPLIT, STAND, legal_actions
from .hands import CARD, hands_of
from .processes import processes
from .rulesview import PlayRules
from .split_hands import CHART, OPTIMAL, PairPlay, SplitResult, adopt, pair_play
from .strategy import Chart, chart_for

# "max_split_hands = None": the split is valued up to this many hands. A ninth hand needs
# seven resplit cards among the first draws: below 1e-7 of splits for every pair but
# tens, which neither the chart nor CDZ- splits.
UNLIMITED_SPLIT_HANDS = 8

NATURAL_DEAL = "natural"


class Game:
    """One rule set and its chart, analysed up card by up card (lazily).

    The chart is the one given, else the rule set's (:func:`~.strategy.chart_for`),
    computed on first need: from nothing, :func:`deal_values` forks its workers first
    and computes the chart while they walk the dealer's odds, which need none."""

    def __init__(self, rules: RuleSet, chart: Chart | None = None) -> None:
        self.rules = rules
        self._chart = chart
        self.play = PlayRules.of(rules)
        self.full: Composition = shoe(rules.decks)
        self._ups: dict[int, UpCard] = {}

    @property
    def chart(self) -> Chart:
        if self._chart is None:
            self._chart = chart_for(self.rules)
        return self._chart

    def chart_known(self) -> bool:
        return self._chart is not None

    def give_chart(self, chart: Chart) -> None:
        """The chart, computed elsewhere (a forked worker's, by its parent)."""
        self._chart = chart

    def up(self, up: int) -> UpCard:
        if up not in self._ups:
            self._ups[up] = UpCard(self, up)
        return self._ups[up]

    def hand_limit(self, pair: int) -> int:
        """How many hands a pair of ``pair`` may become (1: no split)."""
        if not self.play.can_split(pair):
            return 1
        if pair == 1 and not self.rules.resplit_aces:
            return 2
        limit = self.rules.max_split_hands
        return UNLIMITED_SPLIT_HANDS if limit is None else min(limit, UNLIMITED_SPLIT_HANDS)

    def release(self) -> None:
        """Forget the split hands' reduced dealer vectors (their stand values stay)."""
        for u in self._ups.values():
            for pair in u.pairs.values():
                pair.release()


class UpCard:
    """Every hand's values against one up card: stand, hit and (3+ cards) its value played
    on, for CDZ- and for the chart (with the chart's second moments); doubles and splits
    on demand."""

    def __init__(self, game: Game, up: int) -> None:
        self.game = game
        self.up = up
        play = game.play
        self.lattice = lattice = hands_of(game.rules.decks)
        counts = list(game.full)
        counts[up - 1] -= 1
        self.counts: Composition = tuple(counts)
        self.n = sum(counts)
        self.conditioned = play.peeks(up) or not play.natural_takes_all
        per_hand, over = stand_rows(game.rules.decks, play.hits_soft_17, up)
        self.odds: list[Odds | None] = list(per_hand)
        # split hands with the other pair card out, more than 21 in all (keyed by all cards)
        self.beyond = over
        size = len(lattice.keys)
        self.stand = [0.0] * size
        self.push = [0.0] * size
        self.natural = [0.0] * size  # P(dealer natural)
        self.hit_opt = [0.0] * size
        self.hit_chart = [0.0] * size
        self.hit_chart_square = [0.0] * size
        self.on_opt = [0.0] * size  # a hand of 3+ cards played on
        self.on_chart = [0.0] * size
        self.on_chart_square = [0.0] * size
        self.hits_opt = [False] * size
        self.hits_chart = [False] * size
        self.pairs: dict[int, PairPlay] = {}
        self._splits: dict[tuple[int, str, int], SplitResult] = {}
        self._legal_split: dict[tuple[int, bool, bool], frozenset[str]] = {}
        self._pass()

    # -- sent from a worker process (see deal_values) ---------------------------------------
    def __getstate__(self) -> dict[str, object]:
        """Everything but what the parent has already (the game, the lattice, the stand
        table's rows): the values of every hand and the pairs' split analyses."""
        state = dict(self.__dict__)
        for name in ("game", "lattice", "odds", "beyond"):
            del state[name]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)

    def attach(self, game: Game) -> None:
        """Link an up card received from a worker to ``game`` (its rows already given
        to :func:`~.dealer_removal.stand_rows`), and its pairs to it."""
        self.game = game
        self.lattice = hands_of(game.rules.decks)
        per_hand, self.beyond = stand_rows(game.rules.decks, game.play.hits_soft_17, self.up)
        self.odds = list(per_hand)
        for pair, played in self.pairs.items():
            played.attach(self)
            adopt(self, pair, played)

    def _pass(self) -> None:
        """Hands of three or more cards, children (higher hard totals) first."""
        lattice, game = self.lattice, self.game
        counts, n = self.counts, self.n
        chart_hits: dict[tuple[int, bool], tuple[bool, bool, bool]] = {}
        order = sorted(range(len(lattice.keys)), key=lattice.hard.__getitem__, reverse=True)
        on_opt, on_chart, on_square = self.on_opt, self.on_chart, self.on_chart_square
        for h in order:
            if lattice.size[h] < 2:
                continue
            odds = self.odds[h]
            if odds is None:
                continue
            best = lattice.best[h]
            st = self.stand[h] = stand_value(odds, best)
            push = self.push[h] = push_probability(odds, best)
            self.natural[h] = odds[NATURAL]
            own = lattice.cards[h]
            left = n - lattice.size[h]
            children = lattice.child[h]
            h_opt = h_chart = h_square = 0.0
            # values 1-10 in order (the sums' order): zip reads the three rows without indexing
            for in_shoe, held, j in zip(counts, own[1:], children[1:]):
                k = in_shoe - held
                if k <= 0:
                    continue
                if j < 0:
                    h_opt -= k
                    h_chart -= k
                    h_square += k
                else:
                    h_opt += k * on_opt[j]
                    h_chart += k * on_chart[j]
                    h_square += k * on_square[j]
            h_opt /= left
            h_chart /= left
            h_square /= left
            self.hit_opt[h] = h_opt
            self.hit_chart[h] = h_chart
            self.hit_chart_square[h] = h_square
            shape = (lattice.hard[h], lattice.has_ace[h])
            rule = chart_hits.get(shape)
            if rule is None:
                legal = legal_actions(
                    game.play, self.up, shape[0], shape[1], 3, 0, after_split=False
                )
                chart_choice = game.chart.decide(self.up, shape[0], shape[1], 0, legal)
                rule = chart_hits[shape] = (HIT in legal, STAND in legal, chart_choice == HIT)
            may_hit, may_stand, chart_hit = rule
            opt_hit = may_hit and (not may_stand or h_opt > st)
            self.hits_opt[h] = opt_hit
            on_opt[h] = h_opt if opt_hit else st
            self.hits_chart[h] = chart_hit
            on_chart[h] = h_chart if chart_hit else st
            on_square[h] = h_square if chart_hit else 1.0 - push

    def legal_after_split(self, hard: int, has_ace: bool, two_cards: bool) -> frozenset[str]:
        key = (hard, has_ace, two_cards)
        legal = self._legal_split.get(key)
        if legal is None:
            legal = self._legal_split[key] = legal_actions(
                self.game.play, self.up, hard, has_ace, 2 if two_cards else 3, 0, after_split=True
            )
        return legal

    # -- two-card decisions -------------------------------------------------------------
    def double(self, h: int) -> float:
        """Double a two-card hand: one card, twice the stake (a natural's correction
        included)."""
        lattice = self.lattice
        own = lattice.cards[h]
        total = 0.0
        for c in range(1, 11):
            k = self.counts[c - 1] - own[c]
            if k > 0:
                j = lattice.child[h][c]
                total += k * (self.stand[j] if j >= 0 else -1.0)
        return 2.0 * total / (self.n - lattice.size[h]) + (
            self.natural[h] if self.conditioned else 0.0
        )

    def double_square(self, h: int) -> float:
        """E[result squared] of a double: 4 (1 - P(push)), less 3 P(natural) where a
        natural costs the original stake only."""
        lattice = self.lattice
        own = lattice.cards[h]
        pushes = 0.0
        for c in range(1, 11):
            k = self.counts[c - 1] - own[c]
            j = lattice.child[h][c]
            if k > 0 and j >= 0:
                pushes += k * self.push[j]
        square = 4.0 * (1.0 - pushes / (self.n - lattice.size[h]))
        return square - (3.0 * self.natural[h] if self.conditioned else 0.0)

    def surrender(self, h: int) -> tuple[float, float]:
        """(value, square) of surrendering: late (after the peek) where the dealer peeks,
        else whatever the dealer holds."""
        give_up = self.game.play.surrender_loss
        if self.game.play.peeks(self.up):
            p = self.natural[h]
            return -p + (1.0 - p) * give_up, p + (1.0 - p) * give_up * give_up
        return give_up, give_up * give_up

    def player_natural(self, h: int) -> tuple[float, float]:
        """(value, square) of a player natural: paid unless the dealer has one too."""
        pays = self.game.play.natural_pays_float
        p = self.natural[h]
        return pays * (1.0 - p), pays * pays * (1.0 - p)

    def value(self, h: int, action: str, pair: int, who: str, rank_pairs: int | None) -> float:
        """The unconditional value of one action of a two-card hand."""
        if action == STAND:
            return self.stand[h]
        if action == HIT:
            return self.hit_opt[h] if who == OPTIMAL else self.hit_chart[h]
        if action == DOUBLE:
            return self.double(h)
        if action == SPLIT:
            return self.split(pair, who, rank_pairs).value
        return self.surrender(h)[0]

    def square(self, h: int, action: str, pair: int, rank_pairs: int | None) -> float:
        """E[result squared] of the chart's action on a two-card hand."""
        if action == STAND:
            return 1.0 - self.push[h]
        if action == HIT:
            return self.hit_chart_square[h]
        if action == DOUBLE:
            return self.double_square(h)
        if action == SPLIT:
            return self.split(pair, CHART, rank_pairs).square
        return self.surrender(h)[1]

    def split(self, pair: int, who: str, rank_pairs: int | None = None) -> SplitResult:
        """Splitting a pair of ``pair`` (resplitting as the rules allow), the hands played
        by ``who``; ``rank_pairs`` (splitting tens by rank) the cards left that make a pair."""
        pairs_left = self.counts[pair - 1] - 2 if rank_pairs is None else rank_pairs
        memo = (pair, who, pairs_left)
        if memo not in self._splits:
            if pair not in self.pairs:
                self.pairs[pair] = pair_play(self, pair)
            self._splits[memo] = self.pairs[pair].split(
                who, pairs_left, self.game.hand_limit(pair), self.game.chart
            )
        return self._splits[memo]


@dataclass(frozen=True, slots=True)
class DealValue:
    """One first deal: its probability, its value under CDZ- and under the chart, and
    the chart's first decision and second moment."""

    probability: float
    optimal: float
    chart: float
    chart_action: str  # NATURAL_DEAL or the chart's first decision
    chart_square: float
    dealer_natural: float  # P(the hole card makes a dealer natural)


def deal_values(game: Game) -> list[DealValue]:
    """Every first deal of the shoe valued for CDZ- and for the chart.

    In parallel: from nothing (the shoe's stand table not walked yet in this process) and
    where :func:`~.processes.processes` allows more than one process, the up cards are
    shared among that many forked workers, the heaviest first. The workers are forked
    before the chart: each walks its first up card's stand rows (which need no chart)
    while this process computes the chart, then takes it from a queue. Each worker
    analyses its up cards as this process would (the stand table's rows, the hands, the
    splits), its collector off (its heap is thrown away when it ends; a full collection
    over it cost a tenth of its CPU), and sends back their rows, their deals' values and
    the up cards' analyses (each hand's values, the split analyses, the pairs' dealer odds
    packed; not the reduced dealer vectors); the deals are merged in their serial order,
    so the values are the same floats. The rows and the split analyses are kept here as
    if computed here, each up card as it comes: a second rule set on the same shoe finds
    them, as it would after a serial run."""
    decks, hits_soft_17 = game.rules.decks, game.play.hits_soft_17
    deals = initial_deals(decks)
    workers = processes()
    if workers > 1 and not all(stand_rows.known(decks, hits_soft_17, up) for up in range(1, 11)):
        return _parallel(game, deals, workers)
    return _serial(game, deals)


def _serial(game: Game, deals: Sequence[Deal]) -> list[DealValue]:
    values: list[DealValue] = []
    for one in _deal_values(game, deals):
        values.extend(one)
    return values


# the up cards' order for the workers, the heaviest first, so that the light ones fill in
# at the end and the two workers end together (by each up card's CPU, six decks, timed
# serially: the ace and the small cards weigh most; where pairs resplit beyond two hands
# (vegas-s17-das-ls) 7-10 weigh more, their resplits played out)
PARALLEL_ORDER = (1, 2, 3, 4, 6, 5, 7, 8, 9, 10)
RESPLIT_ORDER = (1, 2, 3, 7, 8, 9, 10, 4, 5, 6)


# what a forked worker analyses: the game (its chart not known yet where the parent
# computes it while the workers start) and the queue its chart comes by. Set in the
# parent just before the fork, by one thread at a time (a thread finding it taken
# analyses in its own process)
_FORKED: tuple[Game, SimpleQueue[Chart | None]] | None = None
_FORKING = threading.Lock()
_NO_CHART = False  # in a worker: the parent sent None for the chart


def _up_task(up: int) -> tuple[int, StandRows, list[list[DealValue]], UpCard]:
    """In a worker: one up card's deals valued, with its stand rows and its analysis.
    The rows first: they need no chart, and the worker's first up card walks them while
    the parent computes the chart."""
    assert _FORKED is not None, "a worker forked without its game"
    game, charts = _FORKED
    rows = stand_rows(game.rules.decks, game.play.hits_soft_17, up)
    if not game.chart_known():
        global _NO_CHART
        if _NO_CHART or (chart := charts.get()) is None:  # one for each worker
            _NO_CHART = True  # and none will come for this worker's further tasks
            raise RuntimeError("the parent could not compute the chart")
        game.give_chart(chart)
    deals = [deal for deal in initial_deals(game.rules.decks) if deal.up == up]
    values = _deal_values(game, deals)
    return up, rows, values, game.up(up)


def _parallel(game: Game, deals: Sequence[Deal], workers: int) -> list[DealValue]:
    global _FORKED
    decks, hits_soft_17 = game.rules.decks, game.play.hits_soft_17
    present = {deal.up for deal in deals}
    resplits = any(game.hand_limit(pair) > 2 for pair in range(1, 11))
    order = [up for up in (RESPLIT_ORDER if resplits else PARALLEL_ORDER) if up in present]
    if not _FORKING.acquire(blocking=False):
        # another thread of this process is analysing in parallel (``_FORKED`` is its game)
        return _serial(game, deals)
    workers = min(workers, len(order))
    charts: SimpleQueue[Chart | None] | None = None
    by_up: dict[int, Iterator[list[DealValue]]] = {}
    try:
        charts = multiprocessing.get_context("fork").SimpleQueue()
        _FORKED = (game, charts)
        pool = process_pool(workers, initializer=gc.disable)
        if pool is None:  # (processes() gives more than one only where this process may fork)
            return _serial(game, deals)
        try:
            mapped = pool.map(_up_task, order)  # the workers fork here and start on their rows
            chart: Chart | None = None
            try:
                chart = game.chart  # meanwhile, here
            finally:
                for _ in range(workers):  # None: the workers stop (the error is raised here)
                    charts.put(chart)
            # each up card kept as it comes, while the workers go on with the others
            for up, rows, values, u in mapped:
                stand_rows.put(decks, hits_soft_17, up, rows)
                u.attach(game)
                game._ups[up] = u
                by_up[up] = iter(values)
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
        # every result is in: the workers are idle and exit at once. Waited for, not left
        # to exit on their own - a pool shut down without waiting can make the interpreter's
        # exit print a traceback (concurrent.futures wakes its thread on a pipe already closed)
        pool.shutdown(wait=True)
    except (OSError, BrokenProcessPool):
        # no process could be made (out of processes or memory), or one died: here, serially
        # (the up cards already received are kept: the same values)
        return _serial(game, deals)
    finally:
        _FORKED = None
        if charts is not None:
            charts.close()
        _FORKING.release()
    out: list[DealValue] = []
    for deal in deals:
        out.extend(next(by_up[deal.up]))
    return out


def _deal_values(game: Game, deals: Iterable[Deal]) -> list[list[DealValue]]:
    """Per deal, its values (two where tens split by rank)."""
    decks = game.rules.decks
    out = []
    for deal in deals:
        u = game.up(deal.up)
        h = u.lattice.index[CARD[deal.first] + CARD[deal.second]]
        if deal.natural:
            value, square = u.player_natural(h)
            out.append(
                [DealValue(deal.probability, value, value, NATURAL_DEAL, square, u.natural[h])]
            )
            continue
        hard, ace = deal.first + deal.second, deal.first == 1
        if game.play.split_by_rank and deal.pair == 10:
            # tens split by rank: a pair only when both tens have one rank
            same = (4 * decks - 1) / (16 * decks - 1)
            variants = [(same, 10), (1.0 - same, 0)]
        else:
            variants = [(1.0, deal.pair)]
        mine = []
        for share, pair in variants:
            legal = legal_actions(game.play, deal.up, hard, ace, 2, pair, after_split=False)
            ranks: list[tuple[float, int | None]] = (
                _rank_pairs(decks, deal.up)
                if pair == 10 and game.play.split_by_rank
                else [(1.0, None)]
            )
            optimal = max(_mixed(u, h, action, pair, OPTIMAL, ranks) for action in legal)
            action = game.chart.decide(deal.up, hard, ace, pair, legal)
            chart = _mixed(u, h, action, pair, CHART, ranks)
            square = sum(w * u.square(h, action, pair, r) for w, r in ranks)
            mine.append(
                DealValue(share * deal.probability, optimal, chart, action, square, u.natural[h])
            )
        out.append(mine)
        if deal.pair and deal.pair in u.pairs:
            # this pair's deal is the only one that splits it against this up card: its
            # reduced dealer vectors (megabytes) are done with, its odds stay memoised
            u.pairs[deal.pair].release()
    return out


def _mixed(
    u: UpCard, h: int, action: str, pair: int, who: str, ranks: list[tuple[float, int | None]]
) -> float:
    return sum(w * u.value(h, action, pair, who, r) for w, r in ranks)


def _rank_pairs(decks: int, up: int) -> list[tuple[float, int | None]]:
    """Splitting two tens of one rank: the pair cards left are that rank's, one fewer
    when the up card (a ten) is of it too."""
    if up != 10:
        return [(1.0, 4 * decks - 2)]
    same = (4 * decks - 2) / (16 * decks - 2)
    return [(same, 4 * decks - 3), (1.0 - same, 4 * decks - 2)]
