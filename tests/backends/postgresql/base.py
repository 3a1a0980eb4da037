from django.db.backends.postgresql import base, operations

from audit import immutability


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        sql = super().sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        if immutability.TABLE not in tables:
            return sql
        # Triggers do not fire in replica mode; SET LOCAL ends with the flush's transaction.
        return ["SET LOCAL session_replication_role = replica", *sql]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
