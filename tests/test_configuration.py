"""One settings module, one reference page: every environment variable is read once, at start-up, in
groundwork/settings.py through the strict parsers of groundwork/env.py, and listed once in
docs/configuration.md; the product's code reads django.conf.settings. The few modules that touch
the environment themselves are named below with the reason (each says it in a comment too).

Read from the source (its syntax tree), not by running it, so a variable read in a branch that
this machine does not take (production, PostgreSQL) is seen all the same."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.settings_read import settings_read

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = "groundwork/settings.py"
DOC = ROOT / "docs" / "configuration.md"
PRODUCT = ("groundwork", "collect", "annotate", "retrieval", "research")
PARSERS = {"env_str", "env_bool", "env_int", "env_float", "env_choice", "env_list", "env_rates"}
# The product's modules that touch os.environ themselves, and why.
ENVIRONMENT_READERS = {
    "manage.py": "sets DJANGO_SETTINGS_MODULE before Django starts",
    "groundwork/asgi.py": "sets DJANGO_SETTINGS_MODULE before Django starts",
    "groundwork/celery.py": "sets DJANGO_SETTINGS_MODULE before Django starts",
    "groundwork/env.py": "the strict parsers settings.py reads the environment with",
    "groundwork/topology.py": "make run-prod's launcher: runs before any Django process and starts them with its environment",
    "groundwork/shutdown.py": "the SIGTERM drain is installed before the application, and Django's settings, are imported",
    "groundwork/alerts.py": "supervisord's event listener, a plain Python program without Django",
    "retrieval/rankers/cross_encoder.py": "writes HF_HUB_OFFLINE before huggingface_hub is imported",
    "retrieval/rankers/embedder.py": "writes HF_HUB_OFFLINE before huggingface_hub is imported",
    "collect/tasktypes/modelchat/openai_options.py": "the API key's variable is named by each registered model (data)",
    "collect/backup/database.py": "passes the environment on to pg_dump and pg_restore",
}
# What a bad value of each parser is, and the type docs/configuration.md gives such a variable.
BAD = {"env_bool": "maybe", "env_int": "lots", "env_float": "lots", "env_choice": "nonesuch", "env_rates": "frames.worker=ten/10"}
TYPES = {"env_bool": {"boolean"}, "env_int": {"integer"}, "env_float": {"number"}, "env_choice": {"choice"},
         "env_list": {"list"}, "env_rates": {"rates"}, "env_str": {"text", "URL", "path", "secret"}}
ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]*)` \| ([a-zA-Z]+) \| [^|]+ \| [^|]+ \|$")


def tree(relative: str) -> ast.Module:
    return ast.parse((ROOT / relative).read_text(encoding="utf-8"), filename=relative)


def product_modules() -> list[str]:
    found = ["manage.py"]
    for package in PRODUCT:
        found += [path.relative_to(ROOT).as_posix() for path in sorted((ROOT / package).rglob("*.py"))]
    return found


def settings_reads() -> list[tuple[str, str]]:
    """(variable, parser) for every parser call of the settings module; each names its variable."""
    reads = []
    for node in ast.walk(tree(SETTINGS)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PARSERS:
            name = node.args[0] if node.args else None
            assert isinstance(name, ast.Constant) and isinstance(name.value, str), \
                f"{SETTINGS}:{node.lineno}: {node.func.id}() must name its variable literally"
            reads.append((name.value, node.func.id))
    return reads


def environ_uses(module: ast.Module) -> list[tuple[int, str]]:
    """(line, what) for each touch of the environment: os.environ, os.getenv, the env parsers."""
    uses = []
    for node in ast.walk(module):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os" \
                and node.attr in ("environ", "getenv", "putenv", "unsetenv"):
            uses.append((node.lineno, f"os.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", "groundwork.env"):
            uses += [(node.lineno, f"from {node.module} import {alias.name}") for alias in node.names
                     if node.module == "groundwork.env" or alias.name in ("environ", "getenv")]
    return uses


def launcher_reads(module: ast.Module) -> set[str]:
    """Variables a module outside the settings reads by a literal name (writes are not reads)."""
    names = set()
    for node in ast.walk(module):
        literal = None
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "get" and ast.unparse(func.value) == "os.environ":
                literal = node.args[0].value
            elif isinstance(func, ast.Attribute) and ast.unparse(func) == "os.getenv":
                literal = node.args[0].value
            elif isinstance(func, ast.Name) and func.id in PARSERS:
                literal = node.args[0].value
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and ast.unparse(node.value) == "os.environ" \
                and isinstance(node.slice, ast.Constant):
            literal = node.slice.value
        if isinstance(literal, str):
            names.add(literal)
    return names


def documented() -> dict[str, str]:
    """variable -> its type, from the tables of docs/configuration.md (each variable once)."""
    rows = [ROW.match(line) for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    assert all(rows), "a table row of docs/configuration.md is not | `VARIABLE` | type | default | meaning |"
    counts = Counter(row.group(1) for row in rows if row)
    assert [name for name, n in counts.items() if n > 1] == [], "listed more than once in docs/configuration.md"
    return {row.group(1): row.group(2) for row in rows if row}


def test_every_variable_is_read_once_in_the_settings_and_documented_once_and_nothing_else_is_documented() -> None:
    reads = settings_reads()
    twice = [name for name, n in Counter(name for name, _ in reads).items() if n > 1]
    assert twice == [], f"read more than once in {SETTINGS}"
    launchers = set().union(*(launcher_reads(tree(path)) for path in ENVIRONMENT_READERS))
    read = {name for name, _ in reads} | launchers
    docs = documented()
    assert sorted(read - set(docs)) == [], "read but not in docs/configuration.md"
    assert sorted(set(docs) - read) == [], "in docs/configuration.md but read by nothing"
    for name, parser in reads:
        assert docs[name] in TYPES[parser], f"docs/configuration.md gives {name} the type {docs[name]}, read by {parser}"


def test_no_product_module_reads_the_environment_but_the_settings_and_the_named_exceptions() -> None:
    direct = [(line, what) for line, what in environ_uses(tree(SETTINGS)) if not what.startswith("from groundwork.env")]
    assert direct == [], f"{SETTINGS} reads the environment only through groundwork/env.py"
    readers = {path: uses for path in product_modules() if path != SETTINGS and (uses := environ_uses(tree(path)))}
    offending = {path: uses for path, uses in readers.items() if path not in ENVIRONMENT_READERS}
    assert offending == {}, "read the environment themselves: read django.conf.settings instead"
    # An exception that no longer reads the environment is no exception: take it off the list.
    assert sorted(set(ENVIRONMENT_READERS) - set(readers)) == []


@pytest.mark.parametrize(("name", "parser"), sorted({(n, p) for n, p in settings_reads() if p in BAD}))
def test_a_bad_value_stops_the_start_up_naming_the_variable(monkeypatch: pytest.MonkeyPatch, name: str, parser: str) -> None:
    # Production and a PostgreSQL URL, so that the variables read only there are read too (nothing connects).
    context = {"GROUNDWORK_PRODUCTION": "1", "DEBUG": "0", "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"}
    with pytest.raises(ImproperlyConfigured, match=f"^{name}"):
        settings_read(monkeypatch, **{**context, name: BAD[parser]})


def test_the_defaults_start_and_every_setting_the_code_reads_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, _ in settings_reads():
        if name not in ("SECRET_KEY", "GROUNDWORK_VAR_DIR"):
            monkeypatch.delenv(name, raising=False)
    values = settings_read(monkeypatch)
    assert (values["RANKER"], values["RERANK_MODE"], values["SENTENCE_VECTORS"], values["LOG_LEVEL"]) == ("", "auto", "auto", "INFO")
    assert values["CELERY_TASK_ALWAYS_EAGER"] is True and values["PROMETHEUS_MULTIPROC_DIR"] == ""
