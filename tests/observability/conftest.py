"""Metrics and logs. The collection tests' campaign (tests/collect/conftest.py) is theirs too."""

from tests.collect.conftest import campaign  # noqa: F401 - a fixture
