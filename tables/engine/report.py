"""The replay report: rounds, bets, recomputed against recorded per bet, findings - as
text for a person (a summary per stream, or every bet) and as a JSON-ready dict for a
machine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from audit.record.money import money_text
from tables.engine.illegal import Finding

from .replay import ReplayResult, RoundResult
from .table_round import Settlement

# findings listed one by one per stream in the summary; the rest are counted
SUMMARY_FINDINGS = 20


def exit_code(results: Sequence[ReplayResult]) -> int:
    """0 clean, 1 findings (2, unusable input, is the reader's)."""
    return 1 if any(result.findings for result in results) else 0


def as_dict(results: Sequence[ReplayResult]) -> dict[str, Any]:
    streams = [
        {
            "stream": result.stream,
            "rules": result.rules,
            "events": result.events,
            "rounds": [round_dict(played) for played in result.rounds],
            "findings": [finding.as_dict() for finding in result.findings],
        }
        for result in results
    ]
    return {
        "streams": streams,
        "rounds": sum(len(r.rounds) for r in results),
        "bets": sum(len(p.bets) for r in results for p in r.rounds),
        "findings": sum(len(r.findings) for r in results),
        "exit": exit_code(results),
    }


def round_dict(played: RoundResult) -> dict[str, Any]:
    """One round of :func:`as_dict`'s ``rounds``: each bet recomputed against recorded."""
    bets = []
    for bet_id, (box, hand, kind, amount) in played.bets.items():
        expected = played.expected.get(bet_id)
        recorded = played.recorded.get(bet_id) if played.recorded is not None else None
        bets.append(
            {
                "bet": bet_id,
                "box": box,
                "hand": hand,
                "kind": kind,
                "amount": amount,
                "recomputed": None
                if expected is None
                else {"outcome": expected.outcome, "net": expected.net},
                "recorded": None
                if recorded is None
                else {"outcome": recorded[0], "net": recorded[1]},
                "agrees": expected is not None
                and recorded is not None
                and (expected.outcome, expected.net) == recorded,
            }
        )
    return {
        "round": played.number,
        "shoe": played.shoe,
        "settled": played.settled,
        "voided": played.voided,
        "bets": bets,
    }


def as_text(results: Sequence[ReplayResult]) -> str:
    lines: list[str] = []
    for result in results:
        bets = sum(len(p.bets) for p in result.rounds)
        lines.append(
            text_heading(
                result.stream,
                result.rules,
                result.events,
                len(result.rounds),
                bets,
                len(result.findings),
            )
        )
        for played in result.rounds:
            lines.extend(round_lines(played))
        lines.extend(finding_lines(result.findings))
    total = sum(len(r.findings) for r in results)
    lines.append("Clean: no findings." if not total else f"{_n(total, 'finding')}.")
    return "\n".join(lines)


def text_heading(
    stream: str | None, rules: str | None, events: int, rounds: int, bets: int, findings: int
) -> str:
    """A stream's first line in :func:`as_text`."""
    return f"Table {stream} - rule set {rules}: {events} events, {rounds} rounds, {bets} bets, {findings} findings"


def round_lines(played: RoundResult) -> Iterator[str]:
    """A round's lines in :func:`as_text`: the round, then each bet recomputed against recorded."""
    state = "voided" if played.voided else ("settled" if played.settled else "not settled")
    yield f"  Round {played.number} (shoe {played.shoe}, {state})"
    for bet_id, box, hand, kind, amount, expected, recorded, mark in bet_rows(played):
        mine = "-" if expected is None else f"{expected.outcome} {expected.net:+d}"
        theirs = "-" if recorded is None else f"{recorded[0]} {recorded[1]:+d}"
        yield (
            f"    {bet_id:<20} box {box} hand {hand} {kind:<9} {amount:>10}  recomputed {mine:<16} "
            f"recorded {theirs:<16} {mark}"
        )


def finding_lines(findings: Sequence[Finding]) -> list[str]:
    """A stream's findings in :func:`as_text`, each on its line (none: no line)."""
    if not findings:
        return []
    return [
        "  Findings:",
        *(f"    [{finding.kind}] {_where(finding)}: {finding.message}" for finding in findings),
    ]


BetRow = tuple[str, int, int, str, int, Settlement | None, tuple[str, int] | None, str]


def bet_rows(played: RoundResult) -> Iterator[BetRow]:
    """Each bet of a replayed round: (bet, box, hand, kind, amount, recomputed
    settlement, recorded (outcome, net), mark) - the mark ``ok``, ``DIFFERS``, or
    ``void`` for a voided round's bet that was never settled."""
    for bet_id, (box, hand, kind, amount) in played.bets.items():
        expected = played.expected.get(bet_id)
        recorded = played.recorded.get(bet_id) if played.recorded is not None else None
        mark = (
            "ok"
            if expected is not None and recorded == (expected.outcome, expected.net)
            else "DIFFERS"
        )
        if recorded is None and played.voided:
            mark = "void"
        yield bet_id, box, hand, kind, amount, expected, recorded, mark


def house_results(result: ReplayResult) -> tuple[int, int]:
    """(recorded, recomputed): the house's result over the stream's rounds, in minor
    units, positive when the house won - the negated sum of the players' nets that the
    settlements record (corrections applied) and that the rules give. Voided rounds
    count for nothing."""
    recorded = recomputed = 0
    for played in result.rounds:
        round_recorded, round_recomputed = round_house(played)
        recorded += round_recorded
        recomputed += round_recomputed
    return recorded, recomputed


def round_house(played: RoundResult) -> tuple[int, int]:
    """(recorded, recomputed): one round's share of :func:`house_results` (a round never
    settled has recorded nothing)."""
    if played.voided:
        return 0, 0
    recomputed = -sum(settlement.net for settlement in played.expected.values())
    recorded = 0 if played.recorded is None else -sum(net for _, net in played.recorded.values())
    return recorded, recomputed


def as_summary(results: Sequence[ReplayResult], currencies: Mapping[str, str] | None = None) -> str:
    """Per stream: events, rounds, bets, the house result recorded and recomputed (money
    in the stream's currency, from ``currencies``; minor units where none is known) and
    the findings by kind, then each finding (the first :data:`SUMMARY_FINDINGS`)."""
    currencies = currencies or {}
    lines: list[str] = []
    for result in results:
        bets = sum(len(p.bets) for p in result.rounds)
        lines.extend(
            summary_lines(
                result.stream,
                result.rules,
                result.events,
                len(result.rounds),
                bets,
                house_results(result),
                result.findings,
                currencies.get(result.stream or ""),
            )
        )
    total = sum(len(r.findings) for r in results)
    lines.append("Clean: no findings." if not total else f"{_n(total, 'finding')}.")
    return "\n".join(lines)


def summary_lines(
    stream: str | None,
    rules: str | None,
    events: int,
    rounds: int,
    bets: int,
    house: tuple[int, int],
    findings: Sequence[Finding],
    currency: str | None,
) -> list[str]:
    """A stream's lines in :func:`as_summary`; ``house`` is (recorded, recomputed), as
    :func:`house_results` gives it."""
    recorded, recomputed = house

    def money(amount: int, signed: bool = True) -> str:
        return money_text(amount, currency, signed=signed)

    lines = [
        f"Table {stream} - rule set {rules}: {events:,} events, {_n(rounds, 'round')}, {_n(bets, 'bet')}"
    ]
    difference = (
        ""
        if recorded == recomputed
        else f" (differs by {money(abs(recorded - recomputed), False)})"
    )
    lines.append(
        f"  house result: recorded {money(recorded)}, recomputed {money(recomputed)}{difference}"
    )
    kinds = Counter(finding.kind for finding in findings)
    lines.append(
        "  findings: " + (", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())) or "none")
    )
    for finding in findings[:SUMMARY_FINDINGS]:
        lines.append(f"    [{finding.kind}] {_where(finding)}: {finding.message}")
    if len(findings) > SUMMARY_FINDINGS:
        lines.append(
            f"    ... and {len(findings) - SUMMARY_FINDINGS} more (--bets or --json lists them all)"
        )
    return lines


def _where(finding: Finding) -> str:
    return ", ".join(
        f"{k} {v}"
        for k, v in (
            ("round", finding.round),
            ("box", finding.box),
            ("hand", finding.hand),
            ("bet", finding.bet),
        )
        if v is not None
    )


def _n(count: int, noun: str) -> str:
    """``1 round``, ``2 rounds``, ``1,200 bets``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
