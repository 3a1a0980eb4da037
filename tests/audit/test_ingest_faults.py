"""An ingest that stops while writing: the database goes away, or the process dies.

A PostgreSQL restart cannot be done here without breaking every other test run sharing
the server, so the test stands in for it the way a restart looks to the ingest: every
backend connection of the test database but the test's own is ended with
``pg_terminate_backend`` while the ingest writes. The ingest must exit 3 with one line
saying what happened, ``verify`` must name the unfinished run, and the same command run
again must complete it with nothing lost and nothing stored twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from audit.integrity.chains import verify_chains
from audit.integrity.digests import digest_sign
from audit.models import Event, Finding, IngestRun
from audit.store.ingest import ingest_file, unfinished_ingests
from audit.store.streams import APPEND_LOCK_KEY
from audit.tasks import verify_chains_task
from tests.commands import run_command
from tests.samples import round_events, table_opened

ROOT = Path(__file__).resolve().parents[2]


def _device_file(path: Path, rounds: int, tables: int = 4) -> int:
    count = 0
    with path.open("w") as out:
        for t in range(tables):
            event = table_opened(f"T{t}")
            out.write(
                json.dumps(
                    {
                        "id": str(event.id),
                        "stream": f"T{t}",
                        "type": event.type,
                        "occurred_at": event.occurred_at.isoformat(),
                        "actor": event.actor,
                        "source": "device",
                        "payload": event.payload,
                    }
                )
                + "\n"
            )
            count += 1
        for r in range(rounds):
            for event in round_events(r // tables + 1, rng_seed=r):
                out.write(
                    json.dumps(
                        {
                            "id": str(event.id),
                            "stream": f"T{r % tables}",
                            "type": event.type,
                            "occurred_at": event.occurred_at.isoformat(),
                            "actor": event.actor,
                            "source": "device",
                            "payload": event.payload,
                        }
                    )
                    + "\n"
                )
                count += 1
    return count


def _manage(*args: str) -> subprocess.Popen:
    settings = connection.settings_dict
    url = (
        f"postgresql://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:"
        f"{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "PROJECT_ON_APPEND": "false",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _terminate_others() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        assert cursor.fetchone()[0] >= 1


def _copying() -> bool:
    """Whether a backend of the test database holds the append lock and is in a COPY:
    the ingest writes as it plans, in a transaction not committed yet."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.objid = %s AND l.granted "
            "AND a.datname = current_database() AND a.pid <> pg_backend_pid()",
            [APPEND_LOCK_KEY],
        )
        return cursor.fetchone()[0] > 0


