"""PostgreSQL's event table partitioned by gaming day (audit.store.partitions): where appends
land, uniqueness across partitions, the append-only protection of every partition, the
partitions made ahead, and the archival of a day."""

from __future__ import annotations

import hashlib
import io
import json
import os
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, IntegrityError, connection, transaction

from audit.integrity import digests
from audit.integrity.chains import chain_state, verify_chains
from audit.models import Event
from audit.record import merkle
from audit.record.chain import GENESIS_HASH
from audit.store import immutability, partitions
from audit.store.errors import IdConflict, VersionConflict
from audit.store.gaming_day import gaming_day
from audit.store.inserts import insert_rows
from audit.store.roles import privilege_problems
from audit.store.streams import chain_row, check_event, events_append, stream_head
from audit.tasks import make_event_partitions_task
from regulator.archive import ArchiveRefused, detach_day
from tests.commands import run_command
from tests.samples import round_events, table_opened

from .tampering import tamper
from .test_roles import granted_role

pytestmark = pytest.mark.django_db

NOW = datetime.now(UTC)
TODAY = gaming_day(NOW)
APP = f"test_part_app_{os.getpid()}"


def _where(stream: str, version: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tableoid::regclass::text FROM audit_event WHERE stream = %s AND version = %s",
            [stream, version],
        )
        return cursor.fetchone()[0]


