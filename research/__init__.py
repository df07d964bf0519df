"""The researcher's pages, everything under /research/ and the review API under /api/research/
(staff only): the index, each campaign's review and pay, dashboard and signed links, the ranker,
the dataset exports (each campaign's and annotation job's dataset in its original schema, written
by a Celery task into var/exports/), and the task types' own staff pages. The top layer: it reads
collect, annotate and retrieval through their selectors and services, and none of them imports it."""
