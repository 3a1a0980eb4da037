"""Changing stored events behind the triggers' back, as an attacker with database
superuser rights would: PostgreSQL's replica mode, or SQLite's triggers dropped."""
from __future__ import annotations

from django.db import connection, transaction

from audit import immutability


def tamper(*statements: str) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            for sql in immutability.statements(immutability.REMOVE, "sqlite"):
                cursor.execute(sql)
        for sql in statements:
            cursor.execute(sql)
        if connection.vendor == "sqlite":
            for sql in immutability.statements(immutability.INSTALL, "sqlite"):
                cursor.execute(sql)
