"""The ``accounting`` group: reads the ledger (its read models, reports and the events
behind them), signs table-days off and reopens them, puts tables in pits, and handles
findings (the ledger's among them). See docs/accounting.md."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "accounting"
PERMISSIONS = [
    ("ledger", "view_ledgertable"),
    ("ledger", "change_ledgertable"),  # its pit
    ("ledger", "view_reconciliation"),
    ("ledger", "view_slip"),
    ("ledger", "view_inventoryslip"),
    ("ledger", "view_dropbox"),
    ("ledger", "view_marker"),
    ("ledger", "view_signoff"),
    ("ledger", "sign_off"),
    ("audit", "view_event"),
    ("audit", "view_finding"),
    ("audit", "change_finding"),
]


def create_group(apps, schema_editor):
    # permissions are made after migrate (post_migrate); make them now for these apps
    for label in ("ledger", "audit"):
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
        ("ledger", "0001_initial"),
        ("audit", "0010_finding_shift_slip"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(create_group, remove_group)]
