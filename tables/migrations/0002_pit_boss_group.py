"""The ``pit_boss`` group: reviews rounds (the read models and their events) and handles
replay's findings. Other staff may be given the view permissions; only this group
changes findings (see docs/back-office.md)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "pit_boss"
PERMISSIONS = [
    ("tables", "view_table"),
    ("tables", "view_tableday"),
    ("tables", "view_shoe"),
    ("tables", "view_round"),
    ("tables", "view_hand"),
    ("tables", "view_bet"),
    ("audit", "view_event"),
    ("audit", "view_replayrun"),
    ("audit", "view_finding"),
    ("audit", "change_finding"),
]


def create_group(apps, schema_editor):
    # permissions are made after migrate (post_migrate); make them now for these apps
    for label in ("tables", "audit"):
        config = apps.get_app_config(label)
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


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0001_initial"),
        ("audit", "0003_replayrun_finding"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(create_group, remove_group)]
