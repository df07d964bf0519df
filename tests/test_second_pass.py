"""The second pass (PostgreSQL + Redis, `make test` with DATABASE_URL / REDIS_URL set) runs the test
modules marked `backends` or `services`; the first pass runs them all. This test fails when a module
that touches what the two passes run differently is not marked.

The rule, checked on each test module's source together with the helper modules under tests/ that
it imports (and they import; not other test modules nor conftest.py files), and with the fixtures
it requests (through those visible to it, as pytest finds them: its own, those it imports, those
of its conftest.py files):

1. the database across connections, where SQLite and PostgreSQL differ (locking, isolation, what
   another thread or process sees): `django_db(transaction=True)`, or a fixture `transactional_db`,
   `live_server`, `django_db_serialized_rollback` or `django_db_reset_sequences` (the browser
   tests' servers come with `transactional_db`);
2. SQL or backend checks of its own: `connection.cursor`, `connection.vendor`, `connections[...]`,
   `select_for_update`;
3. the channel layer (Redis in the second pass): imports of `channels.layers`, `channels.testing`,
   `channels_redis`, `groundwork.channel_layer`, or `tests.collect.ws` (the sockets' communicators);
4. Redis or Celery themselves: imports of `redis`, `celery`, `kombu`, or `tests.services`;
5. the project's processes, which inherit the pass's DATABASE_URL and REDIS_URL: `sys.executable`
   (the project's commands are started with it), imports of `multiprocessing`, `daphne.testing` or
   `tests.live`, or `os.fork()`.

A module marks itself with `pytestmark` (a mark or a list of marks). `services` also skips it in the
first pass (it needs the services); `backends` runs it in both. A module the rule flags although
what it tests cannot differ between the passes (a subprocess that converts a file, a model's own
replies) says why instead, in words: `pytest.mark.backend_neutral("…")`, and runs in the first pass
only. Browser tests run in the second pass only where marked `stack` (the Makefile's SECOND_PASS).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
MARKS = {"backends", "services", "backend_neutral"}
TRANSACTIONAL = {"transactional_db", "live_server", "django_db_serialized_rollback", "django_db_reset_sequences"}
IMPORTS = {
    "the channel layer": ("channels.layers", "channels.testing", "channels_redis", "groundwork.channel_layer", "tests.collect.ws"),
    "Redis or Celery": ("redis", "celery", "kombu", "tests.services"),
    "processes": ("multiprocessing", "daphne.testing", "tests.live"),
}


@dataclass
class Source:
    tree: ast.Module
    imports: set[str] = field(default_factory=set)  # modules, and module.name for `from module import name`
    fixtures: dict[str, tuple[list[str], bool]] = field(default_factory=dict)  # name -> (parameters, autouse)
    imported_names: dict[str, str] = field(default_factory=dict)  # name -> the tests module it comes from


@cache
def parsed(path: Path) -> Source:
    source = Source(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Import):
            source.imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            source.imports.add(node.module)
            source.imports.update(f"{node.module}.{alias.name}" for alias in node.names)
            if node.module.startswith("tests."):
                source.imported_names.update({alias.asname or alias.name: node.module for alias in node.names})
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            fixture = next((d for d in node.decorator_list if _is_fixture(d)), None)
            if fixture is not None:
                autouse = isinstance(fixture, ast.Call) and any(
                    k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value for k in fixture.keywords
                )
                source.fixtures[node.name] = ([a.arg for a in node.args.args], autouse)
    return source


def _is_fixture(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, ast.Attribute) and target.attr == "fixture"


def module_path(name: str) -> Path | None:
    path = ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def helpers(path: Path) -> list[Path]:
    """The file and every helper module under tests/ it imports, transitively (a test module or a
    conftest.py imported for its fixtures or functions does not count: its fixtures do)."""
    seen: list[Path] = []
    todo = [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.append(current)
        for name in parsed(current).imports:
            found = module_path(name) if name.startswith("tests.") else None
            if found is not None and not found.name.startswith("test_") and found.name != "conftest.py":
                todo.append(found)
    return seen


def visible_fixtures(path: Path) -> dict[str, tuple[list[str], bool]]:
    """The fixtures a test in `path` can request: conftest.py files from tests/ down, then its own;
    a nearer definition wins, as in pytest. A fixture imported by name brings its definition."""
    files = [d / "conftest.py" for d in reversed([path.parent, *path.parent.parents]) if d.is_relative_to(TESTS)]
    found: dict[str, tuple[list[str], bool]] = {}
    for file in [*(f for f in files if f.is_file()), path]:
        source = parsed(file)
        for name, module in source.imported_names.items():
            definition = module_path(module)
            if definition is not None and name in parsed(definition).fixtures:
                found[name] = parsed(definition).fixtures[name]
        found.update(source.fixtures)
    return found


def requested(path: Path) -> set[str]:
    """Every fixture the module's tests and fixtures request, and theirs, transitively."""
    visible = visible_fixtures(path)
    tree = parsed(path).tree
    wanted = {name for name, (_, autouse) in visible.items() if autouse}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (node.name.startswith("test") or node.name in visible):
            wanted.update(a.arg for a in node.args.args)
    closure: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name not in closure:
            closure.add(name)
            wanted.update(visible.get(name, ([], False))[0])
    return closure


