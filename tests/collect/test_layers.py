"""collect sits below annotate: no module of collect imports annotate. annotate hands its labels to
collect's exporters through collect.exporters.labels instead (the Curiosity export test
`test_the_export_carries_the_annotators_dialog_acts` checks that they still arrive)."""

from __future__ import annotations

import ast
from pathlib import Path

COLLECT = Path(__file__).resolve().parents[2] / "collect"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_collect_module_imports_annotate() -> None:
    offenders = sorted(
        str(path.relative_to(COLLECT.parent))
        for path in COLLECT.rglob("*.py")
        if any(name == "annotate" or name.startswith("annotate.") for name in imported_modules(path))
    )
    assert offenders == []

