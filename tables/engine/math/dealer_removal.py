"""The dealer's exact odds against every hand at once: one up card, the shoe less the up
card and the hand's own cards (and, for a split, the other pair cards).

:mod:`.dealer` evaluates one composition from scratch: a sum over the ~1,800 multisets of
cards that end the dealer's hand. Here the same finals are re-weighted from one
composition to the next. Removing a card of value ``v`` from a composition holding ``x``
of them multiplies the probability of a final holding ``d`` of them by ``(x - d) / x``
(and by a factor of the final's size, applied once per hand size at the end), so a walk
over the hands that adds one card at a time needs one multiplication per final and card.

The walk adds cards in a fixed order of values, never going back, so once the walk is
past a value no later card is of that value and finals that differ only in it can be
merged: the finals are sorted so that every such merge is a sum over contiguous runs
(taken from prefix sums). Adding cards in ascending order, the finals left by a hand whose
highest card is a ten are only those that differ in outcome, size and ten count - a few
dozen instead of hundreds.

:func:`stand_table` walks the whole :mod:`.hands` lattice for every up card (each up
card's walk its own, :func:`stand_rows`: :mod:`.cdz` may share them among processes): the
probabilities of 17-21, bust and natural, every stand value and push probability, for
every hand of two or more cards (about a second for all ten up cards); its step folds
the final's size into the ratio (``m / (m - k)`` for a final of ``k`` cards drawn from
``m``), so its vectors hold the finals' probabilities and an outcome's is the sum of its
entries. :class:`PairRemoval`
serves split hands, whose composition also lacks further pair cards: the pair value comes
last in its order, so a hand's finals are reduced once to (outcome, size, pair cards in
the final) and re-weighted there for any number of extra pair cards.

Everything is a float: exact to ~1e-15 (the finals' base probabilities come from exact
integers; a product of per-step ratios, prefix differences where finals merge and sums of
entries lose at most a few 1e-15 absolute: the six-deck stand table's largest change
from the earlier walk's floats (one fall(n, k) ratio per group) measured 5.8e-15, and
from outcomes taken as prefix differences 2.6e-15).
"""

from __future__ import annotations

import math
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, compress
from operator import itemgetter, mul, sub
from typing import Any

from .composition import Composition, remove, shoe
from .dealer import _MAXM, BUST, Odds, _table
from .hands import CARD, Lattice, hands_of

Vector = list[float]
N_OUTCOMES = 7  # 17, 18, 19, 20, 21, bust, natural (dealer.OUTCOMES)


