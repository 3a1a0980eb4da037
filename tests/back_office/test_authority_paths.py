"""Who may change money, on every path past the API's door: ``manage.py ingest`` stores a
file's corrections and voids only when run for a person holding their permission
(``--as``), and the folds - the engine's replay and the ledger's books - apply a stored
correction or void only when its principal is a person's or the server's and its seal
holds: one from before principals were kept, a device's, or one a database administrator
slipped in is reported and leaves the settlement, its finding and the books as they were."""

from __future__ import annotations

import getpass
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from audit.access.authority import NotAuthorised
from audit.models import Event
from audit.store import seals
from audit.store.inserts import db_values, insert_values
from audit.store.streams import NewEvent, chain_row, check_batch, events_append, stream_head
from ledger import models as lm
from ledger.projection import project_table
from tables import models as m
from tables.replay_service import replay_table
from tests.commands import run_command
from tests.event_examples import EXAMPLES
from tests.groups import group_named

from .helpers import DAY, append, correction, dealt, engine_findings, plant_short_pay
from .test_feed import write_jsonl

pytestmark = pytest.mark.django_db


def _line(event: NewEvent, stream: str) -> dict[str, Any]:
    return {
        "id": str(event.id),
        "stream": stream,
        "type": event.type,
        "occurred_at": event.occurred_at.isoformat(),
        "actor": event.actor,
        "source": event.source,
        "payload": event.payload,
    }


def _bet(fault: dict[str, Any]) -> m.Bet:
    return m.Bet.objects.get(
        round__table__stream="T1", round__number=fault["round"], bet=fault["bet"]
    )


def _open_wrong_payouts() -> int:
    return engine_findings().filter(kind="wrong_payout", superseded_by__isnull=True).count()


# --- ingest ------------------------------------------------------------------------------------


@pytest.fixture
def day_with_correction(tmp_path: Path, settings) -> tuple[Path, dict[str, Any], str]:
    """T1's day with a short pay, its correction (to a house loss of 1,000,000) as the
    file's last line; T2's clean day. Returns the file, the fault and the correction's id."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=8, table="T1")
    fault = plant_short_pay(events)
    fix = correction("T1", fault, net=1_000_000)
    path = write_jsonl(tmp_path / "day.jsonl", events, dealt("hoyle", rounds=4, table="T2"))
    with path.open("a") as out:
        out.write(json.dumps(_line(fix, "T1")) + "\n")
    return path, fault, str(fix.id)


def _lines(path: Path) -> int:
    return sum(1 for _ in path.open())


def test_ingest_for_no_one_refuses_a_correction_line_and_its_stream(day_with_correction) -> None:
    """Exit 1, the line named with why and what to do; T1 (the stream of the bad line) is
    not stored at all, T2 is."""
    path, _, _ = day_with_correction
    code, _, err = run_command("ingest", str(path))
    assert code == 1
    assert (
        f"{path}:{_lines(path)}: type: correction.recorded changes money after the fact: ingest stores it only "
        "when run for a person holding the permission audit.correct_round (ingest --as USERNAME)"
    ) in err
    assert not Event.objects.filter(stream="T1").exists()
    assert Event.objects.filter(stream="T2").exists()


def test_ingest_for_a_person_without_the_permission_refuses_it_too(day_with_correction) -> None:
    path, _, _ = day_with_correction
    get_user_model().objects.create_user("clerk")
    code, _, err = run_command("ingest", str(path), "--as", "clerk")
    assert code == 1 and "correction.recorded changes money after the fact" in err
    assert not Event.objects.filter(stream="T1").exists()


def test_ingest_for_a_pit_boss_stores_the_correction_under_their_name(day_with_correction) -> None:
    """Stored, each row's principal naming who ran it and for whom; the replay applies it."""
    path, fault, fix = day_with_correction
    get_user_model().objects.create_user("pb").groups.add(group_named("pit_boss"))
    code, _, err = run_command("ingest", str(path), "--as", "pb")
    assert code == 0, err
    assert Event.objects.get(event_id=fix).principal == f"ingest:{getpass.getuser()} as user:pb"
    replay_table(stream="T1")
    assert _bet(fault).recorded_net == 1_000_000  # applied: a person with the authority said so


@pytest.mark.parametrize(
    ("who", "why"), [("nobody", "no such user"), ("device-T1", "a table device, not a person")]
)
def test_ingest_as_someone_who_is_no_person_exits_2(
    day_with_correction, who: str, why: str
) -> None:
    from audit.access.devices import device_ensure

    device_ensure(stream="T1")
    path, _, _ = day_with_correction
    code, _, err = run_command("ingest", str(path), "--as", who)
    assert code == 2 and err.strip() == f"--as {who}: {why}"
    assert not Event.objects.exists()


def test_ingest_refuses_a_server_type_on_a_tables_stream(tmp_path: Path) -> None:
    signed = NewEvent(
        id=uuid.uuid4(),
        type="ledger.signed_off",
        occurred_at=datetime(2026, 11, 29, tzinfo=UTC),
        actor="user:root",
        source="file",
        payload=EXAMPLES["ledger.signed_off"],
    )
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(_line(signed, "T1")) + "\n")
    code, _, err = run_command("ingest", str(path))
    assert (
        code == 1
        and "type: ledger.signed_off is written only by the back-office's own services" in err
    )


