-- Least privilege on PostgreSQL (audit/roles.py): run once as a superuser, connected to the
-- database, before the first migration. Regenerate with: python manage.py db_roles --database NAME
-- Then: migrate as blackjack_owner with DATABASE_APP_ROLE=blackjack_app, run the app as blackjack_app.
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'blackjack_owner') THEN CREATE ROLE blackjack_owner LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS; END IF; END $$;
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'blackjack_app') THEN CREATE ROLE blackjack_app LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS; END IF; END $$;
REVOKE blackjack_owner FROM blackjack_app;
REVOKE ALL ON DATABASE blackjack FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE blackjack TO blackjack_owner, blackjack_app;
ALTER SCHEMA public OWNER TO blackjack_owner;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO blackjack_app;

