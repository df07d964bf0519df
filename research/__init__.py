"""The researcher's exports from /research/: each campaign's and annotation job's dataset in its
original schema, written by a Celery task into var/exports/ and served to staff only. A package of
its own because it reaches both collect and annotate (collect imports no annotate)."""
