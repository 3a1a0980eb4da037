"""The rows people act on follow from their events: a finding's status, a day's
sign-off, an alert's acknowledgement. Changed behind the services' back - on PostgreSQL
by the application's own database role, which may write these tables - each is named
by ``manage.py verify`` (exit 1), put back by ``manage.py rebuild_projections``, after
which ``verify`` passes and the rows are what they were before the change."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from fractions import Fraction
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection, transaction

from audit.feed.derived import derived_disagreements, derived_restore
from audit.feed.subscribers import catch_up_all
from audit.findings.workflow import finding_acknowledge, finding_reopen, finding_resolve
from audit.integrity import digests
from audit.models import Finding
from ledger import game
from ledger.feed import CACHE
from ledger.models import SignOff
from ledger.signoff import day_reopen, day_sign_off
from tables.floor import alert_acknowledge
from tables.models import Alert
from tests.audit.test_roles import granted_role
from tests.back_office.helpers import append, dealt, plant_short_pay
from tests.commands import run_command
from tests.ledger.conftest import FakeGame
from tests.ledger.helpers import DAY, worked_example

FINDING_FIELDS = (
    "status",
    "note",
    "status_changed_by",
    "status_changed_at",
    "status_event_version",
)
SIGN_OFF_FIELDS = (
    "status",
    "figures",
    "figures_hash",
    "signed_by",
    "signed_at",
    "note",
    "state",
    "exceptions",
    "reopened_by",
    "reopened_at",
    "reopen_note",
    "event_version",
)
ALERT_FIELDS = ("acknowledged_by", "acknowledged_at", "note", "event_version")


@pytest.fixture
def acted_on(settings) -> Iterator[dict[str, Any]]:
    """Two short pays at T1 (two findings, two alerts), the books' worked example at BJ-01;
    the first finding acknowledged, reopened and resolved, the second left open; the day
    signed off, reopened and signed off again; the first alert acknowledged; a head signed."""
    settings.PROJECT_ON_APPEND = False
    before = game.provider()
    fake = FakeGame()
    game.register(fake)
    CACHE.clear()
    try:
        books = worked_example()
        fake.record(books.code, books.events)
        append(books.code, books.events)
        rounds = dealt(rounds=12, table="T1")
        plant_short_pay(rounds, skip=1)
        plant_short_pay(rounds, skip=6)
        append("T1", rounds)
        catch_up_all()
        boss = get_user_model().objects.create_superuser(
            "boss", "boss@example.com", "boss-password-1"
        )
        first, second = Finding.objects.filter(stream="T1", kind="wrong_payout").order_by("round")[
            :2
        ]
        # (acknowledged before the finding is resolved: resolving acknowledges a waiting alert)
        alert = Alert.objects.filter(finding=first).get()
        alert_acknowledge(alert_id=alert.pk, user=boss, note="on it")
        finding_acknowledge(finding_id=first.pk, user=boss, note="looking")
        finding_reopen(finding_id=first.pk, user=boss)
        finding_resolve(finding_id=first.pk, user=boss, note="paid the player the unit")
        day = date.fromisoformat(DAY)
        day_sign_off(table=books.code, gaming_day=day, user=boss, note="first look")
        day_reopen(table=books.code, gaming_day=day, user=boss, note="a count to check")
        day_sign_off(table=books.code, gaming_day=day, user=boss, note="checked")
        digests.digest_sign()  # verify fails where no head covers the record
        yield {
            "first": first.pk,
            "second": second.pk,
            "table": books.code,
            "day": day,
            "alert": alert.pk,
            "other_alert": Alert.objects.filter(finding=second).get().pk,
        }
    finally:
        game.register(before)
        CACHE.clear()


def rows(data: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """The fields the events make, of every row the test changes, read from the table."""
    finding = Finding.objects.values_list(*FINDING_FIELDS)
    return {
        "first": finding.get(pk=data["first"]),
        "second": finding.get(pk=data["second"]),
        "sign-off": SignOff.objects.values_list(*SIGN_OFF_FIELDS).get(
            table=data["table"], gaming_day=data["day"]
        ),
        "alert": Alert.objects.values_list(*ALERT_FIELDS).get(pk=data["alert"]),
        "other alert": Alert.objects.values_list(*ALERT_FIELDS).get(pk=data["other_alert"]),
    }


def tamper(data: dict[str, Any], role: str | None) -> None:
    """What someone who may write the read models does behind the services' back (as
    ``role`` on PostgreSQL): a finding set resolved, who signed a day changed, an
    acknowledgement's note rewritten and another alert marked seen."""
    with transaction.atomic(), connection.cursor() as cursor:
        if role is not None:
            cursor.execute(f"SET LOCAL ROLE {role}")
        cursor.execute(
            "UPDATE audit_finding SET status = 'resolved', note = 'nothing to see', "
            "status_changed_by = 'mallory' WHERE id = %s",
            [data["second"]],
        )
        cursor.execute(
            "UPDATE ledger_signoff SET signed_by = 'mallory' WHERE \"table\" = %s AND gaming_day = %s",
            [data["table"], data["day"]],
        )
        cursor.execute(
            "UPDATE tables_alert SET note = 'false alarm' WHERE id = %s", [data["alert"]]
        )
        # (SQLite keeps a moment as UTC text without its offset)
        moment = "2026-11-29 12:00:00" + ("+00:00" if connection.vendor == "postgresql" else "")
        cursor.execute(
            "UPDATE tables_alert SET acknowledged_by = 'mallory', acknowledged_at = %s WHERE id = %s",
            [moment, data["other_alert"]],
        )


