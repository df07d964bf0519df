"""The project's settings for the test suite. The services pass (DATABASE_URL/REDIS_URL set) needs a
SECRET_KEY like any deployment; a run that gives none gets a random one, which the processes the
tests start (daphne, Celery) inherit through the environment."""

import os
import secrets

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
# With a broker, every index build would queue an encoding of its source's sentences for whichever
# worker a later test starts (they inherit this too); the tests of that path ask for it
# (tests/retrieval/test_sentence_vectors.py, test_vectors_worker.py).
os.environ.setdefault("GROUNDWORK_SENTENCE_VECTORS", "off")

# Not GROUNDWORK_*: the settings know every variable of theirs, and this one is the tests' own.
SHIFTED = "TESTS_REDIS_SHIFTED_FOR"


def _own_redis_databases(worker: str) -> None:
    """Under pytest-xdist (worker "gw0", "gw1"…) each worker's Redis URLs name databases of their
    own (worker n: the URL's database + 3n), as PostgreSQL test databases are each worker's own:
    rooms numbered alike in two workers' databases would otherwise share channel-layer groups,
    queues and rate-limit counts. The processes the tests start inherit these URLs, and with them
    SHIFTED, which tells these settings, imported again there, that they are shifted already."""
    n = int(worker.removeprefix("gw") or 0)
    if not n or os.environ.get(SHIFTED) == worker:
        return
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        url = os.environ.get(name, "")
        base, _, db = url.rpartition("/")
        if url.startswith("redis://") and db.isdigit():
            os.environ[name] = f"{base}/{int(db) + 3 * n}"
    os.environ[SHIFTED] = worker


_own_redis_databases(os.environ.get("PYTEST_XDIST_WORKER", ""))

from groundwork.settings import *  # noqa: E402,F403
