"""Slip books (``SlipBook``): the books of fill and credit slips accounting records as
issued, for the slip sequence report. ``accounting`` may see and record them (compliance
and the regulator see them: casino 0004)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations, models

GROUP = "accounting"
PERMISSIONS = [("ledger", "view_slipbook"), ("ledger", "add_slipbook")]


def grant(apps, schema_editor):
    config = apps.get_app_config("ledger")
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


def revoke(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    group = Group.objects.filter(name=GROUP).first()
    if group is not None:
        for app_label, codename in PERMISSIONS:
            group.permissions.remove(
                *Permission.objects.filter(content_type__app_label=app_label, codename=codename)
            )


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0005_day_state_and_adjustments"),
        ("ledger", "0002_accounting_group"),
    ]

    operations = [
        migrations.CreateModel(
            name="SlipBook",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("fill", "Fill"), ("credit", "Credit")], max_length=8
                    ),
                ),
                ("prefix", models.CharField(blank=True, max_length=64)),
                ("first", models.PositiveBigIntegerField()),
                ("last", models.PositiveBigIntegerField()),
                (
                    "width",
                    models.PositiveSmallIntegerField(
                        help_text="digits of each number, zeros in front"
                    ),
                ),
                ("first_number", models.CharField(max_length=64)),
                ("last_number", models.CharField(max_length=64)),
                ("issued_by", models.CharField(max_length=150)),
                ("issued_at", models.DateTimeField()),
                ("note", models.TextField(blank=True)),
                (
                    "event_version",
                    models.PositiveBigIntegerField(help_text="its event in audit.ledger"),
                ),
            ],
            options={
                "verbose_name": "slip book",
                "ordering": ["kind", "prefix", "first"],
            },
        ),
        migrations.RunPython(grant, revoke),
    ]