def _make_day(day) -> str:
    """A past day's partition, as the owner makes one (the test's superuser)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {partitions.MAKE_ONE}(%s, %s, %s)", [day, "Europe/Rome", 6])
    return partitions.partition_name(day)


def test_an_append_lands_in_its_gaming_days_partition(on_postgres) -> None:
    """recorded_at decides: today's events in today's partition, an event past the
    partitions made ahead in the default one."""
    events_append(stream="T1", expected_version=0, events=[table_opened("T1")], now=NOW)
    events_append(
        stream="T1", expected_version=1, events=round_events(1), now=NOW + timedelta(days=400)
    )
    assert _where("T1", 1) == partitions.partition_name(TODAY)
    assert _where("T1", 2) == partitions.DEFAULT
    assert [e.version for e in Event.objects.filter(stream="T1")] == list(range(1, 27))


def test_the_same_id_in_another_partition_is_refused(on_postgres) -> None:
    """An id stored on one day is refused on another, by the store and, past it, by the
    key table under COPY (the write path of appends and ingest)."""
    [first] = events_append(stream="T1", expected_version=0, events=[table_opened("T1")], now=NOW)
    again = table_opened("T2")
    again = type(again)(
        **{**{f: getattr(again, f) for f in again.__dataclass_fields__}, "id": first.event_id}
    )
    with pytest.raises(IdConflict):
        events_append(stream="T2", expected_version=0, events=[again], now=NOW + timedelta(days=2))
    row = chain_row("T2", 1, check_event(again), NOW + timedelta(days=2), GENESIS_HASH)
    with pytest.raises(IntegrityError, match=f"{partitions.KEY_TABLE}_pkey"), transaction.atomic():
        insert_rows([row], "test")
    assert Event.objects.filter(event_id=first.event_id).count() == 1


def test_the_same_stream_version_in_another_partition_is_refused(on_postgres, monkeypatch) -> None:
    """A second writer at a stream's version, on another day, is refused by the key
    table; the store answers it as the version conflict it is."""
    events_append(stream="T1", expected_version=0, events=[table_opened("T1")], now=NOW)
    late = chain_row(
        "T1", 1, check_event(table_opened("T1")), NOW + timedelta(days=3), GENESIS_HASH
    )
    with (
        pytest.raises(IntegrityError, match=f"{partitions.KEY_TABLE}_stream_version"),
        transaction.atomic(),
    ):
        insert_rows([late], "test")
    # a writer that saw the stream empty and got past the store's own check under the lock
    monkeypatch.setattr("audit.store.streams.stream_head", lambda stream: (0, GENESIS_HASH))
    monkeypatch.setattr("audit.store.streams._confirm_heads", lambda *args: None)
    with pytest.raises(VersionConflict):
        events_append(
            stream="T1",
            expected_version=0,
            events=[table_opened("T1")],
            now=NOW + timedelta(days=3),
        )
    monkeypatch.undo()
    assert stream_head("T1")[0] == 1


def test_an_ingest_of_an_id_stored_on_another_day_is_refused(on_postgres, tmp_path) -> None:
    """Ingest (COPY) meets the same key: the line is refused, nothing else is stored."""
    import json

    from audit.store.ingest import ingest_file

    [stored] = events_append(
        stream="T1", expected_version=0, events=[table_opened("T1")], now=NOW - timedelta(days=30)
    )
    path = tmp_path / "again.jsonl"
    event = table_opened("T2")
    path.write_text(
        json.dumps(
            {
                "id": str(stored.event_id),
                "stream": "T2",
                "type": event.type,
                "occurred_at": event.occurred_at.isoformat(),
                "actor": event.actor,
                "source": "test",
                "payload": event.payload,
            }
        )
        + "\n"
    )
    report = ingest_file(str(path), processes=1)
    assert not report.ok and report.stored == 0
    assert not Event.objects.filter(stream="T2").exists()


STATEMENTS = ("UPDATE {t} SET actor = 'forger'", "DELETE FROM {t}", "TRUNCATE {t}")


@pytest.mark.parametrize("statement", STATEMENTS)
@pytest.mark.parametrize(
    "where",
    ["the table", "a partition", "the default partition", "the key table", "the detached leaves"],
)
def test_no_partition_can_be_changed(on_postgres, statement: str, where: str) -> None:
    """UPDATE, DELETE and TRUNCATE are refused on the table, on each partition itself and
    on the key table, even to the superuser that owns them."""
    events_append(stream="T1", expected_version=0, events=[table_opened("T1")], now=NOW)
    events_append(
        stream="T1", expected_version=1, events=[table_opened("T1")], now=NOW + timedelta(days=400)
    )
    table = {
        "the table": "audit_event",
        "a partition": partitions.partition_name(TODAY),
        "the default partition": partitions.DEFAULT,
        "the key table": partitions.KEY_TABLE,
        "the detached leaves": partitions.LEAVES,
    }[where]
    if table == partitions.LEAVES:
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {table} VALUES (1, 'T1', 1, %s, current_date)", ["a" * 64])
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            statement.format(t=table).replace(
                "actor", "stream" if table in (partitions.KEY_TABLE, partitions.LEAVES) else "actor"
            )
        )
    assert Event.objects.count() == 2


@pytest.fixture
def app_role(on_postgres):
    with granted_role(APP) as role:
        yield role


APP_REFUSED = {
    "update a partition": "UPDATE {p} SET actor = 'forger'",
    "delete from a partition": "DELETE FROM {p}",
    "truncate a partition": "TRUNCATE {p}",
    "truncate the default": "TRUNCATE audit_event_default",
    "insert into a partition, past the keys": "INSERT INTO {p} SELECT * FROM audit_event",
    "delete a key": "DELETE FROM audit_event_key",
    "insert a key": "INSERT INTO audit_event_key VALUES (gen_random_uuid(), 'T9', 1, 'h')",
    "insert a detached leaf": "INSERT INTO audit_event_detached VALUES (1, 'T9', 1, 'h', current_date)",
    "update a key": "UPDATE audit_event_key SET hash = 'h'",
    "detach a partition": "ALTER TABLE audit_event DETACH PARTITION {p}",
    "drop a partition": "DROP TABLE {p}",
    "disable a partition's trigger": "ALTER TABLE {p} DISABLE TRIGGER ALL",
    "make a partition itself": "SELECT audit_event_partition_create(current_date + 100, 'UTC', 6)",
}


@pytest.mark.parametrize("attack", sorted(APP_REFUSED))
def test_the_application_role_cannot_touch_a_partition(app_role, attack: str) -> None:
    """The application role holds nothing on the partitions or the key table."""
    events_append(stream="T1", expected_version=0, events=[table_opened("T1")], now=NOW)
    sql = APP_REFUSED[attack].format(p=partitions.partition_name(TODAY))
    with (
        pytest.raises(DatabaseError, match="permission denied|must be owner|append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"SET LOCAL ROLE {app_role}")
        cursor.execute(sql)
    assert Event.objects.count() == 1


def test_the_application_role_appends_reads_and_makes_partitions_ahead(app_role) -> None:
    """Through the table, the app appends (the key trigger runs as the owner) and reads;
    it may make the partitions ahead; db_roles --check finds nothing wrong."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL ROLE {app_role}")
        events_append(
            stream="T1", expected_version=0, events=[table_opened("T1"), *round_events(1)], now=NOW
        )
        assert Event.objects.filter(stream="T1").count() == 26
        made = partitions.make_ahead(connection, 10)
        cursor.execute("RESET ROLE")  # SET LOCAL lasts to the test's own transaction's end
    assert made == [partitions.partition_name(TODAY + timedelta(days=d)) for d in (8, 9, 10)]
    with connection.cursor() as cursor:
        assert privilege_problems(cursor, app=app_role) == []
        cursor.execute(f"GRANT INSERT ON {partitions.partition_name(TODAY)} TO {app_role}")
        assert privilege_problems(cursor, app=app_role) == [
            f"role {app_role} may INSERT {partitions.partition_name(TODAY)} directly"
        ]