def check_tampering_named_and_restored(data: dict[str, Any], role: str | None) -> None:
    code, _, err = run_command("verify")
    assert code == 0, err
    before = rows(data)
    tamper(data, role)
    assert rows(data) != before
    code, _, err = run_command("verify")
    assert code == 1, err
    second = Finding.objects.get(pk=data["second"])
    expected = [
        (
            f"read model: finding {data['second']} (T1 {second.gaming_day.isoformat()} wrong_payout, fingerprint "
            f"{second.fingerprint[:12]}): status is 'resolved' in the row, 'open' by its events"
        ),
        "note is 'nothing to see' in the row, blank by its events",
        "status_changed_by is 'mallory' in the row, blank by its events",
        f"read model: sign-off {data['table']} {DAY}: signed_by is 'mallory' in the row, 'boss' by its events",
        (
            f"read model: alert {data['alert']} (finding:{Finding.objects.get(pk=data['first']).fingerprint}): note is "
            "'false alarm' in the row, 'on it' by its events"
        ),
        "acknowledged_by is 'mallory' in the row, blank by its events",
        "acknowledged_at is 2026-11-29T12:00:00+00:00 in the row, none by its events",
    ]
    for line in expected:
        assert line in err, (line, err)
    assert (
        err.count("read model: ") == 7
    )  # three of the finding, one of the sign-off, one and two of the alerts
    assert "7 field(s) of rows people act on differ from their events" in err
    assert "what protects the record" not in err  # nothing of the protection is wrong
    code, out, err = run_command("rebuild_projections")
    assert code == 1 and "finding row(s) written as their events make them" in err, (out, err)
    assert "1 sign-off row(s)" in err and "2 alert row(s)" in err
    assert rows(data) == before
    code, out, err = run_command("verify")
    assert code == 0, err
    code, out, err = run_command("rebuild_projections")
    assert code == 0 and "the rows people act on agree with their events" in out, err


@pytest.mark.django_db
def test_a_row_changed_behind_the_services_back_is_named_and_restored(acted_on) -> None:
    """SQLite, or PostgreSQL as the test's own (owner) role."""
    check_tampering_named_and_restored(acted_on, None)


@pytest.mark.django_db(transaction=True)
def test_the_application_role_changing_rows_is_named_and_restored(on_postgres, acted_on) -> None:
    """The application's database role may UPDATE these tables (its projections and
    services write them): what it changes there is found and put back."""
    with granted_role("test_app_derived") as role:
        check_tampering_named_and_restored(acted_on, role)


