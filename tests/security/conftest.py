"""The people of the security tests are those of the collection tests."""

from tests.collect.conftest import campaign, paired  # noqa: F401
