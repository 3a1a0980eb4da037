"""The replay report: rounds, bets, recomputed against recorded per bet, findings - as
text for a person and as a JSON-ready dict for a machine."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .replay import ReplayResult


def exit_code(results: Sequence[ReplayResult]) -> int:
    """0 clean, 1 findings (2, unusable input, is the reader's)."""
    return 1 if any(result.findings for result in results) else 0


def as_dict(results: Sequence[ReplayResult]) -> dict[str, Any]:
    streams = []
    for result in results:
        rounds = []
        for played in result.rounds:
            bets = []
            for bet_id, (box, hand, kind, amount) in played.bets.items():
                expected = played.expected.get(bet_id)
                recorded = played.recorded.get(bet_id) if played.recorded is not None else None
                bets.append({
                    "bet": bet_id, "box": box, "hand": hand, "kind": kind, "amount": amount,
                    "recomputed": None if expected is None else {"outcome": expected.outcome, "net": expected.net},
                    "recorded": None if recorded is None else {"outcome": recorded[0], "net": recorded[1]},
                    "agrees": expected is not None and recorded is not None and (expected.outcome, expected.net) == recorded,
                })
            rounds.append({"round": played.number, "shoe": played.shoe, "settled": played.settled, "voided": played.voided, "bets": bets})
        streams.append({
            "stream": result.stream,
            "rules": result.rules,
            "events": result.events,
            "rounds": rounds,
            "findings": [finding.as_dict() for finding in result.findings],
        })
    return {
        "streams": streams,
        "rounds": sum(len(r.rounds) for r in results),
        "bets": sum(len(p.bets) for r in results for p in r.rounds),
        "findings": sum(len(r.findings) for r in results),
        "exit": exit_code(results),
    }


def as_text(results: Sequence[ReplayResult]) -> str:
    lines: list[str] = []
    for result in results:
        bets = sum(len(p.bets) for p in result.rounds)
        lines.append(f"Table {result.stream} - rule set {result.rules}: {result.events} events, {len(result.rounds)} rounds, {bets} bets, {len(result.findings)} findings")
        for played in result.rounds:
            state = "voided" if played.voided else ("settled" if played.settled else "not settled")
            lines.append(f"  Round {played.number} (shoe {played.shoe}, {state})")
            for bet_id, (box, hand, kind, amount) in played.bets.items():
                expected = played.expected.get(bet_id)
                recorded = played.recorded.get(bet_id) if played.recorded is not None else None
                mine = "-" if expected is None else f"{expected.outcome} {expected.net:+d}"
                theirs = "-" if recorded is None else f"{recorded[0]} {recorded[1]:+d}"
                mark = "ok" if expected is not None and recorded == (expected.outcome, expected.net) else "DIFFERS"
                if recorded is None and played.voided:
                    mark = "void"
                lines.append(f"    {bet_id:<20} box {box} hand {hand} {kind:<9} {amount:>10}  recomputed {mine:<16} recorded {theirs:<16} {mark}")
        if result.findings:
            lines.append("  Findings:")
            for finding in result.findings:
                where = ", ".join(f"{k} {v}" for k, v in (("round", finding.round), ("box", finding.box), ("hand", finding.hand), ("bet", finding.bet)) if v is not None)
                lines.append(f"    [{finding.kind}] {where}: {finding.message}")
    total = sum(len(r.findings) for r in results)
    lines.append("Clean: no findings." if not total else f"{total} finding(s).")
    return "\n".join(lines)