class Layout:
    """The non-bust finals of one up card, sorted for merging along ``order``.

    Level ``i`` (0..10) holds one entry per distinct (outcome, size, count of
    ``order[9]``, ..., count of ``order[i]``): level 0 every final, level 10 one entry per
    (outcome, size). Sorted by that key, level ``i``'s entries start where a final first
    differs from the one before it within the key's first ``12 - i`` fields. ``dcol[i]``
    is each level-``i`` entry's count of ``order[i]``; ``groups`` the (outcome, size) of
    each level-10 entry and ``gends[i]`` their boundaries (with a leading 0) in level ``i``.
    """

    def __init__(
        self, order: tuple[int, ...], counts: Composition, rows: list[tuple[tuple[int, ...], float]]
    ) -> None:
        self.order = order
        self.counts = counts
        self.n = sum(counts)
        rows.sort()
        self.base: Vector = [p for _key, p in rows]
        keys = [key for key, _p in rows]
        # first field in which each final differs from the previous one
        diff = [0] * len(keys)
        alike: list[int] = list(range(1, len(keys)))
        for f in range(12):
            column = [key[f] for key in keys]
            same = []
            for pos in alike:
                if column[pos] == column[pos - 1]:
                    same.append(pos)
                else:
                    diff[pos] = f
            alike = same
        self._starts = [
            array("l", [pos for pos, f in enumerate(diff) if f < 12 - i]) for i in range(11)
        ]
        # per level, each entry's first differing field (the boundaries of any coarser level)
        self._diffs = [list(map(diff.__getitem__, starts)) for starts in self._starts]
        self.dcol = tuple(
            tuple(keys[pos][12 - i - 1] for pos in self._starts[i]) for i in range(10)
        ) + ((),)
        self.groups = tuple((keys[pos][0], keys[pos][1]) for pos in self._starts[10])
        self._ends: dict[tuple[int, int], Sequence[int]] = {}
        self._pickers: dict[tuple[int, int], Callable[[Sequence[float]], tuple[float, ...]]] = {}
        self.gends = tuple(self.ends(i, 10) for i in range(11))
        self.gpick = tuple(self.picker(i, 10) for i in range(11))
        self.oends = tuple(
            sum(1 for outcome, _size in self.groups if outcome < o) for o in range(N_OUTCOMES + 1)
        )

    def sizes(self, i: int) -> list[int]:
        """Each level-``i`` entry's final size."""
        out: list[int] = []
        bounds = self.gends[i]
        for g, (_outcome, size) in enumerate(self.groups):
            out.extend([size] * (bounds[g + 1] - bounds[g]))
        return out

    def ends(self, i: int, j: int) -> Sequence[int]:
        """The boundaries of level ``j``'s entries among level ``i``'s (``j >= i``)."""
        cached = self._ends.get((i, j))
        if cached is None:
            diffs = self._diffs[i]
            bounds = array("l", compress(range(len(diffs)), map((12 - j).__gt__, diffs)))
            bounds.append(len(diffs))
            cached = self._ends[(i, j)] = bounds
        return cached

    def picker(self, i: int, j: int) -> Callable[[Sequence[float]], tuple[float, ...]]:
        """Takes :meth:`ends` ``(i, j)`` out of a level-``i`` prefix-sum vector (an
        itemgetter: one C call instead of a Python-level map)."""
        cached = self._pickers.get((i, j))
        if cached is None:
            cached = self._pickers[(i, j)] = _getter(self.ends(i, j))
        return cached

    def contract(
        self, prefix: Vector, i: int, j: int, ratio: Sequence[float] | None = None
    ) -> Vector:
        """Level ``i``'s vector (given by its prefix sums) merged to level ``j`` > ``i``,
        times ``ratio`` entry by entry if given."""
        picks = self.picker(i, j)(prefix)
        if ratio is None:
            return list(map(sub, picks[1:], picks))
        return list(map(mul, map(sub, picks[1:], picks), ratio))


def _getter(indices: Sequence[int]) -> Callable[[Sequence[float]], tuple[float, ...]]:
    """``items[indices]`` as a tuple (itemgetter gives a bare item for one index)."""
    if len(indices) == 1:
        only = indices[0]
        return lambda items: (items[only],)
    return itemgetter(*indices)


def _finals(up: int, hits_soft_17: bool) -> list[tuple[int, int, tuple[int, ...], int]]:
    """(outcome, size, counts, orderings) of every final that is not a bust."""
    out = []
    for outcome, size, entries in _table(up, hits_soft_17):
        if outcome == BUST:
            continue
        for orders, index in entries:
            counts = [0] * 10
            for flat in index:
                i, m = divmod(flat, _MAXM)
                counts[i] = m
            out.append((outcome, size, tuple(counts), orders))
    return out


@lru_cache(maxsize=16)
def _finals_cached(
    up: int, hits_soft_17: bool
) -> tuple[tuple[int, int, tuple[int, ...], int], ...]:
    return tuple(_finals(up, hits_soft_17))


@lru_cache(maxsize=32)
def _final_probabilities(
    up: int, counts: Composition, hits_soft_17: bool
) -> tuple[tuple[int, int, tuple[int, ...], float], ...]:
    """(outcome, size, counts, probability from ``counts``) of every possible non-bust final."""
    n = sum(counts)
    falls = [[math.perm(c, m) for m in range(_MAXM)] for c in counts]
    sizes = [math.perm(n, k) for k in range(_MAXM)]
    out = []
    for outcome, size, d, orders in _finals_cached(up, hits_soft_17):
        ways = orders
        for i in range(10):
            if d[i]:
                ways *= falls[i][d[i]]
        if ways:
            out.append((outcome, size, d, ways / sizes[size]))
    return tuple(out)


