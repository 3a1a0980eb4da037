"""The Merkle leaf commits to the event's seal (leaf format 2, audit.record.merkle): the
tree kept for signing is dropped so that the subscriber ``audit.merkle`` folds the record
again in the new format (its next run, or the next ``manage.py digest``); heads signed
before stay in the record and ``verify`` still checks them in their own format. On
partitioned PostgreSQL the detached days' leaves keep the seal too (rows detached before
have none: their leaves say so, as the events' rows said)."""
from django.db import migrations

from audit import partitions


def forward(apps, schema_editor):
    apps.get_model("audit", "MerkleBlock").objects.all().delete()
    apps.get_model("audit", "MerkleState").objects.all().delete()
    apps.get_model("audit", "SubscriberPosition").objects.filter(name="audit.merkle").update(position=0)
    connection = schema_editor.connection
    if partitions.is_partitioned(connection):
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE IF EXISTS {partitions.LEAVES} ADD COLUMN IF NOT EXISTS seal varchar(64)")
        partitions.forget(connection)


def backward(apps, schema_editor):
    apps.get_model("audit", "MerkleBlock").objects.all().delete()
    apps.get_model("audit", "MerkleState").objects.all().delete()
    apps.get_model("audit", "SubscriberPosition").objects.filter(name="audit.merkle").update(position=0)
    connection = schema_editor.connection
    if partitions.is_partitioned(connection):
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE IF EXISTS {partitions.LEAVES} DROP COLUMN IF EXISTS seal")
        partitions.forget(connection)


class Migration(migrations.Migration):
    dependencies = [("audit", "0020_events_sealed")]
    operations = [migrations.RunPython(forward, backward)]
