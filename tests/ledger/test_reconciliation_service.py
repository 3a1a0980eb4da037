"""The ledger on the feed: events appended to the store become the read models and the
reconciliation (through the ledger's subscriber), the findings land in the one findings
table, and ``manage.py reconcile`` reports them."""

from __future__ import annotations

import json
import uuid
from datetime import date
from itertools import pairwise

import pytest

from audit.feed.subscribers import catch_up
from audit.models import Finding
from ledger import models as m
from ledger.projection import project_table
from tests.back_office.helpers import append
from tests.commands import run_command

from .helpers import DAY, Table, worked_example

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_projection_on_append(settings) -> None:
    settings.PROJECT_ON_APPEND = False


def stored(table: Table) -> None:
    """Append the table's events and let the ledger's subscriber follow the feed."""
    append(table.code, table.events)
    catch_up("ledger.books")


def test_the_worked_example_from_events_to_the_command_s_json(fake_game) -> None:
    """13 Miss. Code R. 7-3.3: opener 20,000; fills 5,000; credits 2,000; closer 18,000;
    drop 9,000 - win 4,000, hold 44.4%; replay agrees, nothing is found, exit 0."""
    t = worked_example()
    fake_game.record(t.code, t.events)
    stored(t)
    day = m.Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date(2026, 11, 29), shift=""
    )
    assert (day.opener, day.fills, day.credits, day.closer, day.drop) == (
        2_000_000,
        500_000,
        200_000,
        1_800_000,
        900_000,
    )
    assert (day.chip_win, day.recorded_win, day.replayed_win) == (400_000, 400_000, 400_000)
    assert (
        day.theoretical_win == 3_000 and day.theoretical_sd is None
    )  # handle 6,000.00 x 1/200; no variance yet
    assert sum(day.trial_balance.values()) == 0
    assert day.chip_variance == 0 and not day.unexplained

    code, out, err = run_command("reconcile", "--day", DAY, "--json")
    assert code == 0, err
    [result] = json.loads(out)
    assert {
        k: result[k]
        for k in (
            "table",
            "gaming_day",
            "chip_count_win",
            "recorded_win",
            "replayed_win",
            "theoretical_win",
            "theoretical_sd",
            "drop",
            "hold",
        )
    } == {
        "table": "BJ-01",
        "gaming_day": DAY,
        "chip_count_win": 400_000,
        "recorded_win": 400_000,
        "replayed_win": 400_000,
        "theoretical_win": 3_000,
        "theoretical_sd": None,
        "drop": 900_000,
        "hold": "44.4%",
    }
    assert result["variances"] == {"chip": 0, "replay": 0} and result["findings"] == []
    assert (
        result["display"]["chip_count_win"] == "+EUR 4,000.00"
        and result["display"]["theoretical_sd"] == "n/a"
    )
    assert [s["shift"] for s in result["shifts"]] == ["06:00"]

    code, out, _ = run_command("reconcile", "--day", DAY)
    assert code == 0 and "BJ-01 2026-11-29: chip-count +EUR 4,000.00" in out and "hold 44.4%" in out


