"""The regulator's package requests (casino.models.PackageRequest): the regulator asks
over REST, compliance from the admin; both see the list. Who may: docs/security.md."""

from django.contrib.auth.management import create_permissions
from django.db import migrations, models

GROUPS = {
    "regulator": [("casino", "view_packagerequest"), ("casino", "add_packagerequest")],
    "compliance": [("casino", "view_packagerequest"), ("casino", "add_packagerequest")],
}


def grant(apps, schema_editor):
    config = apps.get_app_config("casino")
    config.models_module = True
    create_permissions(config, apps=apps, verbosity=0)
    config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, permissions in GROUPS.items():
        group, _ = Group.objects.get_or_create(name=name)
        for app_label, codename in permissions:
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )


def revoke(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    Permission.objects.filter(
        content_type__app_label="casino", codename__endswith="_packagerequest"
    ).delete()


class Migration(migrations.Migration):
    dependencies = (("casino", "0001_compliance_and_regulator_groups"),)
    operations = (
        migrations.CreateModel(
            name="PackageRequest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("requested_by", models.CharField(help_text="user:NAME", max_length=160)),
                ("requested_at", models.DateTimeField(db_index=True)),
                (
                    "via",
                    models.CharField(
                        choices=[("api", "REST API"), ("admin", "admin")], max_length=8
                    ),
                ),
                ("day_from", models.DateField(verbose_name="first gaming day")),
                ("day_to", models.DateField(verbose_name="last gaming day")),
                (
                    "tables",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="the tables' codes; empty: every table open",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "queued"),
                            ("building", "building"),
                            ("ready", "ready"),
                            ("failed", "failed"),
                        ],
                        db_index=True,
                        default="queued",
                        max_length=10,
                    ),
                ),
                ("message", models.TextField(blank=True, help_text="why it failed")),
                (
                    "file",
                    models.CharField(
                        blank=True, help_text="the zip's name in PACKAGE_DIR", max_length=300
                    ),
                ),
                ("sha256", models.CharField(blank=True, max_length=64)),
                ("size", models.BigIntegerField(blank=True, help_text="bytes", null=True)),
                ("events", models.BigIntegerField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "keep_until",
                    models.DateField(help_text="kept EVENT_RETENTION_YEARS from the request"),
                ),
            ],
            options={"ordering": ["-id"], "verbose_name": "package request"},
        ),
        migrations.RunPython(grant, revoke),
    )