# --- the folds ---------------------------------------------------------------------------------


def store_past_the_door(
    stream: str, event: NewEvent, *, principal: str | None, seal: str | None = None
) -> None:
    """Append ``event`` as a row of the store, chained and hashed, under any principal and
    seal (None, None: a row from before principals were kept, let in past the database's
    refusal of unsealed rows; a seal that is not the store's: a row a database
    administrator slipped in)."""
    item = check_batch([event])[0]
    version, prev = stream_head(stream)
    row = chain_row(stream, version + 1, item, datetime.now(UTC), prev)
    values = list(db_values(row, connection.vendor, principal or "nobody"))
    values[12] = principal
    values[13] = seal if seal is not None or principal is None else values[13]
    if principal is not None:
        insert_values([tuple(values)])
        return
    # the database refuses a row without a seal (a row from before seals was stored before
    # that refusal): dropped for the insert and put back, as its owner could
    with transaction.atomic(), connection.cursor() as cursor:
        for sql in seals.GUARD_REMOVE[connection.vendor]:
            cursor.execute(sql)
        insert_values([tuple(values)])
        for sql in seals.GUARD_INSTALL[connection.vendor]:
            cursor.execute(sql)


@pytest.fixture
def short_paid(settings) -> dict[str, Any]:
    """T1's short-paid day, stored by the server, replayed and booked: one wrong payout."""
    settings.PROJECT_ON_APPEND = False
    events = dealt("hoyle", rounds=8, table="T1")
    fault = plant_short_pay(events)
    append("T1", events)
    replay_table(stream="T1")
    project_table(stream="T1")
    assert _open_wrong_payouts() == 1
    return fault


@pytest.mark.parametrize(
    ("principal", "seal", "why"),
    [
        (None, None, "stored before the store recorded who appended each event"),
        ("device:device-T1", None, "recorded by the table device device-T1"),
        ("ingest:root", None, "recorded as ingest:root, not by a person holding the role"),
        (
            "user:pb",
            "0" * 64,
            "its server seal does not hold",
        ),  # a person's name, forged past the store
    ],
)
def test_a_stored_correction_without_authority_changes_neither_settlement_nor_books(
    short_paid: dict[str, Any], principal: str | None, seal: str | None, why: str
) -> None:
    """The probe's correction (net 1,000,000 on the short-paid bet), stored past the door:
    the replay reports it (unauthorised_change, high) and keeps the recorded settlement and
    the wrong_payout finding; the ledger's recorded win is the uncorrected one."""
    win_before = lm.Reconciliation.objects.get(
        table__stream="T1", gaming_day=DAY, shift=""
    ).recorded_win
    store_past_the_door(
        "T1", correction("T1", short_paid, net=1_000_000), principal=principal, seal=seal
    )
    replay_table(stream="T1")
    project_table(stream="T1")
    assert _bet(short_paid).recorded_net == short_paid["wrong"]
    assert _open_wrong_payouts() == 1
    refused = engine_findings().get(kind="unauthorised_change")
    assert (
        refused.severity == "high"
        and refused.round == short_paid["round"]
        and why in refused.message
    )
    assert refused.event_version == Event.objects.filter(stream="T1").count()
    assert not m.Round.objects.get(table__stream="T1", number=short_paid["round"]).corrected
    assert (
        lm.Reconciliation.objects.get(table__stream="T1", gaming_day=DAY, shift="").recorded_win
        == win_before
    )


def test_the_same_correction_by_the_server_is_applied(short_paid: dict[str, Any]) -> None:
    """The control: stored through the store (the server's principal, sealed), the same
    correction changes the settlement and the ledger's recorded win by the difference."""
    win_before = lm.Reconciliation.objects.get(
        table__stream="T1", gaming_day=DAY, shift=""
    ).recorded_win
    events_append(
        stream="T1",
        expected_version=stream_head("T1")[0],
        events=[correction("T1", short_paid, net=1_000_000)],
    )
    replay_table(stream="T1")
    project_table(stream="T1")
    assert _bet(short_paid).recorded_net == 1_000_000
    assert not engine_findings().filter(kind="unauthorised_change").exists()
    win_after = lm.Reconciliation.objects.get(
        table__stream="T1", gaming_day=DAY, shift=""
    ).recorded_win
    assert win_before - win_after == 1_000_000 - short_paid["wrong"]


def test_the_store_refuses_a_correction_under_a_devices_principal() -> None:
    """The store's own rule, whoever calls it: a device's principal never stores one."""
    fault = {"round": 1, "bet": "b1", "outcome": "win", "right": 100}
    with pytest.raises(NotAuthorised, match="changes money after the fact"):
        events_append(
            stream="T1",
            expected_version=0,
            events=[correction("T1", fault)],
            principal="device:device-T1",
        )
    assert not Event.objects.exists()