@pytest.mark.django_db
def test_the_services_rows_are_what_their_events_make(acted_on) -> None:
    """After acknowledge, reopen, resolve, sign off, reopen, sign off, acknowledge: no
    disagreement, and the rows hold what each last action said."""
    assert derived_disagreements() == []
    first = Finding.objects.get(pk=acted_on["first"])
    assert (first.status, first.note, first.status_changed_by) == (
        "resolved",
        "paid the player the unit",
        "boss",
    )
    signoff = SignOff.objects.get(table=acted_on["table"])
    assert (signoff.status, signoff.note, signoff.reopened_by, signoff.reopen_note) == (
        "signed",
        "checked",
        "",
        "",
    )


@pytest.mark.django_db
def test_a_deleted_sign_off_is_made_again_and_a_row_without_events_is_named(acted_on) -> None:
    """A sign-off row deleted: its events make it again, as it was. A sign-off row that
    no event made (inserted): named, and left - restoring never deletes."""
    kept = SignOff.objects.values_list("table", "gaming_day", *SIGN_OFF_FIELDS).get()
    SignOff.objects.all().delete()
    found = [str(d) for d in derived_disagreements()]
    assert found == [
        f"sign-off {acted_on['table']} {DAY}: its events make a row, but there is none"
    ]
    done = derived_restore()
    assert done.made == {"sign-off": 1} and not done.left
    assert SignOff.objects.values_list("table", "gaming_day", *SIGN_OFF_FIELDS).get() == kept
    forged = SignOff.objects.get()
    forged.pk, forged.gaming_day = None, date(2026, 12, 1)
    forged.save()
    assert [str(d) for d in derived_disagreements()] == [
        f"sign-off {acted_on['table']} 2026-12-01: the row is there, but no event made it"
    ]
    assert [str(d) for d in derived_restore().left] == [
        f"sign-off {acted_on['table']} 2026-12-01: the row is there, but no event made it"
    ]


@pytest.fixture
def a_rate(settings) -> Iterator[dict[str, Any]]:
    """A USD buy-in and drop of USD 1,000.00 at the EUR table BJ-01, the day's rate set by
    accounting at 0.9215 (EUR 921.50 booked), then again at 0.9 (EUR 900.00: the rate of
    the day is the last one set); a head signed."""
    from ledger.fx import fx_rate_set
    from tests.ledger.test_currencies import usd_at_a_eur_table

    settings.PROJECT_ON_APPEND = False
    before = game.provider()
    fake = FakeGame()
    game.register(fake)
    CACHE.clear()
    try:
        t = usd_at_a_eur_table()
        fake.record(t.code, t.events)
        append(t.code, t.events)
        catch_up_all()
        carol = get_user_model().objects.create_user("carol", is_staff=True)
        carol.groups.add(Group.objects.get(name="accounting"))
        fx_rate_set(
            gaming_day=date.fromisoformat(DAY),
            currency="USD",
            rate=Fraction(9_215, 10_000),
            user=carol,
            note="the cage's buying rate",
        )
        fx_rate_set(
            gaming_day=date.fromisoformat(DAY), currency="USD", rate=Fraction(9, 10), user=carol
        )
        digests.digest_sign()
        yield {"table": t.code}
    finally:
        game.register(before)
        CACHE.clear()


def _booked() -> tuple[int | None, int | None]:
    from ledger.models import Reconciliation

    day = Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date.fromisoformat(DAY), shift=""
    )
    return day.buyins_cash, day.drop


