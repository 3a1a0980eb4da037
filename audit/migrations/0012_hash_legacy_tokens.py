"""The tokens of Django REST framework's ``authtoken`` app, stored in plain text, become
hashed tokens (audit.access.tokens): each keeps working, with the full ``API_TOKEN_DAYS`` from
now, and its plain text is deleted. ``authtoken`` is no longer installed; its table is
left empty (a database that never had it is left as it is)."""

import hashlib
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import migrations

LEGACY_TABLE = "authtoken_token"


def hash_legacy_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if LEGACY_TABLE not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("audit", "ApiToken")
    now = datetime.now(UTC)
    expires_at = now + timedelta(days=settings.API_TOKEN_DAYS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {LEGACY_TABLE}")
        rows = cursor.fetchall()
        for key, user_id, created in rows:
            ApiToken.objects.create(
                # the same rule as audit.access.tokens: the first 12 characters find the row
                key_id=key[:12],
                digest=hashlib.sha256(key.encode("ascii")).hexdigest(),
                user_id=user_id,
                created_at=created or now,
                expires_at=expires_at,
            )
        cursor.execute(f"DELETE FROM {LEGACY_TABLE}")


class Migration(migrations.Migration):
    dependencies = (("audit", "0011_api_token"),)
    # irreversible in effect: the plain texts are gone (going back leaves them so)
    operations = (migrations.RunPython(hash_legacy_tokens, migrations.RunPython.noop),)
