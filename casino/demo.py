"""The demo - the README's main job: a simulated gaming day with planted faults, ingested,
replayed and summed up, and logins a newcomer can use at once.

Each step is one of the product's own commands (``simulate``, ``ingest``, ``replay_day``,
``verify``), so the demo shows them working, not a shortcut around them. Running it again
is harmless: the same seed makes the same events, ingest stores a file once and replay
changes nothing the second time.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction

from audit.devices import device_ensure
from audit.models import Finding

DEMO_USER = "demo"
DEMO_TABLE = "DEMO-01"
DEMO_SEED = "2026-11-29"
# One fault of every kind replay must find, each at its own table and round (or the
# first round after it where it can be planted: a short pay needs a winning bet).
DEMO_FAULTS = (
    "short_pay@BJ-01:40",
    "overpay@BJ-02:60",
    "impossible_card@BJ-02:150",
    "dealer_stands_16@BJ-03:120",
    "duplicate_event@BJ-03:200",
    "dealer_draws_17@BJ-04:90",
    "natural_even_money@BJ-05:30",
    "card_out_of_sequence@BJ-06:50",
    "missing_event@BJ-07:70",
)
_REPLAY_FOUND = {"short_pay", "overpay", "natural_even_money", "dealer_draws_17", "dealer_stands_16",
                 "card_out_of_sequence", "impossible_card", "missing_event", "duplicate_event"}


@dataclass(frozen=True)
class DemoLogins:
    username: str
    password: str
    device_token: str
    device_table: str


@transaction.atomic
def demo_logins_ensure() -> DemoLogins:
    """Create (or reset) the demo superuser with a fresh password, and a device account
    for the demo table; return what to print."""
    password = secrets.token_urlsafe(9)
    user, _ = get_user_model().objects.get_or_create(username=DEMO_USER)
    user.is_staff = user.is_superuser = True
    user.set_password(password)
    user.save()
    device = device_ensure(stream=DEMO_TABLE)
    return DemoLogins(DEMO_USER, password, device.token, DEMO_TABLE)


def demo_day_build(*, rounds: int, live_bets: int, folder: Path | None = None, out=None) -> dict[str, Any]:
    """Simulate a gaming day of every preset with the demo's faults, ingest it and replay
    it; return the manifest of what was planted."""
    folder = folder or Path(settings.BASE_DIR) / "var" / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    events, manifest = folder / "day.jsonl", folder / "manifest.json"
    options = dict(stdout=out, stderr=out)
    call_command("simulate", out=str(events), manifest=str(manifest), seed=DEMO_SEED, rounds=rounds,
                 live_bets=live_bets, fault=list(DEMO_FAULTS), **options)
    call_command("ingest", str(events), **options)
    planted = json.loads(manifest.read_text())
    day = planted["faults"][0]["gaming_day"] if planted["faults"] else planted["start"][:10]
    call_command("replay_day", day=day, **options)
    call_command("verify", **options)
    return planted


@dataclass(frozen=True)
class FaultCheck:
    kind: str
    table: str
    round: int
    finding: str
    found: bool


def planted_faults_found(manifest: dict[str, Any]) -> list[FaultCheck]:
    """Each planted fault that replay must find, and whether an open (current) finding of
    the right kind stands on the right table and round."""
    checks = []
    for fault in manifest["faults"]:
        if fault["kind"] not in _REPLAY_FOUND:
            continue
        want = fault["finding"]
        found = Finding.objects.filter(
            stream=fault["table"], round=want["round"], kind=want["kind"], superseded_by__isnull=True,
        ).exists()
        checks.append(FaultCheck(fault["kind"], fault["table"], want["round"], want["kind"], found))
    return checks


def money(amount: int, currency: str) -> str:
    """Minor units as text: 123456 EUR -> '1,234.56 EUR' (two decimals, as EUR and CZK)."""
    sign = "-" if amount < 0 else ""
    units, cents = divmod(abs(amount), 100)
    return f"{sign}{units:,}.{cents:02d} {currency}"


def summary_lines(day: date, checks: list[FaultCheck]) -> list[str]:
    from tables.selectors import day_summary

    summary = day_summary(day)
    lines = [f"Gaming day {summary['gaming_day']}: {summary['rounds']:,} rounds, {summary['bets']:,} bets", ""]
    lines.append(f"  {'table':8} {'rule set':22} {'rounds':>7} {'bets':>8} {'handle':>18} {'house result':>16} {'findings':>8}")
    for t in summary["tables"]:
        lines.append(
            f"  {t['table']:8} {t['ruleset']:22} {t['rounds']:>7,} {t['bets']:>8,} "
            f"{money(t['handle'], t['currency']):>18} {money(t['house_result'], t['currency']):>16} {t['findings']:>8}"
        )
    kinds = ", ".join(f"{kind} {n}" for kind, n in summary["findings_by_kind"].items()) or "none"
    lines += ["", f"  findings by kind: {kinds}"]
    found = sum(c.found for c in checks)
    lines.append(f"  planted faults found: {found} of {len(checks)}")
    for c in checks:
        mark = "found" if c.found else "MISSED"
        lines.append(f"    {mark:6} {c.kind} on {c.table} round {c.round} -> {c.finding}")
    return lines
