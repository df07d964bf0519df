"""The catalog check that `make test` runs: the real catalogs pass it, the strings the code marks
are all in them, and the check itself fails on the faults it is there for."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils.translation import to_locale

from groundwork.catalogs import catalog_problems
from groundwork.languages import catalog_is_stub, catalog_languages
from groundwork.unmarked import unmarked_text

pytestmark = pytest.mark.backend_neutral("reads the catalogs and the source files: no database")

SOURCES = ("manage.py", "groundwork", "collect", "annotate", "retrieval", "research", "templates", "static/js", "locale")


def test_every_catalog_is_complete_and_every_worker_string_marked() -> None:
    assert "zh-hans" in catalog_languages()
    call_command("check_catalogs")


def test_the_catalogs_hold_every_string_the_code_marks(tmp_path: Path) -> None:
    """makemessages over a copy of the sources adds nothing untranslated to a complete catalog: a
    string marked in a template, module or ES module and missing from the .po fails here."""
    base = Path(settings.BASE_DIR)
    for name in SOURCES:
        source = base / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
        else:
            shutil.copy2(source, tmp_path / name)
    complete = [lang for lang in catalog_languages() if not catalog_is_stub(lang)]
    locales = [arg for lang in complete for arg in ("-l", to_locale(lang))]
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "groundwork.settings", "GROUNDWORK_VAR_DIR": str(tmp_path / "var")}
    for domain in ("django", "djangojs"):
        run = subprocess.run(
            [sys.executable, "manage.py", "makemessages", "-d", domain, *locales, "--no-obsolete"],
            cwd=tmp_path, env=environment, capture_output=True, text=True,
        )
        assert run.returncode == 0, run.stderr
    catalogs = [path for lang in complete for path in (tmp_path / "locale" / to_locale(lang) / "LC_MESSAGES").glob("*.po")]
    assert len(catalogs) == 2 * len(complete)
    assert [problem for path in catalogs for problem in catalog_problems(path)] == []


BAD_CATALOG = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
{stub}

#, fuzzy
msgid "Send"
msgstr "发送"

msgid "Your turn"
msgstr ""

msgid "You will talk about %(topic)s"
msgstr "你们将聊%(subject)s"

msgid "Which could the <strong>assistant</strong> use?"
msgstr "助手可以用哪些？"

msgid "%(count)s fact used"
msgid_plural "%(count)s facts used"
msgstr[0] "使用了 %(count)s 条事实"
'''


@pytest.mark.parametrize("stub", [False, True])
def test_the_check_fails_on_fuzzy_untranslated_and_broken_entries(tmp_path: Path, stub: bool) -> None:
    path = tmp_path / "django.po"
    path.write_text(BAD_CATALOG.format(stub='"X-Groundwork-Stub: layout\\n"' if stub else '"X-Generator: a test\\n"'), encoding="utf-8")
    problems = [problem.split(": ", 1)[1] for problem in catalog_problems(path)]
    expected = [
        "line 6: 'Send' is fuzzy",
        "line 10: 'Your turn' is not translated",
        "line 13: 'You will talk about %(topic)s': placeholders ['%(topic)s'] became ['%(subject)s']",
        "line 16: 'Which could the <strong>assistant</strong> use?': markup ['strong', 'strong'] became []",
    ]
    # A stub need not translate everything; it is still held to the rest.
    assert problems == [p for p in expected if not (stub and "not translated" in p)]


def test_the_unmarked_check_finds_english_left_in_a_template_and_a_module(tmp_path: Path) -> None:
    (tmp_path / "templates" / "collect").mkdir(parents=True)
    (tmp_path / "js").mkdir()
    (tmp_path / "templates" / "collect" / "screen.html").write_text(
        '{% load i18n %}{% block page_class %}page-narrow{% endblock %}\n'
        '<h1>{% translate "Marked" %}</h1>\n<p>Left in English</p>\n'
        '<input placeholder="Type here"><kbd>Enter</kbd>\n'
        '{% include "x.html" with legend="How was it?" name="rating" %}\n'
        '<p>{% blocktranslate %}Also marked {{ n }}{% endblocktranslate %}</p>',
        encoding="utf-8",
    )
    (tmp_path / "js" / "screen.js").write_text(
        'import { gettext } from "./i18n.js";\n'
        'setNotice(node, gettext("Marked."));\n'
        'setNotice(node, "Please wait.");\n'
        'button.textContent = on ? "Used" : gettext("Use");\n'
        'const el = h("button", { class: "button button-primary", "data-testid": "send" });\n'
        'if (event.key === "Enter") send();\n'
        'count.textContent = `${n} ticked`;\n'
        'localStorage.setItem(`gw-draft-${room}`, text);\n',
        encoding="utf-8",
    )
    found = [piece.split(": ", 1)[1] for piece in unmarked_text(templates_dirs=[tmp_path / "templates"], scripts_dirs=[tmp_path / "js"])]
    assert found == ["How was it?", "Type here", "Left in English", '"Please wait."', '"Used"', "`${n} ticked`"]
