"""The covariance of two boxes of one round, per preset: the seeded estimate
(tables.engine.math.covariance.estimate, its default size), its standard error, the
variance of one box the same rounds show beside the exact one, and the time taken.

    .venv/bin/python bench/box_covariance.py [--rounds N] [PRESET ...]

Its ``stored`` lines are what ``PRESET_FIGURES`` holds (the tests compare one preset's
fresh estimate with it)."""

from __future__ import annotations

import argparse
import os
import time

from tables.engine.math.covariance import ROUNDS, estimate
from tables.engine.math.house_edge import house_edge
from tables.engine.presets import PRESETS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("presets", nargs="*", default=list(PRESETS))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.rounds:,} rounds of five boxes per preset")
    stored = []
    for name in args.presets:
        rules = PRESETS[name]
        exact = house_edge(rules)
        began = time.perf_counter()
        figures = estimate(rules, rounds=args.rounds)
        took = time.perf_counter() - began
        print(
            f"{name:24} C {figures.covariance:.4f} +- {figures.standard_error:.4f}   "
            f"V simulated {figures.variance:.4f}, exact {exact.variance:.4f}   "
            f"correlation {figures.covariance / exact.variance:.3f}   {took:.1f} s"
        )
        stored.append(f'    "{name}": ({figures.covariance!r}, {figures.standard_error!r}),')
    print("stored:")
    print("\n".join(stored))


if __name__ == "__main__":
    main()