def test_the_protection_check_names_a_partitions_trigger(on_postgres) -> None:
    """verify's protection check reaches each partition and the key table: a partition's
    TRUNCATE trigger dropped, a clone disabled, the key trigger disabled are named."""
    assert immutability.protection_problems(connection) == []
    part = partitions.partition_name(TODAY)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DROP TRIGGER audit_event_no_truncate ON {part}")
        cursor.execute(
            f"ALTER TABLE {partitions.DEFAULT} DISABLE TRIGGER audit_event_no_update_delete"
        )
        cursor.execute(f"ALTER TABLE audit_event DISABLE TRIGGER {partitions.KEYS_TRIGGER}")
        problems = immutability.protection_problems(connection)
        transaction.set_rollback(True)
    assert problems == sorted(
        [
            f"trigger audit_event_no_truncate on {part} is missing",
            f"trigger audit_event_no_update_delete on {partitions.DEFAULT} is disabled, not enabled always",
            f"trigger {partitions.KEYS_TRIGGER} on audit_event is disabled, not enabled always",
        ]
    )
    assert immutability.protection_problems(connection) == []


def test_the_beat_task_makes_partitions_ahead_once(on_postgres, settings) -> None:
    """The task makes the missing days up to EVENT_PARTITIONS_AHEAD; run again it makes
    nothing. A day whose events already sit in the default partition is left there."""
    settings.EVENT_PARTITIONS_AHEAD = 12
    events_append(
        stream="T1", expected_version=0, events=[table_opened("T1")], now=NOW + timedelta(days=10)
    )
    made = make_event_partitions_task.apply().result["made"]
    assert made == [partitions.partition_name(TODAY + timedelta(days=d)) for d in (8, 9, 11, 12)]
    assert make_event_partitions_task.apply().result["made"] == []
    assert _where("T1", 1) == partitions.DEFAULT
    out = io.StringIO()
    call_command("event_partitions", stdout=out)
    assert out.getvalue().splitlines()[-1].startswith(partitions.DEFAULT)
    assert partitions.partition_name(TODAY + timedelta(days=12)) in out.getvalue()


# --- archival ----------------------------------------------------------------------------


@pytest.fixture
def past_day(on_postgres, settings):
    """Tables T1 and T2 of a gaming day 3 days back, in that day's partition; a head
    signed over them."""
    settings.PROJECT_ON_APPEND = False
    day = TODAY - timedelta(days=3)
    _make_day(day)
    at = datetime(day.year, day.month, day.day, 20, 0, tzinfo=UTC)
    for table in ("T1", "T2"):
        events_append(
            stream=table,
            expected_version=0,
            events=[table_opened(table, at=at), *round_events(1, at=at)],
            now=at,
        )
    digests.digest_sign()
    return day


def _package(tmp_path, day, *tables: str):
    out = tmp_path / f"package-{'-'.join(tables) or 'all'}"
    call_command(
        "export_package",
        "--day",
        day.isoformat(),
        *[a for t in tables for a in ("--table", t)],
        "--out",
        str(out),
        "--force",
        stdout=io.StringIO(),
    )
    return out