def _ingest_cut_off(path, *, writing) -> tuple[str, str, str]:
    """``manage.py ingest`` of ``path``, its database connections ended once ``writing()``:
    its output, its errors and their last line, after it exited 3."""
    ingest = _manage("ingest", str(path), "--chunk", "100")
    deadline = time.monotonic() + 240
    while not writing():
        assert ingest.poll() is None, ingest.communicate()
        assert time.monotonic() < deadline, "the ingest never began writing"
        time.sleep(0.02)
    _terminate_others()
    out, err = ingest.communicate(timeout=120)
    assert ingest.returncode == 3, (out, err)
    return out, err, err.strip().splitlines()[-1]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_database_gone_while_writing_as_it_plans_stores_nothing_and_a_rerun_stores_all(
    on_postgres, tmp_path
):
    """A file over 4 MB is written as it is planned, in one transaction
    committed only when every line is checked: the database gone before that leaves
    nothing stored and no run to name (no stream is cut short); the rerun stores all."""
    path = tmp_path / "day.jsonl"
    total = _device_file(path, rounds=2400)
    out, err, last = _ingest_cut_off(path, writing=_copying)
    assert "the database went away during the ingest" in last and "nothing was stored" in last, err
    assert "Traceback" not in err
    assert Event.objects.count() == 0 and not IngestRun.objects.exists()
    assert unfinished_ingests() == []
    again = _manage("ingest", str(path))
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert f"{total:,} lines, {total:,} events stored, 0 already stored, 0 bad lines" in out
    assert Event.objects.count() == Event.objects.values("event_id").distinct().count() == total
    assert IngestRun.objects.get().finished_at is not None
    assert verify_chains().ok
    digest_sign()  # as the signer does after a commit: verify wants a head to check against
    assert run_command("verify")[0] == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_database_gone_mid_ingest_exits_3_and_a_rerun_completes_it(on_postgres, tmp_path):
    """A file with a bad line: what was written as it was planned is rolled back, and the
    good streams are written in chunks, each committed with the run's checkpoint. The
    database gone then: exit 3, ``verify`` names the run, and the rerun completes it."""
    path = tmp_path / "day.jsonl"
    total = _device_file(path, rounds=2400)
    with path.open("a") as out:  # a bad last line in T3: T3 is refused, the rest stored
        out.write(
            json.dumps(
                {
                    "id": "6b1c0fd5-6c4c-4bb3-a2a6-0b1fd4a3c1e9",
                    "stream": "T3",
                    "type": "no.such",
                    "occurred_at": "2026-01-01T00:00:00Z",
                    "actor": "user:x",
                    "source": "device",
                    "payload": {},
                }
            )
            + "\n"
        )
    t3 = sum(1 for line in path.read_text().splitlines() if json.loads(line)["stream"] == "T3")
    # the chunked write pass has begun once chunks are committing
    out, err, last = _ingest_cut_off(path, writing=Event.objects.exists)
    assert (
        "the database went away during the ingest" in last and "run the same ingest again" in last
    ), err
    assert "Traceback" not in err
    stored = Event.objects.count()
    assert 0 < stored < total + 1 - t3
    assert not Event.objects.filter(stream="T3").exists()
    assert len(unfinished_ingests()) == 1 and str(path) in unfinished_ingests()[0]
    code, _, verify_err = run_command("verify")
    assert code == 1 and "did not finish" in verify_err
    again = _manage("ingest", str(path))
    out, err = again.communicate(timeout=300)
    assert again.returncode == 1, err
    assert (
        f"{total + 1:,} lines, {total + 1 - t3 - stored:,} events stored, {stored:,} already stored, 1 bad lines"
        in err
    )
    assert Event.objects.count() == total + 1 - t3
    assert Event.objects.values("event_id").distinct().count() == total + 1 - t3
    assert unfinished_ingests() == []
    assert verify_chains().ok
    digest_sign()
    assert run_command("verify")[0] == 0


@pytest.mark.django_db(transaction=True)
def test_an_ingest_killed_while_writing_is_named_by_verify_until_run_again(tmp_path, monkeypatch):
    """The checkpoint commits with each chunk: a write pass that dies after two chunks
    leaves a run that says so (stored events and the last line), on any database."""
    from audit.store.ingest import write

    path = tmp_path / "day.jsonl"
    total = _device_file(path, rounds=12)
    chunks = []
    real = write._write_chunk

    def dies_on_the_third(records, report, run):
        if len(chunks) == 2:
            raise KeyboardInterrupt  # as a kill would stop it: between two chunks' commits
        chunks.append(len(records))
        real(records, report, run)

    monkeypatch.setattr(write, "_write_chunk", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        ingest_file(str(path), chunk=50)
    run = IngestRun.objects.get()
    assert run.finished_at is None and run.stored == Event.objects.count() == 100
    assert run.line == 100 and run.file == str(path)
    [line] = unfinished_ingests()
    assert "100 events stored, to line 100" in line and "did not finish" in line
    # the periodic verification names it too, as a finding of its own
    digest_sign()
    assert verify_chains_task.apply().get()["problems"] == [line]
    assert Finding.objects.get(kind="ingest_unfinished", superseded_by__isnull=True).message == line
    monkeypatch.setattr(write, "_write_chunk", real)
    report = ingest_file(str(path))
    assert report.ok and report.already_stored == 100 and report.stored == total - 100
    assert (
        unfinished_ingests() == []
        and Event.objects.exclude(stream__startswith="audit.").count() == total
    )
    digest_sign()
    assert verify_chains_task.apply().get()["problems"] == []
    assert not Finding.objects.filter(kind="ingest_unfinished", superseded_by__isnull=True).exists()
