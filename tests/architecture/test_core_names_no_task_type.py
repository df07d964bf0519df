"""The core asks the registries and names no task type (docs/architecture.md): no identifier, import
or string in a core module names one of the installed task types (collect.registry), and none in
annotate's core or the research pages names an annotation kind (annotate.registry). Comments and
docstrings may use one as an example; code may not. A task type's or kind's own package, and the
research demo that composes them, are not the core."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings

from annotate import registry as annotation_registry
from collect import registry

# The core: collect (but its task types), annotate (but its kinds), the research pages, the
# infrastructure. Migrations are history; the settings are the project's composition root, which
# chooses the default task type.
CORE = ("collect", "annotate", "research", "groundwork")
NOT_CORE = ("collect/tasktypes/", "annotate/kinds/", "/migrations/", "groundwork/settings.py")
# Where annotation kinds could be named: annotate's core and the pages above it. (collect sits below
# annotate and imports none of it: import-linter's layers; its `dialog_acts` is Curiosity's field.)
KIND_CORE = ("annotate/", "research/")


def task_type_words() -> set[str]:
    words = set(registry.task_type_names(aliases=True))
    for app in settings.INSTALLED_APPS:
        if app.startswith("collect.tasktypes."):
            words.add(app.split(".")[2])
    return words


def kind_words() -> set[str]:
    words = set(annotation_registry.kind_names())
    for app in settings.INSTALLED_APPS:
        if app.startswith("annotate.kinds."):
            words.add(app.split(".")[2])
    return words


def core_modules() -> list[Path]:
    root = Path(settings.BASE_DIR)
    found = []
    for package in CORE:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if not any(part in relative for part in NOT_CORE):
                found.append(path)
    return found


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes: they describe, and may give an example."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def mentions(path: Path, words: set[str]) -> list[str]:
    # As code writes a name: lower case (`wow`, "model_chat") or upper (`WOW_NAME`); a capitalised word
    # in an English sentence ("Wow.") is not the task type.
    forms = sorted({form for word in words for form in (word, word.upper())}, key=len, reverse=True)
    pattern = re.compile(r"(?<![A-Za-z])(" + "|".join(map(re.escape, forms)) + r")(?![A-Za-z])")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            texts = [getattr(node, "module", "") or "", *(alias.name for alias in node.names)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts = [node.name]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts = [node.value]
        for text in texts:
            if pattern.search(text):
                found.append(f"{path.name}:{getattr(node, 'lineno', '?')}: {text[:80]!r}")
    return found


def test_the_registry_knows_the_built_in_task_types() -> None:
    # The check below is only as good as the words it looks for.
    assert {"wow", "curiosity", "duconv", "model_chat"} <= task_type_words()


def test_the_registry_knows_the_built_in_annotation_kinds() -> None:
    assert {"relevance", "dialog_acts", "duconv_eval", "pairwise"} <= kind_words()


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: p.as_posix().split("/main/")[-1])
def test_a_core_module_names_no_task_type(path: Path) -> None:
    relative = path.relative_to(Path(settings.BASE_DIR)).as_posix()
    words = task_type_words() | (kind_words() if relative.startswith(KIND_CORE) else set())
    assert mentions(path, words) == []
