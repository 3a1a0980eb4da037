"""PostgreSQL: the table ``audit_event_detached`` of the Merkle leaves (position, stream,
version, hash) of detached days' events, which the owner's archival fills when it detaches
a day (casino.archive), so that the signed heads still check over the detached positions.
Append-only like the key table; the application role may only read it. SQLite, which
keeps one plain table and never detaches, gets nothing."""

from django.db import migrations

from audit.store import partitions


def make(apps, schema_editor):
    if not partitions.is_partitioned(schema_editor.connection):
        return
    with schema_editor.connection.cursor() as cursor:
        partitions.make_leaves(cursor)
    partitions.forget(schema_editor.connection)


def unmake(apps, schema_editor):
    if not partitions.is_partitioned(schema_editor.connection):
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"SELECT EXISTS (SELECT FROM {partitions.LEAVES})")
        if cursor.fetchone()[0]:  # the only proof left of detached days' places in the tree
            raise RuntimeError(f"{partitions.LEAVES} holds detached days' leaves: not dropped")
        cursor.execute(f"DROP TABLE {partitions.LEAVES}")
    partitions.forget(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("audit", "0017_event_partitions")]
    operations = [migrations.RunPython(make, unmake)]
