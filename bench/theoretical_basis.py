"""The theoretical win's basis, per preset: simulated days (the simulator's players, seeded)
folded by the ledger's books, and per preset the handle over the initial stakes, the
theoretical win every stake x the edge would give over the one the books give (initial
stakes x the edge, insurance by its own), and the house result per initial stake against
the edge, with its z from the variance (V and C over the boxes' initial stakes).

    .venv/bin/python bench/theoretical_basis.py [--rounds N] [--days N] [--players basic,...] [PRESET ...]

Not a timing: figures for docs/accounting.md, each run the same for the same arguments."""

from __future__ import annotations

import argparse
import io
import json
import math
from collections import defaultdict
from fractions import Fraction

from ledger.books import fold
from ledger.books.stats import theoretical
from tables.engine.math.covariance import box_covariance
from tables.engine.math.house_edge import house_edge
from tables.engine.math.insurance import insurance_figures
from tables.engine.presets import PRESETS
from tables.simulator.config import SimConfig
from tables.simulator.run import FileSink, simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds a day")
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--tables", type=int, default=3, help="tables per preset")
    parser.add_argument(
        "--players", default="", help="comma-separated kinds (default: the simulator's mix)"
    )
    parser.add_argument("presets", nargs="*", default=[p for p in PRESETS if p != "it-live"])
    args = parser.parse_args()
    players = tuple(args.players.split(",")) if args.players else SimConfig.players
    print(
        f"{args.tables} tables x {args.days} days x {args.rounds} rounds per preset; players {', '.join(players)}"
    )
    print(
        f"{'preset':24} {'handle/initial':>14} {'handle x E / theoretical':>25} {'insurance':>10} "
        f"{'result/initial':>14} {'edge E':>8} {'z':>6}"
    )
    for name in args.presets:
        config = SimConfig(
            tables=args.tables,
            presets=(name,),
            rounds=args.rounds,
            days=args.days,
            seats=5,
            players=players,
            seed=f"basis-{name}",
        )
        out = io.BytesIO()
        simulate(config, FileSink(out, config))
        streams: dict[str, list[dict]] = defaultdict(list)
        for line in out.getvalue().splitlines():
            event = json.loads(line)
            streams[event["stream"]].append(event)
        rules = PRESETS[name]
        analysis = house_edge(rules)
        edge, variance = Fraction(str(analysis.house_edge)), Fraction(str(analysis.variance))
        covariance = Fraction(str(box_covariance(rules)))
        insurance_edge, insurance_variance = insurance_figures(rules) or (Fraction(0), Fraction(0))
        sums: dict[str, int] = defaultdict(int)
        for events in streams.values():
            books = fold(events)
            for day in books.days():
                d = books.day(day)
                for field in (
                    "handle",
                    "initial",
                    "insurance",
                    "insurance_squares",
                    "hand_squares",
                    "round_squares",
                ):
                    sums[field] += getattr(d, field)
                sums["result"] += d.recorded_win
        theory = theoretical(
            sums["initial"],
            edge,
            variance,
            covariance,
            hand_squares=sums["hand_squares"],
            round_squares=sums["round_squares"],
            insurance=sums["insurance"],
            insurance_squares=sums["insurance_squares"],
            insurance_edge=insurance_edge,
            insurance_variance=insurance_variance,
        )
        assert theory is not None and theory.variance is not None
        z = float(sums["result"] - theory.mean) / math.sqrt(theory.variance)
        print(
            f"{name:24} {sums['handle'] / sums['initial']:>14.4f} {float(sums['handle'] * edge / theory.mean):>25.4f} "
            f"{sums['insurance'] / sums['handle']:>10.2%} {sums['result'] / sums['initial']:>14.4%} "
            f"{float(edge):>8.4%} {z:>+6.2f}"
        )


if __name__ == "__main__":
    main()
