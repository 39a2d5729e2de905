"""The database: schema, engines, migrations, PostgreSQL, damage."""