def short_closer(t: Table, missing: int = 50_00) -> dict:
    """The worked example with its closer miscounted: chips of ``missing`` short (5.00
    chips stand in for the 1,000.00 one taken away)."""
    closer = next(
        e
        for e in t.events
        if e["type"] == "inventory.counted" and e["payload"]["kind"] == "closing"
    )
    closer["payload"]["chips"] = [
        {"denomination": 500, "count": (100_000 - missing) // 500},
        {"denomination": 100_000, "count": 17},
    ]
    return closer


def test_a_planted_chip_variance_is_one_open_finding_superseded_when_a_correction_explains_it(
    fake_game,
) -> None:
    """A closer 50.00 short (above the 25.00 threshold) is exactly one open
    chip_variance; the miscount struck by an authorised correction and the tray counted
    again, the finding is superseded and the command exits 0."""
    t = worked_example()
    fake_game.record(t.code, t.events)
    bad = short_closer(t)
    stored(t)
    [finding] = Finding.objects.filter(superseded_by__isnull=True)
    assert (finding.kind, finding.status, finding.shift, finding.stream) == (
        "chip_variance",
        "open",
        "",
        "BJ-01",
    )
    assert finding.recorded == "+EUR 3,950.00" and finding.expected == "+EUR 4,000.00"
    assert "-EUR 50.00" in finding.message
    code, out, _ = run_command("reconcile", "--day", DAY, "--json")
    assert code == 1 and json.loads(out)[0]["variances"]["chip"] == -5_000
    assert (
        Finding.objects.filter(superseded_by__isnull=True).count() == 1
    )  # the command finds the same one

    t.add(
        "correction.recorded",
        {
            "round": None,
            "corrects": bad["id"],
            "settlements": [],
            "reason": "closer miscounted: a 100.00 chip counted as 50.00",
            "authorised_by": "PB-1",
        },
    )
    t.count("closing", {100_000: 18})
    append(t.code, t.events[-2:])
    catch_up("ledger.books")
    assert Finding.objects.filter(superseded_by__isnull=True).count() == 0
    finding.refresh_from_db()
    assert finding.superseded_by is not None and finding.superseded_by.trigger == "reconciliation"
    assert m.Reconciliation.objects.get(shift="").chip_variance == 0
    assert run_command("reconcile", "--day", DAY)[0] == 0


def test_a_variance_at_the_threshold_is_shown_not_reported(fake_game) -> None:
    t = worked_example()
    fake_game.record(t.code, t.events)
    short_closer(t, missing=25_00)
    stored(t)
    day = m.Reconciliation.objects.get(shift="")
    assert day.chip_variance == -2_500 and not day.unexplained
    assert not Finding.objects.exists()


def test_the_regulator_threshold_is_read_from_the_settings(fake_game, settings) -> None:
    settings.LEDGER_VARIANCE_THRESHOLDS = "EUR=25.00/50.00"
    t = worked_example()
    fake_game.record(t.code, t.events)
    short_closer(t)
    stored(t)
    assert "goes to the regulator" in Finding.objects.get().message


def test_replay_differences_explain_the_replayed_win_and_what_they_do_not_is_a_finding(
    fake_game,
) -> None:
    """The engine's wrong payout (its amount) explains replayed against recorded; an
    unexplained 30.00 is a replay_variance."""
    from ledger.books import ReplayDifference

    t = worked_example()
    fake_game.record(t.code, t.events)
    fake_game.rounds[("BJ-01", DAY, 1)] += 1_000
    fake_game.differences[("BJ-01", DAY)] = [
        ReplayDifference("wrong_payout", 1_000, bet="r1-b2", round=1)
    ]
    stored(t)
    day = m.Reconciliation.objects.get(shift="")
    assert (day.replayed_win, day.replay_variance) == (401_000, 0)
    assert day.explanations["replay"][0]["kind"] == "wrong_payout"
    fake_game.rounds[("BJ-01", DAY, 1)] += 3_000
    assert run_command("reconcile", "--day", DAY)[0] == 1
    assert Finding.objects.get().kind == "replay_variance"


def test_bad_input_exits_2_naming_it(fake_game) -> None:
    stored(worked_example())
    code, _, err = run_command("reconcile", "--day", "2026-13-01")
    assert code == 2 and "--day '2026-13-01'" in err
    code, _, err = run_command("reconcile", "--table", "NOPE")
    assert code == 2 and "'NOPE'" in err
    code, _, err = run_command("reconcile", "--day", "2026-11-28")
    assert code == 2 and "no figures" in err


def test_help_states_exit_codes() -> None:
    from ledger.management.commands.reconcile import Command

    text = " ".join(Command().create_parser("manage.py", "reconcile").format_help().split())
    assert "Exit codes: 0 " in text and "1 a table-day lacks a count" in text
    assert "has a variance not explained" in text and "2 bad input" in text


def test_a_batch_seen_twice_changes_nothing_and_chunks_give_the_rows_of_one_fold(fake_game) -> None:
    """Appended in chunks of 5 (the subscriber following each), folded again from the
    start, and the same batch handed to the subscriber again: the same rows. The day
    before is final once the next day opened, whatever the chunks."""
    t = worked_example()
    t.open("2026-11-30")
    t.count("opening", {100_000: 18}, day="2026-11-30")
    t.play((50_000, 50_000))
    t.count("closing", {100_000: 17, 5_000: 10}, day="2026-11-30")
    t.drop(0, day="2026-11-30")
    fake_game.record(t.code, t.events)
    opened = next(
        i for i, e in enumerate(t.events) if e["payload"].get("gaming_day") == "2026-11-30"
    )
    cuts = sorted(
        {*range(0, len(t.events), 5), opened, opened + 1, len(t.events)}
    )  # the opening alone
    for start, end in pairwise(cuts):
        append(t.code, t.events[start:end])
        catch_up("ledger.books")

    def rows() -> list[tuple]:
        return [
            tuple(
                (k, v)
                for k, v in r.items()
                if k not in ("id", "reconciled_at", "reconciled_version", "table_id")
            )
            for r in m.Reconciliation.objects.order_by("gaming_day", "shift").values()
        ]

    live = rows()
    assert [r[0][1] for r in live] == [date(2026, 11, 29)] * 2 + [date(2026, 11, 30)] * 2
    assert project_table(stream="BJ-01").written is False  # nothing new
    assert rows() == live
    project_table(stream="BJ-01", full=True)
    assert rows() == live
    assert m.Reconciliation.objects.get(gaming_day=date(2026, 11, 29), shift="").final
    assert not m.Reconciliation.objects.get(gaming_day=date(2026, 11, 30), shift="").final
    assert (
        m.Slip.objects.count() == 2
        and m.InventorySlip.objects.count() == 4
        and m.DropBox.objects.count() == 2
    )


def test_the_custody_lists_keep_each_step_s_people_and_amounts(fake_game) -> None:
    t = worked_example()
    t.fill("F-9", {5_000: 4}, steps=("requested", "issued"))
    t.void("fill", "F-9")
    stored(t)
    fill = m.Slip.objects.get(number="F-1")
    assert fill.state == "complete" and fill.value == 500_000
    assert (
        set(fill.steps) == {"requested", "issued", "received"}
        and fill.steps["issued"]["value"] == 500_000
    )
    assert fill.people["issued_by"] == "CA-1" and fill.people["carried_by"] == "SEC-1"
    voided = m.Slip.objects.get(number="F-9")
    assert voided.state == "voided" and voided.void_reason == "requested by mistake"
    opener = m.InventorySlip.objects.get(kind="opening")
    assert (opener.value, opener.counted_by, opener.witnessed_by) == (2_000_000, "D-1", "PB-1")
    assert uuid.UUID(str(opener.event_id)) and opener.version == 2
    assert m.DropBox.objects.get().state == "posted"


def test_report_hold_prints_and_writes_csv(fake_game) -> None:
    t = worked_example()
    fake_game.record(t.code, t.events)
    stored(t)
    code, out, _ = run_command("report", "hold", "--from", DAY, "--to", DAY)
    assert code == 0 and "BJ-01" in out and "+EUR 4,000.00" in out and "44.4%" in out
    code, out, _ = run_command("report", "hold", "--from", DAY, "--to", DAY, "--csv")
    header, row, total = out.splitlines()
    assert header.startswith(
        "table,pit,game,currency,periods,drop,drop_amount,drop_minor,win,win_amount,win_minor,"
        "hold,hold_bp"
    )
    assert '"+EUR 4,000.00",4000.00,400000,44.4%,4444' in row
    assert (
        total.startswith("total,,,EUR,1,") and '"+EUR 4,000.00",4000.00,400000,44.4%,4444' in total
    )
    code, out, _ = run_command(
        "report", "statistics", "--group", "casino", "--period", "ytd", "--day", DAY
    )
    assert code == 0 and "year to date, 2026-01-01 to 2026-11-29" in out
    # the daily report's "inside the 95% interval": a word, never Python's True or False
    code, out, _ = run_command("report", "daily", "--from", DAY, "--to", DAY)
    header, row = out.splitlines()[1:3]
    assert code == 0 and header.endswith("inside the 95% interval")
    assert row.split()[-1] in ("yes", "no", "n/a") and "True" not in out and "False" not in out


@pytest.mark.parametrize(
    "args, says",
    [
        (("hold", "--from", DAY), "needs --from and --to"),
        (("hold", "--from", "2026-11-30", "--to", DAY), "is after --to"),
        (("hold", "--from", "29/11/2026", "--to", DAY), "--from '29/11/2026'"),
        (("weekly", "--from", DAY, "--to", DAY), "no such report"),
        (("statistics", "--group", "colour", "--day", DAY), "group 'colour'"),
    ],
)
def test_report_bad_input_exits_2(args, says) -> None:
    code, _, err = run_command("report", *args)
    assert code == 2 and says in err


def test_a_day_of_shifts_reports_a_variance_by_the_shift_it_is_in(fake_game, settings) -> None:
    """Two shifts (LEDGER_SHIFTS=8h), each counted, with its own drop compartment: 30.00
    over in the first and 30.00 short in the second cancel out in the day, so each shift
    reports its own (with a threshold of 20.00) and the day reports none."""
    settings.LEDGER_SHIFTS = "8h"
    settings.LEDGER_VARIANCE_THRESHOLDS = "EUR=20.00/100.00"
    t = Table()
    t.open()
    t.count("opening", {100_000: 20}, shift="06:00")
    t.play((100_000, -100_000))
    t.count("closing", {100_000: 21, 500: 6}, shift="06:00")  # 30.00 over
    t.drop(0, shift="06:00")
    t.count("opening", {100_000: 21, 500: 6}, shift="14:00")
    t.play((100_000, -100_000))
    t.count("closing", {100_000: 22}, shift="14:00")  # 30.00 short of 22,030.00
    t.drop(0, shift="14:00")
    t.close()
    fake_game.record(t.code, t.events)
    stored(t)
    rows = {r.shift: r for r in m.Reconciliation.objects.all()}
    assert set(rows) == {"", "06:00", "14:00"}
    assert (rows["06:00"].chip_variance, rows["14:00"].chip_variance, rows[""].chip_variance) == (
        3_000,
        -3_000,
        0,
    )
    assert sorted(Finding.objects.filter(kind="chip_variance").values_list("shift", flat=True)) == [
        "06:00",
        "14:00",
    ]
    assert rows[""].unexplained  # the day has variances, reported by its shifts
    assert rows["06:00"].round_numbers == [1] and rows["14:00"].round_numbers == [2]
