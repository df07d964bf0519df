"""`manage.py check_catalogs`: the translation catalogs' check (docs/languages.md), as make test runs
it (tests/i18n/test_catalogs.py): every complete catalog translates every worker string, no entry is
fuzzy, placeholders and markup survive, and no worker-facing template or ES-module text is left
unmarked where that can be seen. Exits 1 with the list of problems."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from groundwork.catalogs import catalogs_problems
from groundwork.languages import LOCALE_DIR
from groundwork.unmarked import unmarked_text


class Command(BaseCommand):
    help = "Check the translation catalogs and the worker screens' unmarked text."

    def handle(self, *args, **options) -> None:
        problems = catalogs_problems(LOCALE_DIR)
        problems += [f"not marked for translation: {piece}" for piece in unmarked_text(
            templates_dir=settings.BASE_DIR / "templates", scripts_dir=settings.BASE_DIR / "static" / "js"
        )]
        if problems:
            raise CommandError("\n".join([f"{len(problems)} problem(s):", *problems]))
        self.stdout.write("The catalogs are complete and every worker string is marked.")
