"""PostgreSQL: the event table partitioned by gaming day (audit.store.partitions). Rows are
moved in position order and keep their positions; the position sequence continues. The
model's state is unchanged: on PostgreSQL its unique constraints now live in the key table
``audit_event_key`` and its primary key is (position, recorded_at). SQLite keeps its
plain table."""

from django.conf import settings
from django.db import migrations

from audit.store import partitions


def convert(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        partitions.convert(
            cursor,
            tz=settings.TIME_ZONE,
            cutoff=settings.GAMING_DAY_CUTOFF_HOUR,
            ahead=settings.EVENT_PARTITIONS_AHEAD,
        )
    partitions.forget(schema_editor.connection)


def unconvert(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        partitions.unconvert(cursor)
    partitions.forget(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("audit", "0016_finding_identity")]
    operations = [migrations.RunPython(convert, unconvert)]
