"""People's authority seals (audit.access.authority_seal): a row per change of a person's
authority, never changed (the database refuses an UPDATE: audit.store.immutability; the
application's role holds no UPDATE or DELETE: audit.store.roles). The users there are sealed
by casino 0005, after every migration that makes a group."""

from django.db import migrations, models


def install(apps, schema_editor):
    from audit.store import immutability

    for sql in immutability.statements(
        immutability.AUTHORITY_INSTALL, schema_editor.connection.vendor
    ):
        schema_editor.execute(sql)


def remove(apps, schema_editor):
    from audit.store import immutability

    for sql in immutability.statements(
        immutability.AUTHORITY_REMOVE, schema_editor.connection.vendor
    ):
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0025_off_table_permissions"),
    ]

    operations = [
        migrations.CreateModel(
            name="AuthoritySeal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("user_id", models.BigIntegerField()),
                ("generation", models.BigIntegerField()),
                ("authority", models.TextField(help_text="canonical JSON of what was sealed")),
                ("seal", models.CharField(max_length=64)),
                ("sealed_at", models.DateTimeField()),
                (
                    "reason",
                    models.CharField(
                        help_text="what the application changed, or who re-sealed", max_length=120
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user_id", "generation"), name="audit_authorityseal_once"
                    )
                ],
            },
        ),
        migrations.RunPython(install, remove),
    ]
