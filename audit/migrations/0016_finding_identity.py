"""Findings are matched across runs by an identity without their message (audit.findings.workflow):
each stored finding gets the identity its check would give it now. Alike findings are
ranked current ones first, then by age, so that a check's next run finds the row people
are handling. An integrity finding's identity is its fingerprint (its messages name no
amounts)."""

from collections import Counter
from types import SimpleNamespace

from django.db import migrations, models

BATCH = 1000


def fill(apps, schema_editor):
    from audit.findings.workflow import identity, key_of
    from audit.record.findings import kinds_of

    Finding = apps.get_model("audit", "Finding")
    integrity = kinds_of("integrity")
    rows = sorted(
        Finding.objects.only(
            "id",
            "fingerprint",
            "kind",
            "stream",
            "gaming_day",
            "round",
            "box",
            "hand",
            "bet",
            "shift",
            "slip",
            "expected",
            "recorded",
            "event_id",
            "superseded_by_id",
        ),
        key=lambda row: (row.superseded_by_id is not None, row.id),
    )
    ranks: Counter = Counter()
    for row in rows:
        if row.kind in integrity:
            row.identity = row.fingerprint
            continue
        key = key_of(
            SimpleNamespace(
                kind=row.kind,
                round=row.round,
                box=row.box,
                hand=row.hand,
                bet=row.bet,
                expected=row.expected,
                recorded=row.recorded,
                event=row.event_id,
                shift=row.shift,
                slip=row.slip,
            )
        )
        ranks[row.stream, row.gaming_day, key] += 1
        row.identity = identity(
            stream=row.stream,
            gaming_day=row.gaming_day,
            key=key,
            rank=ranks[row.stream, row.gaming_day, key],
        )
    Finding.objects.bulk_update(rows, ["identity"], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [("audit", "0015_event_opened_day_index")]
    operations = [
        migrations.AddField(
            model_name="finding", name="identity", field=models.CharField(max_length=64, null=True)
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="finding",
            name="identity",
            field=models.CharField(
                help_text="what a check's run matches: not the message", max_length=64, unique=True
            ),
        ),
    ]
