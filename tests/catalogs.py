"""The compiled catalogs (.mo) that pages in another language need: `make messages` builds them;
a test run started without make compiles what is missing or older than its .po, with the same
msgfmt. Request `compiled_catalogs` before anything renders a translated page."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from django.utils.translation import trans_real

from groundwork.languages import LOCALE_DIR


def catalogs_compile() -> bool:
    """Compile each stale .mo; True when any was (translations already loaded are then dropped)."""
    stale = [po for po in LOCALE_DIR.glob("*/LC_MESSAGES/*.po") if _stale(po)]
    if not stale:
        return False
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.fail("msgfmt (GNU gettext) is needed to compile the translation catalogs: run `make messages`")
    for po in stale:
        subprocess.run([msgfmt, "--check", "-o", str(po.with_suffix(".mo")), str(po)], check=True)
    trans_real._translations = {}
    trans_real._default = None
    return True


def _stale(po) -> bool:
    mo = po.with_suffix(".mo")
    return not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime


@pytest.fixture(scope="session")
def compiled_catalogs() -> None:
    catalogs_compile()