def test_a_day_is_detached_only_with_a_verified_package_that_holds_it(past_day, tmp_path) -> None:
    """No package, one that is not a package, or one without a table of the day: refused,
    nothing detached. One that holds every event: detached, and it stays append-only."""
    name = partitions.partition_name(past_day)
    with pytest.raises(CommandError) as caught:
        call_command("event_partitions", "--detach", past_day.isoformat(), stdout=io.StringIO())
    assert caught.value.returncode == 2
    (tmp_path / "empty").mkdir()
    with pytest.raises(ArchiveRefused, match="not a regulator's package"):
        detach_day(past_day, tmp_path / "empty")
    with pytest.raises(
        ArchiveRefused, match="table T2 has versions 1 to 26 there; the package holds none of it"
    ):
        detach_day(past_day, _package(tmp_path, past_day, "T1"))
    with pytest.raises(ArchiveRefused, match="only a gaming day before today"):
        detach_day(TODAY, _package(tmp_path, past_day))
    assert name in {p.name for p in partitions.partitions(connection)}

    out = io.StringIO()
    call_command(
        "event_partitions",
        "--detach",
        past_day.isoformat(),
        "--package",
        str(_package(tmp_path, past_day)),
        stdout=out,
    )
    assert f"detached {name}: 52 events of 2 stream(s)" in out.getvalue()
    assert name not in {p.name for p in partitions.partitions(connection)}
    assert not Event.objects.filter(stream="T1").exists()
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"UPDATE {name} SET actor = 'forger'")
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"TRUNCATE {name}")
    # its keys stay: the ids and versions taken, the stream going on from its archived head
    with pytest.raises(VersionConflict):
        events_append(stream="T1", expected_version=0, events=[table_opened("T1")], now=NOW)
    [next_one] = events_append(
        stream="T1", expected_version=26, events=[table_opened("T1")], now=NOW
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT hash FROM {name} WHERE stream = 'T1' AND version = 26")
        assert next_one.prev_hash == cursor.fetchone()[0]
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {name}")


def test_a_package_of_another_signer_is_refused(past_day, tmp_path, settings) -> None:
    """A package that verifies under its own key, not this store's: refused."""
    package = _package(tmp_path, past_day)
    key = tmp_path / "other.pem"
    digests.write_new_key(key)
    settings.DIGEST_SIGNING_KEY = str(key)
    with pytest.raises(ArchiveRefused, match="does not trust"):
        detach_day(past_day, package)


def _detach(past_day, tmp_path) -> None:
    call_command(
        "event_partitions",
        "--detach",
        past_day.isoformat(),
        "--package",
        str(_package(tmp_path, past_day)),
        stdout=io.StringIO(),
    )


def test_after_a_detach_verify_passes_and_the_signed_heads_keep_their_roots(
    past_day, tmp_path
) -> None:
    """A day detached with its package: verify exits 0 - the tables' chains go on from
    their archived heads, and the signed heads (the one before the detach and one signed
    after it) check over the detached positions from their kept leaves, to the same roots;
    a later event's leaf index and inclusion proof still hold."""
    before = digests.latest_signed()
    assert before is not None
    _detach(past_day, tmp_path)
    assert not Event.objects.filter(stream__in=["T1", "T2"]).exists()
    events_append(stream="T1", expected_version=26, events=round_events(2), now=NOW)
    after, _ = digests.digest_sign()
    assert digests.head_problems(before, source="test") == []
    assert digests.head_problems(after, source="test") == []
    code, out, err = run_command("verify")
    assert (code, err) == (0, ""), out
    assert "all chains intact" in out
    last = Event.objects.filter(stream="T1").order_by("-version").first()
    assert last is not None
    assert digests.leaf_index(last) == after.size - 1  # the last leaf the new head covers
    assert chain_state(Event.objects.get(stream="T1", version=27), None) == (
        True,
        "intact",
    )  # linked to archived 26
    proof = digests.inclusion_proof_of([last], after)["proofs"][0]
    assert merkle.verify_inclusion(
        proof["index"],
        after.size,
        bytes.fromhex(proof["leaf"]),
        [bytes.fromhex(node) for node in proof["path"]],
        after.root,
    )


def test_the_detach_is_an_event_of_the_chain(past_day, tmp_path) -> None:
    """The detach is recorded in audit.store, in the detach's transaction: the day, the
    partition, the package's manifest hash and latest signed head, the events, their
    positions, each stream's versions and every stream's archived head; its leaves kept."""
    package = _package(tmp_path, past_day)
    name = partitions.partition_name(past_day)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT min(position), max(position), count(*) FROM {name}")
        first, last, count = cursor.fetchone()
        cursor.execute(f"SELECT hash FROM {name} WHERE stream = 'T2' AND version = 26")
        t2_head = cursor.fetchone()[0]
    call_command(
        "event_partitions",
        "--detach",
        past_day.isoformat(),
        "--package",
        str(package),
        stdout=io.StringIO(),
    )
    [event] = Event.objects.filter(stream=partitions.DETACH_STREAM)
    manifest = (package / "manifest.json").read_bytes()
    head = json.loads(manifest)["signed_heads"][-1]
    assert (event.type, event.version, event.actor) == (partitions.DETACHED, 1, "server:archive")
    assert event.payload == {
        "day": past_day.isoformat(),
        "partition": name,
        "package_sha256": hashlib.sha256(manifest).hexdigest(),
        "signed_head": {k: head[k] for k in ("size", "root", "timestamp", "key_id")},
        "events": count,
        "first_position": first,
        "last_position": last,
        "streams": {"T1": [1, 26], "T2": [1, 26]},
        "archived": {"T1": [26, stream_head("T1")[1]], "T2": [26, t2_head]},
    }
    assert verify_chains(stream=partitions.DETACH_STREAM).ok
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*), min(position), max(position), min(day) FROM {partitions.LEAVES}"
        )
        assert cursor.fetchone() == (count, first, last, past_day)
        cursor.execute(f"DROP TABLE {name}")


