"""The Merkle leaf commits to the event's seal (leaf format 2, audit.record.merkle): the
tree kept for signing is dropped so that the subscriber ``audit.merkle`` folds the record
again in the new format (its next run, or the next ``manage.py digest``); heads signed
before stay in the record and ``verify`` still checks them in their own format. On
partitioned PostgreSQL the detached days' leaves keep the seal too (rows detached before
have none: their leaves say so, as the events' rows said). Both ways the tree is folded
again, in the format of the code then."""

from django.db import migrations

from audit.store import partitions


def _refold(apps, schema_editor, leaves_sql: str) -> None:
    apps.get_model("audit", "MerkleBlock").objects.all().delete()
    apps.get_model("audit", "MerkleState").objects.all().delete()
    apps.get_model("audit", "SubscriberPosition").objects.filter(name="audit.merkle").update(
        position=0
    )
    connection = schema_editor.connection
    if partitions.is_partitioned(connection):
        with connection.cursor() as cursor:
            cursor.execute(leaves_sql)
        partitions.forget(connection)


def forward(apps, schema_editor):
    _refold(
        apps,
        schema_editor,
        f"ALTER TABLE IF EXISTS {partitions.LEAVES} ADD COLUMN IF NOT EXISTS seal varchar(64)",
    )


def backward(apps, schema_editor):
    _refold(
        apps, schema_editor, f"ALTER TABLE IF EXISTS {partitions.LEAVES} DROP COLUMN IF EXISTS seal"
    )


class Migration(migrations.Migration):
    dependencies = [("audit", "0020_events_sealed")]
    operations = [migrations.RunPython(forward, backward)]
