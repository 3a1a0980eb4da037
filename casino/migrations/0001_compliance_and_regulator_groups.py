"""The ``compliance`` and ``regulator`` groups, beside ``pit_boss`` (tables) and
``accounting`` (ledger); docs/security.md has the table of who may do what.

- **compliance** proves the record complete and untouched: reads every screen of the
  record, the rounds and the books, works findings (acknowledge, resolve, reopen),
  searches the access log and the admin's login attempts, sees the device accounts. It
  appends nothing, signs nothing off and changes no alert.
- **regulator** reads: the record, rounds, findings, the books and reports, the access
  log. It changes nothing at all.

They live in the project (casino) because they span the apps below it."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

READS_OF_THE_RECORD = [
    ("audit", "view_event"),
    ("audit", "view_replayrun"),
    ("audit", "view_finding"),
    ("audit", "view_accessrecord"),
    ("tables", "view_table"),
    ("tables", "view_tableday"),
    ("tables", "view_shoe"),
    ("tables", "view_round"),
    ("tables", "view_hand"),
    ("tables", "view_bet"),
    ("ledger", "view_ledgertable"),
    ("ledger", "view_reconciliation"),
    ("ledger", "view_slip"),
    ("ledger", "view_inventoryslip"),
    ("ledger", "view_dropbox"),
    ("ledger", "view_marker"),
    ("ledger", "view_signoff"),
]
GROUPS = {
    "compliance": READS_OF_THE_RECORD
    + [
        ("audit", "change_finding"),
        ("audit", "view_deviceaccount"),
        ("tables", "view_alert"),
        ("axes", "view_accessattempt"),
        ("axes", "view_accessfailurelog"),
        ("axes", "view_accesslog"),
    ],
    "regulator": READS_OF_THE_RECORD,
}


def create_groups(apps, schema_editor):
    # permissions are made after migrate (post_migrate); make them now for these apps
    for label in ("audit", "tables", "ledger", "axes"):
        config = apps.get_app_config(label)
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


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = (
        ("audit", "0012_hash_legacy_tokens"),
        ("tables", "0003_alert"),
        ("ledger", "0002_accounting_group"),
        ("axes", "0010_accessattemptexpiration"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    )
    operations = (migrations.RunPython(create_groups, remove_groups),)