def test_a_stream_cut_short_without_a_recorded_detach_is_still_reported(past_day, tmp_path) -> None:
    """A partition detached behind the archival's back (plain ALTER TABLE, no package, no
    record): every stream that lost its first versions and goes on is bad_start, and the
    signed head no longer holds."""
    name = partitions.partition_name(past_day)
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE audit_event DETACH PARTITION {name}")
    events_append(stream="T1", expected_version=26, events=round_events(2), now=NOW)
    report = verify_chains()
    assert [(p.stream, p.version, p.kind) for p in report.problems] == [("T1", 27, "bad_start")]
    sth = digests.latest_signed()
    assert sth is not None
    assert "the record now holds only" in str(digests.head_problems(sth, source="test")[0])
    code, out, err = run_command("verify")
    assert (
        code == 1 and "T1: first bad event is version 27" in out + err and "bad_start" in out + err
    )


def test_a_later_gap_after_an_archived_head_is_reported(past_day, tmp_path) -> None:
    """Archived heads cover only what the detach took: T1's versions 27.. removed behind
    the triggers leave version 52 after archived 26, reported bad_start."""
    _detach(past_day, tmp_path)
    events_append(
        stream="T1", expected_version=26, events=[*round_events(2), *round_events(3)], now=NOW
    )
    tamper("DELETE FROM audit_event WHERE stream = 'T1' AND version BETWEEN 27 AND 51")
    problems = [(p.stream, p.version, p.kind) for p in verify_chains().problems]
    assert problems == [("T1", 52, "bad_start")]


def test_days_are_detached_oldest_first(past_day, tmp_path) -> None:
    """A day whose streams have earlier versions still attached (another day's partition)
    is refused, saying so: what stays attached of a stream is always a whole tail."""
    earlier = past_day - timedelta(days=1)
    _make_day(earlier)
    at = datetime(earlier.year, earlier.month, earlier.day, 20, 0, tzinfo=UTC)
    events_append(stream="T3", expected_version=0, events=[table_opened("T3", at=at)], now=at)
    at = datetime(past_day.year, past_day.month, past_day.day, 21, 0, tzinfo=UTC)
    events_append(stream="T3", expected_version=1, events=round_events(1, at=at), now=at)
    digests.digest_sign()
    with pytest.raises(
        ArchiveRefused, match="stream T3 has versions 2 to 26 there .* detach the days in order"
    ):
        detach_day(past_day, _package(tmp_path, past_day))
    assert partitions.partition_name(past_day) in {
        p.name for p in partitions.partitions(connection)
    }


