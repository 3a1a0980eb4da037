"""``blackjack-audit round``: one round's recall (AGCO 13.1), from a package alone.

The table's events are replayed from the start of the package's period through the
round's end (the shoe needs what came before), the chain checked up to there, and the
round printed: its events (cards, bets, decisions, cash-outs, settlements) in order, each
bet's settlement recorded and recomputed, the chain state at its first and last event,
and how it is anchored in the signed head (the stream's last event's inclusion proof,
which the chain's links join to the round).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audit.record import merkle, signing
from audit.record.authority import refused_of
from audit.record.collector import bulk_work
from audit.record.events import read_current
from audit.record.jsonl import LineError, decode_line
from audit.record.money import format_money, format_signed
from audit.record.verify import Head, Verifier
from tables.engine.replay import Replay
from tables.engine.report import bet_rows

from . import layout


def round_recall(path: str | Path, table: str, day: str, number: int) -> str:
    """The recall as text; :class:`.layout.Unreadable` when the package, the table, the
    day or the round is not there. Bulk work: the table is replayed to the round, the
    collector's young threshold raised (audit.record.collector)."""
    with bulk_work():
        return _recall(path, table, day, number)


def _recall(path: str | Path, table: str, day: str, number: int) -> str:
    package = layout.Package(path)
    try:
        manifest = package.manifest()
        meta = manifest.get("streams", {}).get(table)
        if meta is None:
            raise layout.BadRequest(
                f"{path}: no table {table} in the package "
                f"(it has {', '.join(sorted(manifest.get('streams', {}))) or 'none'})"
            )
        first = meta["first_version"]
        replay = Replay(
            struck=meta.get("struck") or (), refused=refused_of(meta.get("authority") or {})
        )
        replay.skip_to(first)
        verifier = Verifier(
            start=lambda _: Head(first - 1, meta["first_prev_hash"], 0), check_payloads=False
        )
        mine: list[dict[str, Any]] = []
        in_round = done = False
        round_day = current_day = None
        currency = "XXX"
        rules = None
        problem = None
        played_on: dict[str, list[int]] = {}  # each gaming day's rounds, for a round not there
        for line, text in enumerate(package.lines(meta["file"]), start=1):
            try:
                envelope = decode_line(text, line)
            except LineError as error:
                raise layout.Unreadable(f"{meta['file']}: {error}") from None
            found = verifier.check(envelope, line)
            problem = problem or found
            event = envelope.as_dict()
            payload = event["payload"]
            if envelope.type == "table.opened":
                current_day, currency, rules = (
                    payload["gaming_day"],
                    payload["currency"],
                    payload["ruleset"],
                )
            if envelope.type == "round.started":
                played_on.setdefault(str(current_day), []).append(payload.get("round"))
                if payload.get("round") == number:
                    in_round, round_day = True, current_day
            if in_round or (
                envelope.type == "correction.recorded" and payload.get("round") == number
            ):
                mine.append(event)
            replay.apply(read_current({**event}))  # the fold reads the current form
            if (
                in_round
                and envelope.type in ("round.settled", "round.voided")
                and payload.get("round") == number
            ):
                in_round, done = False, True
        if not mine:
            raise layout.BadRequest(
                f"{path}: round {number} of table {table} is not in the package; "
                f"{_rounds_text(played_on, day)}"
            )
        if round_day != day:
            raise layout.BadRequest(
                f"{path}: round {number} of table {table} was played on gaming day {round_day}, "
                f"not {day}; {_rounds_text(played_on, day)}"
            )
        result = replay.view()
        played = next((r for r in result.rounds if r.number == number), None)
        heads = manifest.get("signed_heads") or []
        return _text(table, day, number, rules, currency, mine, played, done, problem, meta, heads)
    finally:
        package.close()


def _rounds_text(played_on: dict[str, list[int]], day: str) -> str:
    """``its rounds on 2026-11-29 are 1 to 400 (2026-11-30: 401 to 440)``: the rounds the
    package holds of a table, the asked day's first."""

    def span(numbers: list[int]) -> str:
        low, high = min(numbers), max(numbers)
        return str(low) if low == high else f"{low} to {high}"

    if not played_on:
        return "it holds no round of the table"
    asked = played_on.get(day)
    others = ", ".join(f"{d}: {span(n)}" for d, n in sorted(played_on.items()) if d != day)
    if asked is None:
        return f"it holds no round of the table on gaming day {day}, but {others}"
    return f"its rounds on {day} are {span(asked)}" + (f" ({others})" if others else "")


def _text(
    table: str,
    day: str,
    number: int,
    rules: str | None,
    currency: str,
    events: list[dict[str, Any]],
    played: Any,
    done: bool,
    problem: Any,
    meta: dict[str, Any],
    heads: list[dict[str, Any]],
) -> str:
    lines = [
        f"Round {number} - table {table}, gaming day {day}, rule set {rules}, currency {currency}"
    ]
    if played is not None:
        state = "voided" if played.voided else ("settled" if played.settled else "not settled")
        lines.append(f"shoe {played.shoe}, {state}")
    lines.append("")
    lines.append("Events:")
    for event in events:
        body = json.dumps(event["payload"], sort_keys=True, ensure_ascii=False)
        lines.append(f"  v{event['version']:<8} {event['occurred_at']}  {event['type']:<18} {body}")
    lines.append("")
    lines.append(
        "Settlements (player's net; recomputed by the rules engine, recorded at the table):"
    )
    if played is not None:
        for bet, box, hand, kind, amount, expected, recorded, mark in bet_rows(played):
            mine = (
                "-"
                if expected is None
                else f"{expected.outcome} {format_signed(expected.net, currency)}"
            )
            theirs = (
                "-" if recorded is None else f"{recorded[0]} {format_signed(recorded[1], currency)}"
            )
            lines.append(
                f"  {bet:<20} box {box} hand {hand} {kind:<9} {format_money(amount, currency):>12}  "
                f"recomputed {mine:<22} recorded {theirs:<22} {mark}"
            )
    lines.append("")
    lines.append("Chain:")
    lines.append(f"  first event v{events[0]['version']} prev_hash {events[0]['prev_hash']}")
    lines.append(f"  last event  v{events[-1]['version']} hash      {events[-1]['hash']}")
    lines.append(
        "  chain from the period's start to here: "
        + ("intact" if problem is None else f"BROKEN: {problem}")
    )
    latest = signing.SignedTreeHead.from_dict(heads[-1]) if heads else None
    proof = meta.get("inclusion") or {}
    if latest is not None:
        leaf = merkle.event_leaf(
            stream=table,
            version=meta["last_version"],
            position=meta["last_position"],
            event_hash=meta["last_hash"],
            seal=meta.get("last_seal"),
            leaf_format=latest.leaf_format,
        )
        ok = merkle.verify_inclusion(
            int(proof.get("index", -1)),
            latest.size,
            leaf,
            [bytes.fromhex(n) for n in proof.get("path") or []],
            latest.root,
        )
        lines.append(
            f"Inclusion: the stream's last event of the package (v{meta['last_version']}, leaf "
            f"{proof.get('index')}) {'is' if ok else 'is NOT'} in the signed head of {latest.size:,} events "
            f"(root {latest.root.hex()}, key {latest.key_id}, {heads[-1].get('timestamp')}), proof of "
            f"{len(proof.get('path') or [])} nodes; the chain's links v{events[-1]['version']}.."
            f"v{meta['last_version']} join the round to it."
        )
    if not done:
        lines.append("The round has no round.settled or round.voided in the package.")
    return "\n".join(lines)
