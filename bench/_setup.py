"""Shared start-up for the benchmarks: a throwaway embedded database and the demo knowledge,
unless DATABASE_URL / GROUNDWORK_VAR_DIR already point somewhere."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def django_with_demo() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", tempfile.mkdtemp(prefix="gw-bench-"))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("load_demo", verbosity=0)
