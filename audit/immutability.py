"""SQL that makes the event table append-only, per database vendor.

Row triggers refuse UPDATE and DELETE; on PostgreSQL a statement trigger also refuses
TRUNCATE, which row triggers do not see. Only a database superuser can get past them
(PostgreSQL: ``session_replication_role = replica``; SQLite: dropping the trigger or
editing the file) - which is exactly the tampering ``manage.py verify`` detects.
"""

TABLE = "audit_event"

INSTALL = {
    "sqlite": [
        f"CREATE TRIGGER {TABLE}_no_update BEFORE UPDATE ON {TABLE} "
        f"BEGIN SELECT RAISE(ABORT, '{TABLE} is append-only: UPDATE refused'); END",
        f"CREATE TRIGGER {TABLE}_no_delete BEFORE DELETE ON {TABLE} "
        f"BEGIN SELECT RAISE(ABORT, '{TABLE} is append-only: DELETE refused'); END",
    ],
    "postgresql": [
        f"""CREATE OR REPLACE FUNCTION {TABLE}_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '{TABLE} is append-only: % refused', TG_OP
                USING ERRCODE = 'insufficient_privilege';
        END $$""",
        f"CREATE TRIGGER {TABLE}_no_update_delete BEFORE UPDATE OR DELETE ON {TABLE} "
        f"FOR EACH ROW EXECUTE FUNCTION {TABLE}_refuse()",
        f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {TABLE} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_refuse()",
    ],
}

REMOVE = {
    "sqlite": [
        f"DROP TRIGGER IF EXISTS {TABLE}_no_update",
        f"DROP TRIGGER IF EXISTS {TABLE}_no_delete",
    ],
    "postgresql": [
        f"DROP TRIGGER IF EXISTS {TABLE}_no_update_delete ON {TABLE}",
        f"DROP TRIGGER IF EXISTS {TABLE}_no_truncate ON {TABLE}",
        f"DROP FUNCTION IF EXISTS {TABLE}_refuse()",
    ],
}


def statements(kind: dict[str, list[str]], vendor: str) -> list[str]:
    try:
        return kind[vendor]
    except KeyError:
        raise NotImplementedError(
            f"no append-only triggers for database vendor {vendor!r}: "
            "only SQLite and PostgreSQL are supported"
        ) from None
