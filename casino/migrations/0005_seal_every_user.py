"""Every user's authority sealed as it stands when the seals come in (audit.access.authority_seal):
from then on a change made past the application shows. After every migration that makes
or fills a group, so that the seals hold the groups' permissions as migrated; a later
migration that changes a group's permissions re-seals its members
(``audit.access.authority_seal.reseal_group_members``)."""

from django.db import migrations


def seal(apps, schema_editor):
    from audit.access.authority_seal import seal_every_user

    seal_every_user(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = (
        ("casino", "0004_slip_books_read"),
        ("audit", "0026_authority_seals"),
        ("tables", "0007_pit_boss_corrections"),
        ("ledger", "0009_count_team_and_cage"),
    )
    operations = (migrations.RunPython(seal, migrations.RunPython.noop),)