def test_new_partitions_that_would_overlap_old_ones_are_refused_naming_them(
    on_postgres, settings
) -> None:
    """GAMING_DAY_CUTOFF_HOUR moved earlier after the partitions were made: the next day's
    partition would begin before the last one made ends. The command exits 2 naming both
    partitions and their bounds, the beat task fails with the same words, nothing is made."""
    settings.EVENT_PARTITIONS_AHEAD = 8
    last = partitions.partition_name(TODAY + timedelta(days=7))
    new = partitions.partition_name(TODAY + timedelta(days=8))
    attached = {p.name: p for p in partitions.partitions(connection)}
    assert last in attached and new not in attached
    settings.GAMING_DAY_CUTOFF_HOUR = (settings.GAMING_DAY_CUTOFF_HOUR - 2) % 24
    with pytest.raises(CommandError) as caught:
        call_command("event_partitions", "--create-ahead", "8", stdout=io.StringIO())
    assert caught.value.returncode == 2
    says = str(caught.value)
    high = attached[last].high
    assert high is not None
    assert f"partition {new} would span" in says and f"overlaps partition {last}" in says
    assert f"to {high.astimezone(UTC):%Y-%m-%d %H:%M} UTC" in says
    with pytest.raises(
        partitions.PartitionOverlap,
        match=f"partition {new} would span .* overlaps partition {last}",
    ):
        make_event_partitions_task.apply().get()
    assert new not in {p.name for p in partitions.partitions(connection)}


def test_an_archived_head_whose_key_was_changed_is_reported(past_day, tmp_path) -> None:
    """The key table's hash of an archived head and the one its detach recorded must agree:
    a key changed behind the triggers is a head_mismatch, and the chain is checked from the
    key's hash (so the next event no longer links)."""
    _detach(past_day, tmp_path)
    events_append(stream="T1", expected_version=26, events=round_events(2), now=NOW)
    assert verify_chains().ok
    tamper(
        f"UPDATE {partitions.KEY_TABLE} SET hash = repeat('0', 64) WHERE stream = 'T1' AND version = 26"
    )
    problems = [(p.stream, p.version, p.kind) for p in verify_chains().problems]
    assert problems == [("T1", 27, "broken_link"), ("T1", 26, "head_mismatch")]


def test_verify_of_a_stream_wholly_archived_names_its_package(past_day, tmp_path) -> None:
    """verify --stream of a table every event of which was detached: exit 0, saying up to
    which version it is archived, with which day and the package's manifest hash; its
    archived head changed in the key table: exit 1 naming the head_mismatch; a stream that
    never was: still exit 2."""
    package = _package(tmp_path, past_day)
    call_command(
        "event_partitions",
        "--detach",
        past_day.isoformat(),
        "--package",
        str(package),
        stdout=io.StringIO(),
    )
    manifest = hashlib.sha256((package / "manifest.json").read_bytes()).hexdigest()
    code, out, err = run_command("verify", "--stream", "T1")
    assert (code, err) == (0, ""), out
    assert "T1: no events attached - versions 1 to 26 are archived" in out
    assert (
        f"gaming day {past_day.isoformat()} (partition {partitions.partition_name(past_day)}, versions 1 to 26)"
        in out
    )
    assert manifest in out and "the archived head agrees with the key table" in out
    # the commands that need its events say where they went
    for command in (
        ("replay_day", "--stream", "T1"),
        ("rebuild_projections", "--stream", "T1"),
        ("export_events", "--stream", "T1", "--out", str(tmp_path / "t1.jsonl")),
    ):
        code, out, err = run_command(*command)
        assert code == 2, command
        assert (
            f"versions up to 26 were detached with gaming day {past_day.isoformat()}" in err
            and manifest in err
        )
    assert not (tmp_path / "t1.jsonl").exists()
    tamper(
        f"UPDATE {partitions.KEY_TABLE} SET hash = repeat('0', 64) WHERE stream = 'T1' AND version = 26"
    )
    code, out, err = run_command("verify", "--stream", "T1")
    assert (
        code == 1 and "head_mismatch" in out + err and "disagrees with the key table" in out + err
    )
    code, out, err = run_command("verify", "--stream", "T9")
    assert code == 2 and "no events in that stream" in err
