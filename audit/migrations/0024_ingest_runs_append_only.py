"""An ingest's run is append-only: how far it got moves to steps of its own (one a
committed chunk, one at its end), the run's row is never changed again, and the database
refuses an UPDATE of either (audit.store.immutability; the application's role holds no UPDATE
or DELETE on them: audit.store.roles)."""

from django.db import migrations, models


def steps_from_runs(apps, schema_editor):
    """Each run's progress and end, as they were, as its steps."""
    IngestRun = apps.get_model("audit", "IngestRun")
    IngestStep = apps.get_model("audit", "IngestStep")
    for run in IngestRun.objects.order_by("pk"):
        if run.stored or run.line or run.finished_at is None:
            IngestStep.objects.create(
                run=run, stored=run.stored, line=run.line, finished=False, at=run.started_at
            )
        if run.finished_at is not None:
            IngestStep.objects.create(
                run=run, stored=run.stored, line=run.line, finished=True, at=run.finished_at
            )


def runs_from_steps(apps, schema_editor):
    IngestRun = apps.get_model("audit", "IngestRun")
    for run in IngestRun.objects.order_by("pk"):
        last = run.steps.order_by("-pk").first()
        if last is not None:
            IngestRun.objects.filter(pk=run.pk).update(
                stored=last.stored, line=last.line, finished_at=last.at if last.finished else None
            )


def install(apps, schema_editor):
    from audit.store import immutability

    for sql in immutability.statements(
        immutability.INGEST_INSTALL, schema_editor.connection.vendor
    ):
        schema_editor.execute(sql)


def remove(apps, schema_editor):
    from audit.store import immutability

    for sql in immutability.statements(immutability.INGEST_REMOVE, schema_editor.connection.vendor):
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0023_stream_failure"),
    ]

    operations = [
        migrations.CreateModel(
            name="IngestStep",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("stored", models.BigIntegerField()),
                ("line", models.BigIntegerField(help_text="the last line stored")),
                ("finished", models.BooleanField(default=False)),
                ("at", models.DateTimeField()),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=models.deletion.PROTECT,
                        related_name="steps",
                        to="audit.ingestrun",
                    ),
                ),
            ],
        ),
        migrations.RunPython(steps_from_runs, runs_from_steps),
        migrations.RemoveIndex(model_name="ingestrun", name="audit_ingestrun_open"),
        migrations.RemoveField(model_name="ingestrun", name="finished_at"),
        migrations.RemoveField(model_name="ingestrun", name="line"),
        migrations.RemoveField(model_name="ingestrun", name="stored"),
        migrations.RunPython(install, remove),
    ]
