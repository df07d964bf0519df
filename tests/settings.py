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

from groundwork.settings import *  # noqa: E402,F403
