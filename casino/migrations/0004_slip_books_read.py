"""Compliance and the regulator read the slip books (``ledger.SlipBook``) as they read
the rest of the books."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUPS = {"compliance": [("ledger", "view_slipbook")], "regulator": [("ledger", "view_slipbook")]}


def grant(apps, schema_editor):
    config = apps.get_app_config("ledger")
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
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, permissions in GROUPS.items():
        group = Group.objects.filter(name=name).first()
        if group is not None:
            for app_label, codename in permissions:
                group.permissions.remove(
                    *Permission.objects.filter(content_type__app_label=app_label, codename=codename)
                )


class Migration(migrations.Migration):
    dependencies = (("casino", "0003_compliance_api_tokens"), ("ledger", "0006_slip_books"))
    operations = (migrations.RunPython(grant, revoke),)
