"""How long the mathematics takes (a script, not a test).

    .venv/bin/python bench/math_speed.py

Prints the wall and CPU time to compute the exact house edges (the chart's and CDZ-), the
variance and the parts of each preset of six decks or more from nothing (every cache
cleared: the chart, the dealer's stand table and split-hand odds), the same for a second rule set
sharing the shoe and the dealer's rule (the stand table and split odds cached, as in a
running process or a test session), and the mean time of one cash-out offer on shoes that
differ from one offer to the next (so no dealer odds come from the cache), the chart being
computed once beforehand as it is in a running process; then the same offers made to
a crowd (seed 000's live game: many bettors on each hand), where every bettor after the
first on a hand is served from the cache by composition. From nothing the house edge
shares its up cards among forked workers (``tables.engine.math.processes``: two on a
machine of two cores or more; ``BLACKJACK_MATH_PROCESSES=1`` for one process): its CPU
time is this process's and its workers', its wall time what a caller waits. The cash-out
offers run in this process: CPU time. The machine is shared: read the load average
printed first. Targets: 2 s for a six-deck house edge, 5 ms for an offer.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import random
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tables.engine.cards import deck
from tables.engine.math import (
    house_edge,
    processes,
    strategy,
)
from tables.engine.math.cashout import cashout_offer, clear_caches, offer_due, offer_share
from tables.engine.math.composition import remaining
from tables.engine.presets import PRESETS


def clear() -> None:
    house_edge.clear_caches()


def cpu() -> float:
    """CPU time of this process and of its children (the house edge's workers): those still
    exiting are waited for first (the analysis returns without waiting for them)."""
    for child in multiprocessing.active_children():
        child.join()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def bench_house_edge(name: str, runs: int = 2) -> float:
    times, walls, warm, warm_walls = [], [], [], []
    rules = PRESETS[name]
    variant = dataclasses.replace(
        rules, name=f"{name}-variant", surrender="late" if rules.surrender == "none" else "none"
    )
    for _ in range(runs):
        clear()
        start, wall = cpu(), time.perf_counter()
        result = house_edge.house_edge(rules)
        walls.append(time.perf_counter() - wall)
        times.append(cpu() - start)
        start, wall = cpu(), time.perf_counter()
        house_edge.house_edge(variant)
        warm_walls.append(time.perf_counter() - wall)
        warm.append(cpu() - start)
    print(
        f"house edge of {name} ({rules.decks} decks): chart {100 * result.house_edge:.4f}%, "
        f"CDZ- {100 * result.cd_house_edge:.4f}%, variance {result.variance:.4f}; "
        f"from nothing: best {min(walls):.2f} s wall, {min(times):.2f} s CPU, mean {sum(walls) / runs:.2f} s wall, "
        f"{sum(times) / runs:.2f} s CPU ({runs} runs); "
        f"a second rule set (surrender changed): best {min(warm_walls):.2f} s wall, {min(warm):.2f} s CPU"
    )
    return min(walls)


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
        start = time.process_time()
        cashout_offer(hand, up, left, stake=1000, rules=rules, margin=(1, 40))
        elapsed += time.process_time() - start
        done += 1
    mean = elapsed / count
    print(
        f"cash-out offer (it-live, a different shoe each time): mean {1000 * mean:.2f} ms CPU over {count} offers"
    )
    return mean


def bench_crowd(count: int = 200, bettors: int = 1000) -> None:
    """``count`` hands, each offered to ``bettors`` bettors at one moment (the share of
    the stake, as the round asks it per bet): the first bettor's offer values the hand,
    the others' come from the cache."""
    rules = PRESETS["it-live"]
    strategy.chart_for(rules)
    clear_caches()
    rng = random.Random(20261130)
    cards = list(deck()) * rules.decks
    first = rest = 0.0
    done = 0
    while done < count:
        rng.shuffle(cards)
        hand, up, seen = cards[:2], cards[2], cards[: 3 + rng.randrange(4, 250)]
        if not offer_due(hand, rules):
            continue
        left = remaining(rules.decks, seen)
        start = time.process_time()
        offer_share(hand, up, left, rules=rules, margin=rules.cashout_margin)
        middle = time.process_time()
        for _ in range(bettors - 1):
            offer_share(hand, up, left, rules=rules, margin=rules.cashout_margin)
        rest += time.process_time() - middle
        first += middle - start
        done += 1
    print(
        f"cash-out offers to a crowd (it-live, {bettors} bettors on each of {count} hands): first bettor "
        f"mean {1000 * first / count:.2f} ms CPU, every other bettor {1e6 * rest / (count * (bettors - 1)):.1f} us"
    )


if __name__ == "__main__":
    print(
        f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}; "
        f"the house edge in {processes.processes()} process(es) ({processes.ENV})"
    )
    bench_house_edge("hoyle")
    bench_house_edge("vegas-s17-das-ls")
    # the target holds for every preset of six decks or more, not only the two slowest
    for other in PRESETS:
        if PRESETS[other].decks >= 6 and other not in ("hoyle", "vegas-s17-das-ls"):
            bench_house_edge(other)
    bench_offers()
    bench_crowd()
