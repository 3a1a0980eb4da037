"""An ingest's run and its steps are append-only: what ``verify`` reads from them (an
ingest that stopped, so a stream that may be cut short) cannot be changed to look
finished, nor removed, by the application - the database refuses an UPDATE of either
table from anyone, and the application's role holds no UPDATE or DELETE on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.db import DatabaseError, connection, transaction

from audit.models import IngestRun, IngestStep
from audit.store.ingest import ingest_file, unfinished_ingests, write
from tests.audit.test_api import event
from tests.audit.test_roles import granted_role

STATEMENTS = {
    "a run's file changed": "UPDATE audit_ingestrun SET file = '/elsewhere.jsonl'",
    "a step marked finished": "UPDATE audit_ingeststep SET finished = %s",
}


@pytest.fixture
def stopped(db, tmp_path: Path, monkeypatch) -> Path:
    """An ingest of 3 lines, one chunk each, killed after its first chunk."""
    path = tmp_path / "three.jsonl"
    path.write_text("".join(json.dumps({**event(), "stream": f"T{n}"}) + "\n" for n in range(3)))
    real = write._write_chunk
    chunks = []

    def dies_on_the_second(records, report, run):
        chunks.append(records)
        if len(chunks) == 2:
            raise KeyboardInterrupt
        real(records, report, run)

    monkeypatch.setattr(write, "_write_chunk", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        ingest_file(str(path), chunk=1, processes=1, overlap=False)
    monkeypatch.setattr(write, "_write_chunk", real)
    [line] = unfinished_ingests()
    assert "1 events stored, to line 1" in line
    return path


@pytest.mark.parametrize("attack", sorted(STATEMENTS))
def test_nobody_changes_a_run_or_a_step(stopped: Path, attack: str) -> None:
    before = list(IngestStep.objects.values_list("run__file", "stored", "line", "finished"))
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(STATEMENTS[attack], [True] if "%s" in STATEMENTS[attack] else [])
    assert list(IngestStep.objects.values_list("run__file", "stored", "line", "finished")) == before
    assert len(unfinished_ingests()) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_ingestrun SET principal = 'ingest:nobody'",
        "UPDATE audit_ingeststep SET finished = true",
        "DELETE FROM audit_ingeststep",
        "DELETE FROM audit_ingestrun",
        "TRUNCATE audit_ingeststep",
    ],
)
def test_the_application_role_cannot_hide_a_stopped_ingest(
    on_postgres, stopped: Path, statement: str
) -> None:
    with (
        granted_role("test_app_ingest") as role,
        pytest.raises(DatabaseError) as caught,
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"SET LOCAL ROLE {role}")
        cursor.execute(statement)
    assert any(word in str(caught.value) for word in ("append-only", "permission denied")), (
        caught.value
    )
    assert len(unfinished_ingests()) == 1 and IngestRun.objects.get().stored == 1


def test_the_same_file_ingested_again_finishes_the_stopped_run(stopped: Path) -> None:
    """Its finishing step is a row of its own; the stopped run's steps stay as written."""
    first = list(IngestStep.objects.values_list("pk", "stored", "line", "finished"))
    report = ingest_file(str(stopped))
    assert report.ok and report.already_stored == 1 and report.stored == 2
    assert unfinished_ingests() == []
    assert (
        list(
            IngestStep.objects.filter(pk__in=[pk for pk, *_ in first]).values_list(
                "pk", "stored", "line", "finished"
            )
        )
        == first
    )
    assert [run.finished_at is not None for run in IngestRun.objects.order_by("pk")] == [True, True]