def touches(path: Path) -> list[str]:
    """What the module touches of the rule's list, with what shows it."""
    found = []
    transactional = sorted(requested(path) & TRANSACTIONAL)
    if transactional:
        found.append(f"the database across connections ({', '.join(transactional)})")
    for file in helpers(path):
        source = parsed(file)
        for node in ast.walk(source.tree):
            if _transaction_mark(node):
                found.append(f"the database across connections (django_db(transaction=True) in {file.relative_to(ROOT)})")
            elif _own_sql(node):
                found.append(f"SQL of its own ({ast.unparse(node)} in {file.relative_to(ROOT)})")
            elif isinstance(node, ast.Call) and ast.unparse(node.func) == "os.fork":
                found.append(f"processes (os.fork in {file.relative_to(ROOT)})")
            elif isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.executable":
                found.append(f"processes (sys.executable in {file.relative_to(ROOT)})")
        for what, prefixes in IMPORTS.items():
            names = sorted(n for n in source.imports if any(n == p or n.startswith(f"{p}.") for p in prefixes))
            if names:
                found.append(f"{what} ({', '.join(names)} in {file.relative_to(ROOT)})")
    return sorted(set(found))


def _transaction_mark(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "django_db"
        and any(k.arg == "transaction" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords)
    )


def _own_sql(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "select_for_update":
        return True
    if isinstance(node, ast.Attribute) and node.attr in ("cursor", "vendor"):
        return isinstance(node.value, ast.Name) and node.value.id == "connection"
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "connections"


def marks(path: Path) -> set[str]:
    """The marks of the module's `pytestmark`; `backend_neutral` only with its reason given."""
    for node in parsed(path).tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            return {_mark_name(value) for value in values} - {""}
    return set()


def _mark_name(value: ast.expr) -> str:
    target = value.func if isinstance(value, ast.Call) else value
    if not (isinstance(target, ast.Attribute) and ast.unparse(target.value) == "pytest.mark"):
        return ""
    if target.attr == "backend_neutral" and not _reason_given(value):
        return ""
    return target.attr


def _reason_given(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Call)
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Constant)
        and isinstance(value.args[0].value, str)
        and len(value.args[0].value.split()) >= 3
    )


def module_files() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def test_every_module_that_touches_what_the_passes_run_differently_runs_in_the_second_pass() -> None:
    unmarked = {
        str(path.relative_to(ROOT)): found
        for path in module_files()
        if (found := touches(path)) and not marks(path) & MARKS
    }
    both = [str(p.relative_to(ROOT)) for p in module_files() if {"backend_neutral", "backends"} <= marks(p) or {"backend_neutral", "services"} <= marks(p)]
    assert both == [], "a module is either backend_neutral or runs in the second pass: " + ", ".join(both)
    assert unmarked == {}, "mark these modules `pytestmark = pytest.mark.backends` (or `services`, or `backend_neutral(why)`):\n" + "\n".join(
        f"{module}: {'; '.join(found)}" for module, found in unmarked.items()
    )


def test_the_rule_sees_a_consumer_test_a_browser_test_and_a_plain_one() -> None:
    assert any("tests.collect.ws" in f for f in touches(TESTS / "collect" / "test_room_consumer.py"))
    assert any("transactional_db" in f for f in touches(TESTS / "browser" / "test_walkthrough.py"))
    assert touches(TESTS / "evaluation" / "test_bradley_terry.py") == []
    assert marks(TESTS / "test_celery_worker.py") & MARKS


def test_backend_neutral_counts_only_with_its_reason() -> None:
    def of(source: str) -> set[str]:
        return {_mark_name(value) for value in ast.parse(source).body[0].value.elts} - {""}

    assert of('[pytest.mark.backend_neutral("converts a file: no database")]') == {"backend_neutral"}
    assert of("[pytest.mark.backend_neutral, pytest.mark.backend_neutral()]") == set()
    assert of('[pytest.mark.backend_neutral("why"), pytest.mark.browser]') == {"browser"}
