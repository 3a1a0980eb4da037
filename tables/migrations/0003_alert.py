"""The floor's alerts (tables.floor), and the ``pit_boss`` group's right to see and
acknowledge them."""

import django.db.models.deletion
from django.contrib.auth.management import create_permissions
from django.db import migrations, models

GROUP = "pit_boss"
PERMISSIONS = [("tables", "view_alert"), ("tables", "change_alert")]


def grant(apps, schema_editor):
    config = apps.get_app_config("tables")
    config.models_module = True
    create_permissions(config, apps=apps, verbosity=0)
    config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    for app_label, codename in PERMISSIONS:
        group.permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0007_access_log"),
        ("tables", "0002_pit_boss_group"),
    ]

    operations = [
        migrations.CreateModel(
            name="Alert",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=200, unique=True)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("finding", "finding"),
                            ("silent_table", "table silent"),
                            ("verify_failed", "verification failed"),
                        ],
                        max_length=16,
                    ),
                ),
                ("severity", models.CharField(help_text="critical, high or medium", max_length=8)),
                (
                    "stream",
                    models.CharField(
                        blank=True,
                        help_text="blank: the whole store",
                        max_length=64,
                        verbose_name="table",
                    ),
                ),
                ("gaming_day", models.DateField(blank=True, null=True)),
                ("message", models.TextField()),
                ("raised_at", models.DateTimeField(db_index=True)),
                ("acknowledged_by", models.CharField(blank=True, max_length=150)),
                ("acknowledged_at", models.DateTimeField(blank=True, null=True)),
                ("note", models.TextField(blank=True)),
                ("event_version", models.PositiveBigIntegerField(blank=True, null=True)),
                (
                    "finding",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="alerts",
                        to="audit.finding",
                    ),
                ),
            ],
            options={
                "ordering": ["-raised_at", "-id"],
            },
        ),
        migrations.RunPython(grant, migrations.RunPython.noop),
    ]