@lru_cache(maxsize=128)
def layout(up: int, counts: Composition, hits_soft_17: bool, order: tuple[int, ...]) -> Layout:
    """The finals of ``up`` drawn from ``counts`` (the up card already out), for ``order``."""
    pick = itemgetter(*(v - 1 for v in reversed(order)))
    rows = [
        ((outcome, size, *pick(d)), p)
        for outcome, size, d, p in _final_probabilities(up, counts, hits_soft_17)
    ]
    return Layout(order, counts, rows)


@dataclass(frozen=True, slots=True)
class StandTable:
    """Per up card (index 1-10): the dealer's odds against every lattice hand (``None``
    where the up card and the hand cannot both come from the shoe), and against every
    split hand with the other pair card out whose cards then total more than 21 (keyed by
    the multiset of all those cards; split aces' only where a higher value is paired too,
    see :func:`_walk_all`)."""

    lattice: Lattice
    probs: tuple[tuple[Odds | None, ...], ...]
    beyond: tuple[dict[int, Odds], ...]

    def odds(self, up: int, h: int) -> Odds | None:
        return self.probs[up][h]


# the walk's order of values: the hands of many small cards are the most numerous, and
# the dealer's finals merge least over their small cards, so those come last (measured:
# a fifth fewer multiplications than ascending order)
WALK_ORDER = tuple(range(10, 0, -1))


StandRows = tuple[tuple[Odds | None, ...], dict[int, Odds]]
Packed = tuple[bytes, bytes]  # PairRemoval.memo(): odds as buffers


class _StandRows:
    """:func:`stand_rows`: the walk of one up card, memoised by (decks, S17/H17, up card)
    for the most recent :data:`LIMIT` of them. A cache of its own, not an ``lru_cache``:
    :mod:`.cdz` asks whether a shoe's rows are known (:meth:`known`) and hands it rows
    walked in another process (:meth:`put`)."""

    LIMIT = 80  # eight shoes' ten up cards

    def __init__(self) -> None:
        self._rows: OrderedDict[tuple[int, bool, int], StandRows] = OrderedDict()

    def __call__(self, decks: int, hits_soft_17: bool, up: int) -> StandRows:
        """One up card's part of :func:`stand_table`: the dealer's odds against every
        lattice hand (``None`` where the hand and the up card cannot both come from the
        shoe), and against the split hands beyond the lattice (see :class:`StandTable`)."""
        key = (decks, hits_soft_17, up)
        found = self._rows.get(key)
        if found is None:
            lattice = hands_of(decks)
            counts = remove(shoe(decks), up)
            per_hand: list[Odds | None] = [None] * len(lattice.keys)
            over: dict[int, Odds] = {}
            if counts[up - 1] >= 0:
                _walk_all(layout(up, counts, hits_soft_17, WALK_ORDER), lattice, per_hand, over)
            found = (tuple(per_hand), over)
            self.put(decks, hits_soft_17, up, found)
        else:
            self._rows.move_to_end(key)
        return found

    def known(self, decks: int, hits_soft_17: bool, up: int) -> bool:
        return (decks, hits_soft_17, up) in self._rows

    def put(self, decks: int, hits_soft_17: bool, up: int, rows: StandRows) -> None:
        """Keep rows walked elsewhere (another process: the same walk, the same floats)."""
        self._rows[(decks, hits_soft_17, up)] = rows
        while len(self._rows) > self.LIMIT:
            self._rows.popitem(last=False)

    def cache_clear(self) -> None:
        self._rows.clear()


stand_rows = _StandRows()


@lru_cache(maxsize=8)
def stand_table(decks: int, hits_soft_17: bool) -> StandTable:
    """The dealer's odds against every hand of two or more cards, for every up card; and
    against every split hand whose composition, with the other pair card out, is not a
    hand's (more than 21 in all). Each up card's walk is its own (:func:`stand_rows`)."""
    table: list[tuple[Odds | None, ...]] = [()]
    beyond: list[dict[int, Odds]] = [{}]
    for up in range(1, 11):
        per_hand, over = stand_rows(decks, hits_soft_17, up)
        table.append(per_hand)
        beyond.append(over)
    return StandTable(hands_of(decks), tuple(table), tuple(beyond))


