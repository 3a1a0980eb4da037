"""The ``pit_boss`` group records what changes money after the fact: a round's correction
or void (``audit.correct_round``), a fill or credit slip's void (``audit.void_slip``) -
the catalogue's money-changing types (audit.record.events.AUTHORITY), which no table
device may record (docs/security.md, "Who may do what")."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "pit_boss"
PERMISSIONS = [("audit", "correct_round"), ("audit", "void_slip")]


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
    dependencies = [
        ("tables", "0006_hand_and_bet_round_without_database_key"),
        ("audit", "0022_event_authority"),
    ]
    operations = [migrations.RunPython(grant, revoke)]
