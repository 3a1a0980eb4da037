"""A day's state ``replay_pending``: nothing missing, the replayed win not given yet."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0009_count_team_and_cage"),
    ]

    operations = [
        migrations.AlterField(
            model_name="reconciliation",
            name="state",
            field=models.CharField(
                choices=[
                    ("open", "open"),
                    ("incomplete", "incomplete"),
                    ("replay_pending", "the replay not yet available"),
                    ("no_drop_box", "no drop box"),
                    ("counted", "counted, a variance not explained"),
                    ("reconciled", "reconciled"),
                    ("signed", "signed off"),
                    ("adjusted", "signed off, adjusted"),
                ],
                default="open",
                max_length=16,
            ),
        ),
    ]