def _walk_all(lay: Layout, lattice: Lattice, out: list[Odds | None], over: dict[int, Odds]) -> None:
    """Walk every hand (into ``out``) and every split hand with one extra pair card out
    totalling more than 21 (into ``over``): a multiset of more than 21 is walked while,
    less its highest card held twice or more, it is a hand. Not when that card is an
    ace: only split aces taking more than one card read those (a hard 21 with an ace,
    and the other ace out), no preset plays them, and they were an eighth of these
    multisets; :class:`PairRemoval` serves them (descendants in the walk add aces only,
    so none of them is needed either).

    The walk's step runs some 75,000 times per shoe: everything it looks up is indexed by
    small integers (level, cards left, size) and built before or on first use."""
    counts, order, index, n = lay.counts, lay.order, lattice.index, lay.n
    # ratios[size][j][x]: the ratio vector of drawing a card of level j's value with x
    # left as the hand's ``size``-th card: per entry (x - d) / x for its final's count d
    # of that value, times (m + 1) / (m + 1 - k) for its final's size k (m cards left
    # after the draw), so that the walk's vectors hold the finals' probabilities from the
    # hand's shoe and an outcome's probability is the sum of its entries. A hand holds at
    # most 21 cards, a split hand one more, and the walk looks one further
    ratios: list[list[list[Sequence[float] | None]] | None] = [None] * 24
    dcol, kcol = lay.dcol, [lay.sizes(j) for j in range(10)]
    pick = [[lay.picker(i, j) if j > i else None for j in range(10)] for i in range(10)]
    # per level: each outcome's entries (contiguous: sorted by outcome first)
    oslices = []
    for j in range(10):
        bounds = [lay.gends[j][g] for g in lay.oends]
        oslices.append(tuple(map(slice, bounds, bounds[1:])))
    bust = BUST

    last = 9  # the last level: a hand whose last card is of its value can only add that value again
    last_value, last_slices = order[last], oslices[last]
    # per (size, cards left): the last level's ratio vector cut per outcome
    last_parts: dict[int, tuple[Sequence[float], ...]] = {}

    def ratio_of(size: int, j: int, x: int) -> Sequence[float]:
        by_level = ratios[size]
        if by_level is None:
            by_level = ratios[size] = [[None] * (counts[v - 1] + 1) for v in order]
        ratio = by_level[j][x]
        if ratio is None:
            ratio = by_level[j][x] = _step_vector(dcol[j], x, kcol[j], n - size + 1)
        return ratio

    def record(child: int, total: int, probs: list[float]) -> None:
        # P(17..21), P(bust), P(natural): the outcomes' sums (bust's entries are none:
        # its probability is what the others leave). A tuple of floats: the collector
        # stops tracking it, and the table's 75,000 of them no longer slow every full
        # collection
        probs[bust] = max(0.0, 1.0 - sum(probs))
        if total <= 21:
            out[index[child]] = tuple(probs)
        else:
            over[child] = tuple(probs)

    def last_run(child: int, grown: Vector, total: int, size: int, held: int, pair: int) -> None:
        """A hand whose last card is of the last level's value (an ace: 57,000 of the
        73,000 steps), then that value again while the walk takes it: a loop, not a
        recursion.
        The last hand of the run keeps no vector: its outcomes are sums of its parent's
        entries times its ratio, taken in the same order (the same floats)."""
        while True:
            x = counts[last_value - 1] - held  # left once ``child`` is out
            if size >= 2 and (total <= 21 or size >= 3):
                record(child, total, list(map(sum, map(grown.__getitem__, last_slices))))
            grown_total = total + last_value
            grown_pair = pair or (last_value if held == 1 else 0)
            if x <= 0 or (
                grown_total > 21 and not (grown_pair > 1 and grown_total - grown_pair <= 21)
            ):
                return
            size += 1
            ratio = ratio_of(size, last, x)
            child += CARD[last_value]
            held += 1
            total, pair = grown_total, grown_pair
            grown_total = total + last_value
            grown_pair = pair or (last_value if held == 1 else 0)
            if x <= 1 or (
                grown_total > 21 and not (grown_pair > 1 and grown_total - grown_pair <= 21)
            ):
                # no child: the sums alone
                if size >= 2 and (total <= 21 or size >= 3):
                    parts = last_parts.get(size * 256 + x)
                    if parts is None:
                        parts = last_parts[size * 256 + x] = tuple(
                            map(ratio.__getitem__, last_slices)
                        )
                    record(
                        child,
                        total,
                        list(map(sum, map(map, _MULS, map(grown.__getitem__, last_slices), parts))),
                    )
                return
            grown = list(map(mul, grown, ratio))

    def walk(
        key: int, level: int, vec: Vector, prefix: Vector | None, total: int, size: int, pair: int
    ) -> None:
        # ``prefix``: ``vec``'s prefix sums, taken when a child of a later level first
        # needs them (merging is a difference of two): most hands' children add their
        # own value again or none, and the aces, last in the order, are three steps in
        # five (so the sums were a pass over the entries that served only the outcomes)
        size += 1
        by_level = ratios[size]
        if by_level is None:
            by_level = ratios[size] = [[None] * (counts[v - 1] + 1) for v in order]
        from_level = pick[level]
        for j in range(level, 10):
            value = order[j]
            held = (key >> (5 * (value - 1))) & 31
            grown_pair = pair or (value if held == 1 else 0)
            grown_total = total + value
            if grown_total > 21 and not (grown_pair > 1 and grown_total - grown_pair <= 21):
                continue
            x = counts[value - 1] - held
            if x <= 0:
                continue
            ratio = by_level[j][x]
            if ratio is None:
                ratio = by_level[j][x] = _step_vector(dcol[j], x, kcol[j], n - size + 1)
            if j == level:
                grown = list(map(mul, vec, ratio))
            else:
                if prefix is None:
                    prefix = list(accumulate(vec, initial=0.0))
                picks = from_level[j](prefix)  # type: ignore[misc]
                grown = list(map(mul, map(sub, picks[1:], picks), ratio))
            child = key + CARD[value]
            if j == last:
                last_run(child, grown, grown_total, size, held + 1, grown_pair)
                continue
            if size >= 2 and (grown_total <= 21 or size >= 3):
                record(child, grown_total, list(map(sum, map(grown.__getitem__, oslices[j]))))
            walk(child, j, grown, None, grown_total, size, grown_pair)

    walk(0, 0, lay.base, None, 0, 0, 0)
    # ``walk`` calls itself: it and its cell are a cycle, kept until the collector's next
    # full pass (none in a worker: see cdz), and with it what it reads. Its ratio vectors
    # (tens of MB) go now
    ratios.clear()
    last_parts.clear()


