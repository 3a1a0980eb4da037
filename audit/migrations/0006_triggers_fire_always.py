"""The append-only triggers fire ALWAYS on PostgreSQL: ``session_replication_role =
replica`` no longer switches them off (see audit.store.immutability)."""

from django.db import migrations

from audit.store import immutability


def always(apps, schema_editor):
    for sql in immutability.statements(immutability.ALWAYS, schema_editor.connection.vendor):
        schema_editor.execute(sql, params=None)


def origin(apps, schema_editor):
    for sql in immutability.statements(immutability.ORIGIN, schema_editor.connection.vendor):
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0005_subscriberposition")]
    operations = [migrations.RunPython(always, origin)]
