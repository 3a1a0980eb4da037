"""PostgreSQL: the partitions' own index of event ids dropped. The key table's primary
key (``audit_event_key``) is the record's one index of ids, and reads by id go through it
(``audit.store.event_ids.with_ids``): a second index of random UUIDs on every event made the
bulk write slower as each day's partition grew. SQLite's plain table keeps its unique
index of ids."""

from django.db import migrations

from audit.store import partitions

INDEX = f"{partitions.TABLE}_event_id"


def drop(apps, schema_editor):
    if not partitions.is_partitioned(schema_editor.connection):
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {INDEX}")


def make(apps, schema_editor):
    if not partitions.is_partitioned(schema_editor.connection):
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"CREATE INDEX IF NOT EXISTS {INDEX} ON {partitions.TABLE} (event_id)")


class Migration(migrations.Migration):
    dependencies = [("audit", "0018_detached_leaves")]
    operations = [migrations.RunPython(drop, make)]