_MULS = (mul,) * N_OUTCOMES  # map(map, _MULS, a, b): the entrywise products, outcome by outcome

# the order in which a split hand's other cards are applied (the pair's value comes last)
PAIR_WALK = tuple(range(10, 0, -1))


class PairRemoval:
    """Dealer odds for the hands of a split pair: the shoe less the up card, the hand, and
    more cards of the pair's value (the other hands' pair cards).

    The pair value comes last in the walk's order, so the finals of a hand's other cards
    are reduced once (:meth:`prepare`) to one entry per (outcome, size, pair cards in the
    final); any number of pair cards out is then a dot product with coefficients per
    entry (:meth:`_coefficients`)."""

    def __init__(self, decks: int, hits_soft_17: bool, up: int, pair: int) -> None:
        full = shoe(decks)
        self.counts = remove(full, up)
        order = tuple(v for v in PAIR_WALK if v != pair) + (pair,)
        self.lay = lay = layout(up, self.counts, hits_soft_17, order)
        self.pair = pair
        self.level_of = (0, *(order.index(v) for v in range(1, 11)))
        self._ratios: dict[tuple[int, int], Sequence[float]] = {}
        self._coef: dict[int, tuple[Vector, ...]] = {}  # by removed * 256 + pairs, cut per outcome
        # non-pair part of a hand -> its level-9 vector: kept while one pair is valued
        # (:meth:`release`), the odds it gives kept for good
        self._last: dict[
            int, tuple[tuple[Vector, ...], int]
        ] = {}  # cut per outcome; how many cards the rest holds
        # odds by rest * 256 + pair cards: an int key allocates nothing, and a dict of ints
        # and arrays is one the collector does not track
        self._odds: dict[int, Sequence[float]] = {}
        # per level-9 entry its size; where each outcome's entries start
        self._size = [0] * len(lay.dcol[9])
        for g, (_outcome, size) in enumerate(lay.groups):
            for pos in range(lay.gends[9][g], lay.gends[9][g + 1]):
                self._size[pos] = size
        bounds = [lay.gends[9][g] for g in lay.oends]
        self._slices = tuple(map(slice, bounds, bounds[1:]))  # each outcome's entries

    def _ratio(self, level: int, x: int) -> Sequence[float]:
        cached = self._ratios.get((level, x))
        if cached is None:
            cached = self._ratios[(level, x)] = _ratio_vector(self.lay.dcol[level], x)
        return cached

    def prepare(self, rests: Iterable[tuple[int, tuple[int, ...]]]) -> None:
        """Reduce the finals for these non-pair parts of hands (key, cards in the order of
        :data:`PAIR_WALK`), walking them in order so that shared leading cards are applied
        once."""
        lay, counts, level_of = self.lay, self.counts, self.level_of
        todo = sorted({cards: r for r, cards in rests if r not in self._last}.items())
        # stack[i]: [value, count of it so far, level, vector, its prefix sums (taken when
        # first needed: a card of the same value as the one before needs none)] after i cards
        stack: list[list[Any]] = [[0, 0, 0, lay.base, None]]
        last_cards: tuple[int, ...] = ()
        for cards, rest in todo:
            common = 0
            limit = min(len(cards), len(last_cards), len(stack) - 1)
            while common < limit and cards[common] == last_cards[common]:
                common += 1
            del stack[common + 1 :]
            for depth in range(common, len(cards)):
                top = stack[-1]
                prev_value, prev_count, level, vec, prefix = top
                value = cards[depth]
                seen = prev_count + 1 if value == prev_value else 0
                j = level_of[value]
                x = counts[value - 1] - seen
                if x <= 0:
                    grown = [0.0] * len(lay.dcol[j])
                elif j == level:
                    grown = list(map(mul, vec, self._ratio(j, x)))
                else:
                    if prefix is None:
                        prefix = top[4] = list(accumulate(vec, initial=0.0))
                    grown = lay.contract(prefix, level, j, self._ratio(j, x))
                stack.append([value, seen, j, grown, None])
            last_cards = cards
            top = stack[-1]
            _v, _c, level, vec, prefix = top
            if level != 9 and prefix is None:
                prefix = top[4] = list(accumulate(vec, initial=0.0))
            self._last[rest] = (
                self._parts(vec if level == 9 else lay.contract(prefix, level, 9)),
                len(cards),
            )

    def release(self) -> None:
        """Forget the reduced vectors (a few MB per pair and up card); the odds computed
        from them stay memoised."""
        self._last.clear()

    def memo(self) -> Packed:
        """The odds memoised, packed to send to another process: their keys (rest * 256 +
        pair cards) as one buffer of 64-bit ints, their floats as one of doubles, seven
        an odds (two bytes objects pickle in microseconds; the dict of small arrays took
        a few milliseconds to write and to read, and was half of what a worker sends)."""
        odds = self._odds
        return array("q", odds).tobytes(), b"".join(odds.values())  # type: ignore[arg-type]

    def remember(self, packed: Packed) -> None:
        """Memoise odds computed elsewhere (:meth:`memo` of the same removal in another
        process: the same floats)."""
        keys, floats = array("q"), array("d")
        keys.frombytes(packed[0])
        floats.frombytes(packed[1])
        odds = self._odds
        for at, key in zip(range(0, len(floats), N_OUTCOMES), keys):
            odds[key] = floats[at : at + N_OUTCOMES]

    def known(self, rest: int, pairs: int) -> bool:
        """Are these odds memoised (or their hand's reduced vector ready)?"""
        return rest * 256 + pairs in self._odds or rest in self._last

    def odds(self, rest: int, pairs: int) -> Sequence[float]:
        """P(17..21), P(bust), P(natural) (as the stand table's) for a composition: the shoe
        less the up card, ``rest`` (a key: cards other than the pair's value) and ``pairs``
        cards of the pair's value. Memoised for good."""
        memo_key = rest * 256 + pairs
        cached = self._odds.get(memo_key)
        if cached is not None:
            return cached
        found = self._last.get(rest)
        if found is None:
            self.prepare([(rest, _walk_cards(rest))])
            found = self._last[rest]
        parts, removed = found
        removed += pairs
        coefficients = self._coef.get(removed * 256 + pairs)
        if coefficients is None:
            coefficients = self._coefficients(pairs, removed)
        # one sum per outcome of its own entries (no prefix sums to take differences of)
        probs: list[float] = list(map(sum, map(map, _MULS, parts, coefficients)))
        probs[BUST] = max(0.0, 1.0 - sum(probs))
        result = self._odds[memo_key] = array("d", probs)
        return result

    def _coefficients(self, pairs: int, removed: int) -> tuple[Vector, ...]:
        """Per level-9 entry: fall(x - d, pairs) / fall(x, pairs) (``x`` pair cards in the
        shoe less the up card, ``d`` in the final) times fall(n, k) / fall(n - removed, k)."""
        cached = self._coef.get(removed * 256 + pairs)
        if cached is None:
            x0, n = self.counts[self.pair - 1], self.lay.n
            top = max(self.lay.dcol[9], default=0)
            rho = [
                math.perm(x0 - d, pairs) / math.perm(x0, pairs) if x0 - d >= pairs else 0.0
                for d in range(top + 1)
            ]
            big = max(self._size, default=0)
            fac = [
                math.perm(n, k) / math.perm(n - removed, k) if n - removed >= k else 0.0
                for k in range(big + 1)
            ]
            whole = list(
                map(mul, map(rho.__getitem__, self.lay.dcol[9]), map(fac.__getitem__, self._size))
            )
            cached = self._coef[removed * 256 + pairs] = self._parts(whole)
        return cached

    def _parts(self, vec: Vector) -> tuple[Vector, ...]:
        """A level-9 vector cut into its outcomes' entries."""
        return tuple(map(vec.__getitem__, self._slices))


