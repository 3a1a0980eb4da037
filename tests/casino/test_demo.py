"""The README's main job, run on a small day without serving."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command
from django.test import Client

from audit.models import Event, Finding
from audit.record.money import format_signed
from auditor.check import verify_package
from casino.demo import DEMO_FAULTS, FOUND_IN_RECORD
from tables import models as m
from tables.floor import result_of_handle_text


@pytest.mark.django_db(transaction=True)
def test_demo_builds_two_days_finds_every_planted_fault_of_every_kind_and_prints_a_working_login(
    tmp_path,
):
    out = io.StringIO()
    call_command("demo", no_serve=True, rounds=210, live_bets=5, folder=str(tmp_path), stdout=out)
    text = out.getvalue()
    # two gaming days, the second a tenth as long (at least 21 rounds a table: a push
    # carried on it-sabot plays one round more)
    assert "Gaming day 2026-11-29: 1,470 rounds" in text and "Gaming day 2026-11-30: 14" in text
    assert (
        f"planted faults found: {len(DEMO_FAULTS)} of {len(DEMO_FAULTS)}, every one of the" in text
    )
    assert "MISSED" not in text and "not planted" not in text
    # every kind the back-office finds in a record, each planted and found where the
    # manifest says - the next day's checks too (an opener against the closer before it,
    # a drop never counted or never posted)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert sorted(f["kind"] for f in manifest["faults"]) == sorted(FOUND_IN_RECORD)
    for fault in manifest["faults"]:
        want = fault["finding"]
        findings = Finding.objects.filter(
            stream=fault["table"], kind=want["kind"], superseded_by__isnull=True
        )
        if want["check"] == "engine":
            assert findings.filter(round=want["round"]).count() == 1, fault
            assert f"found  {fault['kind']} on {fault['table']} round {want['round']} ->" in text
        else:
            assert findings.filter(gaming_day=fault["gaming_day"]).count() == 1, fault
            assert (
                f"found  {fault['kind']} on {fault['table']} gaming day {fault['gaming_day']} ->"
                in text
            )
    # each table-day's accounting state beside its figures: an incomplete day says what it
    # lacks, a drop posted other than counted is not reconciled, the live game has no drop box
    first = text.split("Gaming day 2026-11-29")[1].split("Gaming day 2026-11-30")[0].splitlines()

    def state(table: str) -> str:
        return next(line for line in first if line.strip().startswith(table)).split("  ")[-1]

    assert state("BJ-03") == "incomplete: the drop not counted"
    # BJ-04's fill arrived a chip short of its issue (fill_short): that difference too
    assert state("BJ-04") == "incomplete: the drop not posted; a variance not explained"
    assert state("BJ-07") == "incomplete: no closing count"
    assert (
        state("BJ-05")
        == "incomplete: a fill or credit slip neither finished nor voided; a variance not explained"
    )
    assert state("BJ-01") == "no drop box (a game without a chip tray)"
    assert state("BJ-02") == "counted, a variance not explained"  # the chips 100.00 short
    opener = next(f for f in manifest["faults"] if f["kind"] == "opener_mismatch")
    assert opener["gaming_day"] == "2026-11-30"
    assert "all chains intact" in text
    # the regulator's package of both days, made by export_package and verified by the
    # offline auditor; the command printed to run it again, and the recall of a round
    package = tmp_path / "package.zip"
    exported = int(
        re.search(r"export_package: exported ([\d,]+) events of 7 table\(s\)", text)
        .group(1)
        .replace(",", "")
    )
    assert (
        exported == Event.objects.exclude(stream__startswith="audit.").count()
    )  # every table event of the two days
    assert "blackjack-audit verify: all agree" in text
    assert f"verify {package}   (gaming days 2026-11-29 to 2026-11-30" in text
    outcome = verify_package(package, processes=1)
    assert outcome.exit_code == 0 and f"events: {exported:,}" in outcome.summary[3]
    assert re.search(
        r"^signed heads: 1, the latest of \d{1,3}(,\d{3})+ events, root ", outcome.summary[2]
    )
    recall = re.search(r"recall +\S+ round (\S+) (\S+) (\S+) (\d+)", text).groups()
    assert recall == (str(package), "BJ-05", "2026-11-29", "1")
    assert Finding.objects.filter(superseded_by__isnull=True).count() == len(DEMO_FAULTS)
    # one block of findings by kind; the day's total with its house result % of handle; the house result
    # recorded beside the recomputed one, money by the one formatter
    assert text.count("findings by kind") == 1 and "1 findings" not in text
    days = list(m.TableDay.objects.filter(gaming_day="2026-11-29"))
    handle, house = sum(d.handle for d in days), -sum(d.recorded_net for d in days)
    recomputed = -sum(d.expected_net for d in days)
    total = next(
        line for line in text.splitlines() if line.strip().startswith("total")
    )  # the first day's
    assert format_signed(house, "EUR") in total and format_signed(recomputed, "EUR") in total
    assert (
        result_of_handle_text(house, handle) in total
        and "house result" in text
        and "(recorded)" in text
    )
    password = text.split("password: ")[1].split()[0]
    client = Client()
    # through the login form, as a person would (and past django-axes' backend)
    login = client.post("/admin/login/?next=/admin/", {"username": "demo", "password": password})
    assert login.status_code == 302 and login["Location"] == "/admin/"
    assert client.get("/admin/audit/event/").status_code == 200
    # not served: no address that nothing answers; the device's token reads its stream
    assert "http://" not in text and "runserver serves it" in text
    table, token = re.search(r"device +table (\S+), token (\w+)", text).groups()
    answer = Client().get(
        f"/api/streams/{table}/events?limit=3", HTTP_AUTHORIZATION=f"Token {token}"
    )
    assert answer.status_code == 200 and len(answer.json()["events"]) == 3
    # a second run changes nothing it should not: same events, same findings, the same
    # package to the byte
    events = Event.objects.count()
    made = (tmp_path / "package.zip").read_bytes()
    call_command(
        "demo", no_serve=True, rounds=210, live_bets=5, folder=str(tmp_path), stdout=io.StringIO()
    )
    assert Event.objects.count() == events
    assert (tmp_path / "package.zip").read_bytes() == made
    assert Finding.objects.filter(superseded_by__isnull=True).count() == len(DEMO_FAULTS)


@pytest.mark.django_db(transaction=True)
def test_demo_works_with_one_round_and_says_which_faults_a_short_day_cannot_hold(tmp_path):
    out = io.StringIO()
    call_command("demo", no_serve=True, rounds=1, live_bets=2, folder=str(tmp_path), stdout=out)
    text = out.getvalue()
    assert "7 rounds" in text and "1 round each and 1 round the next day" in text
    # one step a line, each announced before it runs, in order
    steps = [line for line in text.splitlines() if re.match(r"\d/\d ", line)]
    assert [line[:4] for line in steps] == ["1/5 ", "2/5 ", "3/5 ", "4/5 ", "5/5 "]
    assert steps[0] == "1/5 migrating the database" and all(
        line.count("/5 ") == 1 for line in steps
    )
    lines = text.splitlines()
    assert lines.index(steps[2]) < lines.index(next(x for x in lines if "ingest: " in x))
    planted = int(re.search(r"planted faults found: (\d+) of (\d+)", text).group(2))
    found = int(re.search(r"planted faults found: (\d+) of", text).group(1))
    assert found == planted >= 1 and "MISSED" not in text
    assert text.count("(not planted:") == len(DEMO_FAULTS) - planted


@pytest.mark.django_db
def test_the_checkouts_publisher_of_an_earlier_database_is_moved_aside_not_signed_over(
    tmp_path, settings
) -> None:
    """The demo run again after db.sqlite3 was removed: var/digests holds the heads of the
    earlier record, which the new one's first head cannot extend - moved aside, kept, so
    that the demo signs its own; never a publisher but the checkout's, never a store with
    events."""
    from datetime import UTC, datetime

    from casino.demo import checkout_publisher_ready
    from tests.back_office.helpers import append, dealt

    settings.BASE_DIR = tmp_path
    folder = tmp_path / "var" / "digests"
    settings.DIGEST_PUBLISHERS = [str(folder)]
    assert checkout_publisher_ready() is None and folder.is_dir()  # the first run makes it
    (folder / "latest.json").write_text('{"earlier": true}')
    said = checkout_publisher_ready(now=datetime(2026, 11, 30, 7, 5, 9, tzinfo=UTC))
    aside = tmp_path / "var" / "digests-before-20261130T070509Z"
    assert said == (
        f"the signed heads of an earlier database, in {folder}, moved to {aside.name}: "
        "this database's record starts its own"
    )
    assert (aside / "latest.json").read_text() == '{"earlier": true}'
    assert folder.is_dir() and list(folder.iterdir()) == []
    # a store with events: its publisher's heads are its own
    (folder / "latest.json").write_text("{}")
    append("T1", dealt("hoyle", rounds=1))
    assert checkout_publisher_ready() is None and (folder / "latest.json").exists()
    # a deployment's publisher: never touched
    settings.DIGEST_PUBLISHERS = [str(tmp_path / "heads")]
    assert checkout_publisher_ready() is None and not (tmp_path / "heads").exists()
