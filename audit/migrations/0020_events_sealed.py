"""The database refuses an event row without the store's seal and principal
(audit.store.seals.GUARD): a CHECK constraint on PostgreSQL, NOT VALID so that rows stored
before seals existed stay (verify names each of them as unsealed), and inherited by every
partition; a trigger on SQLite."""

from django.db import migrations

from audit.store import seals


def install(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for sql in seals.GUARD_INSTALL[schema_editor.connection.vendor]:
            cursor.execute(sql)


def remove(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for sql in seals.GUARD_REMOVE[schema_editor.connection.vendor]:
            cursor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("audit", "0019_event_ids_in_the_key_table")]
    operations = [migrations.RunPython(install, remove)]
