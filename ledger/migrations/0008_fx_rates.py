"""Exchange rates (``FxRate``, ledger.fx) and the conversions kept on each period.
``accounting`` may see and set rates (``add_fxrate``)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations, models

GROUP = "accounting"
PERMISSIONS = [("ledger", "view_fxrate"), ("ledger", "add_fxrate")]


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
        ("ledger", "0007_initial_stakes"),
    ]

    operations = [
        migrations.AddField(
            model_name="reconciliation",
            name="conversions",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="amounts recorded in a foreign currency, booked at the day's rate: both kept",
            ),
        ),
        migrations.CreateModel(
            name="FxRate",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("gaming_day", models.DateField()),
                ("currency", models.CharField(max_length=3)),
                ("house", models.CharField(max_length=3)),
                ("numerator", models.PositiveBigIntegerField()),
                ("denominator", models.PositiveBigIntegerField()),
                ("set_by", models.CharField(max_length=150)),
                ("set_at", models.DateTimeField()),
                ("note", models.TextField(blank=True)),
                (
                    "event_version",
                    models.PositiveBigIntegerField(help_text="its event in audit.ledger"),
                ),
            ],
            options={
                "verbose_name": "exchange rate",
                "ordering": ["gaming_day", "currency", "house"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("gaming_day", "currency", "house"), name="ledger_fxrate_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(grant, revoke),
    ]
