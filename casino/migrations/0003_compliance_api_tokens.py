"""``compliance`` sees the API tokens (who holds one, for which table, until when, last
used) and revokes them - a lost terminal, a person gone. Issuing a token stays with a
superuser: who reviews the credentials does not also mint them (docs/security.md)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "compliance"
PERMISSIONS = (("audit", "view_apitoken"), ("audit", "change_apitoken"))


def grant(apps, schema_editor):
    config = apps.get_app_config("audit")
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
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=GROUP).first()
    if group is not None:
        for app_label, codename in PERMISSIONS:
            group.permissions.remove(
                *Permission.objects.filter(content_type__app_label=app_label, codename=codename)
            )


class Migration(migrations.Migration):
    dependencies = (("casino", "0002_packagerequest"), ("audit", "0013_apitoken_last_used"))
    operations = (migrations.RunPython(grant, revoke),)