def _step_vector(counts: Sequence[int], x: int, sizes: Sequence[int], m: int) -> Sequence[float]:
    """Per entry: (x - d) / x for its final's count ``d`` of the value drawn (``x`` of it
    in the shoe) times m / (m - k) for its final's size ``k`` (``m`` cards in the shoe):
    how the final's probability changes when that card leaves the shoe."""
    ratio = [(x - d) / x if d < x else 0.0 for d in range(max(counts, default=0) + 1)]
    big = max(sizes, default=0)
    size = [m / (m - k) if k < m else 0.0 for k in range(big + 1)]
    return list(map(mul, map(ratio.__getitem__, counts), map(size.__getitem__, sizes)))


def _ratio_vector(counts: Sequence[int], x: int) -> Sequence[float]:
    """(x - d) / x for each final's count d of the value drawn (x of it in the shoe): a
    list, whose floats a map reads without boxing each one as an array would."""
    table = [(x - d) / x if d < x else 0.0 for d in range(max(counts, default=0) + 1)]
    return list(map(table.__getitem__, counts))


def _walk_cards(key: int) -> tuple[int, ...]:
    """The cards of ``key`` in the order of :data:`PAIR_WALK`."""
    cards: list[int] = []
    for value in PAIR_WALK:
        cards.extend([value] * ((key >> (5 * (value - 1))) & 31))
    return tuple(cards)
