"""`manage.py check_catalogs`: the translation catalogs' check (docs/languages.md), as make test runs
it (tests/i18n/test_catalogs.py): every complete catalog translates every worker string, no entry is
fuzzy, placeholders and markup survive, and no worker-facing template or ES-module text is left
unmarked where that can be seen. Exits 1 with the list of problems."""

from __future__ import annotations

from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from groundwork.catalogs import catalogs_problems
from groundwork.languages import LOCALE_DIR
from groundwork.unmarked import unmarked_text


def worker_template_dirs() -> list[Path]:
    """The project's templates and each of its own apps' (their templates/ folders)."""
    return [settings.BASE_DIR / "templates", *(Path(app.path) / "templates" for app in _our_apps())]


def worker_script_dirs() -> list[Path]:
    """The project's ES modules and each of its own apps' (static/<app label>/)."""
    return [settings.BASE_DIR / "static" / "js", *(Path(app.path) / "static" / app.label for app in _our_apps())]


def _our_apps() -> list:
    # The project's own apps (a virtualenv inside the checkout holds others).
    return [app for app in apps.get_app_configs() if Path(app.path).is_relative_to(settings.BASE_DIR) and "site-packages" not in Path(app.path).parts]


class Command(BaseCommand):
    help = "Check the translation catalogs and the worker screens' unmarked text."

    def handle(self, *args, **options) -> None:
        problems = catalogs_problems(LOCALE_DIR)
        problems += [f"not marked for translation: {piece}" for piece in unmarked_text(
            templates_dirs=worker_template_dirs(), scripts_dirs=worker_script_dirs()
        )]
        if problems:
            raise CommandError("\n".join([f"{len(problems)} problem(s):", *problems]))
        self.stdout.write("The catalogs are complete and every worker string is marked.")
