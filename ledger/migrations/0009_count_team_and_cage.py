"""Who records what happens away from the table (audit.record.events.OFF_TABLE), each a
group of its own so that no one both counts a drop and posts it: the ``count_team``
records the count room's counts of the drop boxes (``audit.record_count``), the ``cage``
its cashiers' steps - a fill issued, a credit received, a marker redeemed
(``audit.record_cage``) - and ``accounting`` posts a counted drop to the books
(``audit.post_drop``). No table device records any of them (docs/security.md, "Who may
do what")."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUPS = {
    "count_team": [("audit", "record_count")],
    "cage": [("audit", "record_cage")],
    "accounting": [("audit", "post_drop")],
}
NEW_GROUPS = ("count_team", "cage")


def grant(apps, schema_editor):
    config = apps.get_app_config("audit")
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
    Group.objects.filter(name__in=NEW_GROUPS).delete()
    group = Group.objects.filter(name="accounting").first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="audit", codename="post_drop")
        )


class Migration(migrations.Migration):
    dependencies = [("ledger", "0008_fx_rates"), ("audit", "0025_off_table_permissions")]
    operations = [migrations.RunPython(grant, revoke)]
