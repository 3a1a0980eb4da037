-- Least privilege on PostgreSQL (audit/store/roles.py): run once as a superuser, connected to the
-- database, before the first migration (or on one migrated earlier as a superuser: the last
-- statement hands its tables and functions to the owner). Regenerate with: python manage.py db_roles --database NAME
-- Then: migrate as blackjack_owner with DATABASE_APP_ROLE=blackjack_app, run the app as blackjack_app.
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'blackjack_owner') THEN CREATE ROLE blackjack_owner LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS; END IF; END $$;
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'blackjack_app') THEN CREATE ROLE blackjack_app LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS; END IF; END $$;
REVOKE blackjack_owner FROM blackjack_app;
REVOKE ALL ON DATABASE blackjack FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE blackjack TO blackjack_owner, blackjack_app;
ALTER SCHEMA public OWNER TO blackjack_owner;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO blackjack_app;
DO $$ DECLARE r record; BEGIN FOR r IN SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND pg_get_userbyid(c.relowner) <> 'blackjack_owner' AND NOT (c.relkind = 'S' AND EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))) LOOP EXECUTE format('ALTER TABLE %s OWNER TO blackjack_owner', r.name); END LOOP; FOR r IN SELECT p.oid::regprocedure::text AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> 'blackjack_owner' LOOP EXECUTE format('ALTER FUNCTION %s OWNER TO blackjack_owner', r.name); END LOOP; END $$;
