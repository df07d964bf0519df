"""Backups of a whole site: its database and the files under var/ that the database cannot rebuild.

A backup is one tar file (`manage.py backup OUT.tar`, `manage.py restore IN.tar`): manifest.json,
the database (a SQLite online-backup copy or a `pg_dump -Fc` archive) and the files. See
docs/deployment.md#backups for what is and is not included."""
