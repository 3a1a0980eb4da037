"""The groups the data migrations make, made again as they make them: an earlier
transactional test's flush removes the migrations' rows (the permissions come back with
post_migrate), so a test that needs a group builds it from the migration's own list."""

from __future__ import annotations

import importlib

from django.contrib.auth.models import Group, Permission

# every data migration that declares a group or adds to one, in migration order
GROUP_MIGRATIONS = (
    "tables.migrations.0002_pit_boss_group",
    "tables.migrations.0003_alert",
    "tables.migrations.0007_pit_boss_corrections",
    "ledger.migrations.0002_accounting_group",
    "casino.migrations.0001_compliance_and_regulator_groups",
    "casino.migrations.0002_packagerequest",
    "casino.migrations.0003_compliance_api_tokens",
    "ledger.migrations.0006_slip_books",
    "casino.migrations.0004_slip_books_read",
    "ledger.migrations.0009_count_team_and_cage",
)


def declared_groups() -> dict[str, list[tuple[str, str]]]:
    """Each group's permissions, as (app label, codename), from the migrations."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for name in GROUP_MIGRATIONS:
        module = importlib.import_module(name)
        declared = getattr(module, "GROUPS", None) or {module.GROUP: module.PERMISSIONS}
        for group, permissions in declared.items():
            groups.setdefault(group, []).extend(permissions)
    return groups


def group_named(name: str) -> Group:
    group, _ = Group.objects.get_or_create(name=name)
    for app_label, codename in declared_groups()[name]:
        group.permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return group