@pytest.mark.django_db
def test_an_exchange_rate_changed_behind_the_service_is_named_and_restored_and_its_day_booked_again(
    a_rate,
) -> None:
    """The rate row set to 1/1 (and its note rewritten) behind the service's back, and the
    table folded again with it: the USD 1,000.00 is booked as EUR 1,000.00. verify names
    the row's fields against its last event (9/10); rebuild_projections writes them back
    and folds the day again: EUR 900.00 (by hand, 1,000.00 x 0.9)."""
    from ledger.models import FxRate
    from ledger.projection import project_table

    assert derived_disagreements() == []
    assert _booked() == (90_000, 90_000)
    kept = FxRate.objects.values_list(
        "numerator", "denominator", "set_by", "set_at", "note", "event_version"
    ).get()
    assert kept[:3] == (9, 10, "carol") and kept[4] == ""
    with connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_fxrate SET numerator = 1, denominator = 1, note = 'par'")
    project_table(stream="BJ-01", full=True, cache=CACHE)
    assert _booked() == (100_000, 100_000)

    code, _, err = run_command("verify")
    assert code == 1
    for line in (
        f"read model: exchange rate {DAY} USD to EUR: numerator is 1 in the row, 9 by its events",
        "denominator is 1 in the row, 10 by its events",
        "note is 'par' in the row, blank by its events",
    ):
        assert line in err, (line, err)
    code, _, err = run_command("rebuild_projections")
    assert code == 1 and "1 exchange rate row(s) written as their events make them" in err, err
    assert (
        FxRate.objects.values_list(
            "numerator", "denominator", "set_by", "set_at", "note", "event_version"
        ).get()
        == kept
    )
    assert _booked() == (90_000, 90_000)
    code, _, err = run_command("verify")
    assert code == 0, err


@pytest.mark.django_db
def test_a_deleted_exchange_rate_is_made_again_from_its_events(a_rate) -> None:
    from ledger.models import FxRate

    kept = FxRate.objects.values_list(
        "gaming_day",
        "currency",
        "house",
        "numerator",
        "denominator",
        "set_by",
        "set_at",
        "note",
        "event_version",
    ).get()
    FxRate.objects.all().delete()
    assert [str(d) for d in derived_disagreements()] == [
        f"exchange rate {DAY} USD to EUR: its events make a row, but there is none"
    ]
    done = derived_restore()
    assert done.made == {"exchange rate": 1} and not done.left
    assert (
        FxRate.objects.values_list(
            "gaming_day",
            "currency",
            "house",
            "numerator",
            "denominator",
            "set_by",
            "set_at",
            "note",
            "event_version",
        ).get()
        == kept
    )


@pytest.mark.django_db
def test_the_periodic_verification_finds_a_changed_row(acted_on) -> None:
    """The beat's verification (audit.tasks.verify_chains) checks the rows people act on as
    verify does: each field changed behind the services' back is a critical
    ``read_model_differs`` finding, the floor gets its alert; once the rows are written
    back, the next run supersedes them."""
    from audit.tasks import verify_chains_task

    assert verify_chains_task.apply().get()["problems"] == []
    tamper(acted_on, None)
    result = verify_chains_task.apply().get()
    assert len(result["problems"]) == 7 and all(
        p.startswith("read model: ") for p in result["problems"]
    )
    found = Finding.objects.filter(kind="read_model_differs", superseded_by__isnull=True)
    assert found.count() == 7 and {f.severity for f in found} == {"critical"}
    assert found.filter(
        message__contains="signed_by is 'mallory' in the row, 'boss' by its events"
    ).exists()
    assert Alert.objects.filter(kind="verify_failed").exists()
    derived_restore()
    assert verify_chains_task.apply().get()["problems"] == []
    assert not Finding.objects.filter(
        kind="read_model_differs", superseded_by__isnull=True
    ).exists()


@pytest.mark.django_db
def test_rebuild_of_one_table_writes_back_that_tables_rows_only(acted_on) -> None:
    """rebuild_projections --stream: the rows people act on of that table are written back
    as their events make them; another table's stay as they are, named by verify."""
    before = rows(acted_on)
    tamper(acted_on, None)
    code, out, err = run_command("rebuild_projections", "--stream", "T1")
    assert code == 1, (out, err)
    assert "1 finding row(s) written as their events make them" in err and "2 alert row(s)" in err
    assert "sign-off" not in err  # BJ-01's
    after = rows(acted_on)
    assert (after["second"], after["alert"], after["other alert"]) == (
        before["second"],
        before["alert"],
        before["other alert"],
    )
    assert after["sign-off"] != before["sign-off"]
    code, out, err = run_command("rebuild_projections", "--stream", acted_on["table"])
    assert code == 1 and "1 sign-off row(s) written as their events make them" in err, (out, err)
    assert rows(acted_on) == before
    code, out, err = run_command("rebuild_projections", "--stream", "T1")
    assert code == 0 and "the rows people act on of table T1 agree with their events" in out, err
