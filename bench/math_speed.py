"""How long the mathematics takes (a script, not a test).

    .venv/bin/python bench/math_speed.py

Prints the time to compute the house edge of a six-deck rule set from nothing (chart
and house edge, every cache cleared) and the mean time of one cash-out offer on
shoes that differ from one offer to the next (so no dealer odds come from the cache),
the chart being computed once beforehand as it is in a running process.
Targets (issue 4): 5 s for the house edge, 5 ms for an offer, on one core.
"""
from __future__ import annotations

import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tables.engine.cards import deck
from tables.engine.math import dealer, deals, house_edge, strategy
from tables.engine.math.cashout import cashout_offer, offer_due
from tables.engine.math.composition import remaining
from tables.engine.presets import PRESETS


def clear() -> None:
    for cached in (dealer.dealer_odds, dealer._table, deals.initial_deals, strategy.analyse, house_edge.house_edge):
        cached.cache_clear()


def bench_house_edge(name: str, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        clear()
        start = time.perf_counter()
        result = house_edge.house_edge(PRESETS[name])
        times.append(time.perf_counter() - start)
    print(f"house edge of {name} ({PRESETS[name].decks} decks): {100 * result.house_edge:.4f}%, "
          f"from nothing: mean {sum(times) / runs:.3f} s, best {min(times):.3f} s ({runs} runs)")
    return sum(times) / runs


def bench_offers(count: int = 200) -> float:
    rules = PRESETS["it-live"]
    strategy.chart_for(rules)  # the chart, once per process
    rng = random.Random(20261129)
    cards = list(deck()) * rules.decks
    elapsed, done = 0.0, 0
    while done < count:
        rng.shuffle(cards)
        cut = rng.randrange(4, 250)
        hand, up, seen = cards[:2], cards[2], cards[: 3 + cut]
        if not offer_due(hand, rules):
            continue
        left = remaining(rules.decks, seen)
        start = time.perf_counter()
        cashout_offer(hand, up, left, stake=1000, rules=rules, margin=(1, 40))
        elapsed += time.perf_counter() - start
        done += 1
    mean = elapsed / count
    print(f"cash-out offer (it-live, a different shoe each time): mean {1000 * mean:.2f} ms over {count} offers")
    return mean


if __name__ == "__main__":
    bench_house_edge("hoyle")
    bench_house_edge("vegas-s17-das-ls")
    bench_offers()
