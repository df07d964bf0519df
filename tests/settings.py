"""The project's settings for the test suite. The services pass (DATABASE_URL/REDIS_URL set) needs a
SECRET_KEY like any deployment; a run that gives none gets a random one, which the processes the
tests start (daphne, Celery) inherit through the environment."""

import os
import secrets

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))

from groundwork.settings import *  # noqa: E402,F403
