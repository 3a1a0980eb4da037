"""Make the event table append-only in the database itself (see audit.store.immutability)."""

from django.db import migrations

from audit.store import immutability


def install(apps, schema_editor):
    for sql in immutability.statements(immutability.INSTALL, schema_editor.connection.vendor):
        schema_editor.execute(sql, params=None)


def remove(apps, schema_editor):
    for sql in immutability.statements(immutability.REMOVE, schema_editor.connection.vendor):
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]
    operations = [migrations.RunPython(install, remove)]
