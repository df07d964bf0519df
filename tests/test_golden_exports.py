"""Golden exports: a fixed site with every task type (tests/golden_site.py), exported, must write the
very bytes kept under tests/golden/<dataset>/. They pin today's export behaviour through changes
meant to keep it (issue 50: one package per task type).

Covered: wow, curiosity (with crowd dialog acts and the fact db), duconv (sessions, --samples, --segment),
modelchat (with the DuConv variant and the pairwise judgments file beside it), wowpp, curiosity-acts
(an imported Curiosity file with its acts) and the annotation report of a DuConv scoring job.

Deterministic by construction (tests/golden_pins.py says what is pinned and why): the simulations
are seeded and run one dialogue at a time, their scripted workers pairing and answering in a fixed
order (collect/simulation.py: wait_together, knowledge_settled); the product's draws (`random`, `uuid4`, `token_hex`) come
from seeded stand-ins; the salt of worker pseudonyms is a setting fixed here; the database starts
empty with its id sequences reset (ids reach the files: Curiosity dialog and message ids, the pair
draws of pairwise jobs); rooms' created times and model latencies are set after the dialogues.

One file differs by database, and each pass compares its own bytes: the PostgreSQL pass keeps the
files it writes otherwise under tests/golden/postgresql/<dataset>/ (curiosity-acts: an imported
dialog's keys come back from a jsonb column in jsonb's order, not the file's).

`GROUNDWORK_GOLDEN_UPDATE=1` rewrites the golden files from this run instead of comparing (read only
here): on the embedded pass first, then on the PostgreSQL pass; review the diff before committing.
The Curiosity fact db is binary: its golden copy is its SQL dump (`wiki_sql.sqlite.db.sql`), and its
exact bytes are pinned by `db_checksum` (their md5) in the dialog files. Those bytes come from the
SQLite library that writes the input file, so another SQLite version moves that checksum: regenerate.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from collect.ratelimit import rate_limits_reset
from tests.golden_pins import pinned, unpinned_modules
from tests.golden_site import EXPORTS, exports_write, site_build

GOLDEN = Path(__file__).with_name("golden")
UPDATE = os.environ.get("GROUNDWORK_GOLDEN_UPDATE", "") == "1"
DATASETS = [*EXPORTS, "curiosity-acts", "annotation-report"]
SQLITE_SUFFIX = ".sqlite.db"
DIFF_LINES = 12  # lines of unified diff shown per differing file
LINE_WINDOW = 300  # characters shown of a long differing line
BASE_VENDOR = "sqlite"  # the embedded pass; another database keeps what it writes otherwise in golden/<vendor>/

# The tests read files only; the mark makes pytest-django create the test database the module
# fixture fills (it sets up databases only for sessions whose tests ask for one).
pytestmark = [pytest.mark.django_db, pytest.mark.backends]


@pytest.fixture(scope="module")
def exported(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Path]:
    """Every export of the golden site, one folder per dataset. Built once for the module, in a
    database emptied with its sequences reset before and emptied again after (as a transactional
    test leaves it)."""
    work = tmp_path_factory.mktemp("golden-site")
    settings = override_settings(
        INDEX_DIR=work / "indexes",
        CURIOSITY_FACTDB_DIR=work / "factdb",
        KNOWLEDGE_MODE="process",  # retrieval after each message, in this process
        CELERY_TASK_ALWAYS_EAGER=True,  # model replies and reranks too: the services pass starts no worker
        PSEUDONYM_SALT="golden",  # pseudonyms are a salted hash of the worker's platform id
    )
    with django_db_blocker.unblock(), settings:
        call_command("flush", interactive=False, verbosity=0)  # resets the id sequences too
        rate_limits_reset()
        try:
            with pinned("golden"):
                site_build(work)
                exports_write(work / "out")
                missed = unpinned_modules()
            assert not missed, f"product modules imported after pinning kept unseeded draws: {missed}"
            yield work / "out"
        finally:
            call_command("flush", interactive=False, verbosity=0)


def files_of(folder: Path) -> dict[str, bytes]:
    """Relative path -> bytes, with an SQLite file as its SQL dump (readable, and free of the
    library's header bytes)."""
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if name.endswith(SQLITE_SUFFIX):
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            files[f"{name}.sql"] = "".join(f"{line}\n" for line in connection.iterdump()).encode()
            connection.close()
        else:
            files[name] = path.read_bytes()
    return files


def first_difference(name: str, expected: bytes, actual: bytes) -> str:
    """A short unified diff around the first differing lines; long lines (a dialogue per line) are
    cut to a window around their first differing character."""
    old = expected.decode("utf-8", "replace").splitlines()
    new = actual.decode("utf-8", "replace").splitlines()
    diff = list(difflib.unified_diff(old, new, f"golden/{name}", f"exported/{name}", n=1, lineterm=""))
    if not diff:  # same lines, other bytes (line endings, a final newline)
        return f"{name}: same lines, different bytes ({len(expected)} vs {len(actual)} bytes)"
    removed = next((line[1:] for line in diff[2:] if line.startswith("-")), "")
    added = next((line[1:] for line in diff[2:] if line.startswith("+")), "")
    column = next((i for i, (a, b) in enumerate(zip(removed, added)) if a != b), min(len(removed), len(added)))
    start = max(0, column - LINE_WINDOW // 3)
    shown = [
        line if len(line) <= LINE_WINDOW else f"{line[0]}...{line[1 + start : 1 + start + LINE_WINDOW]}..."
        for line in diff[:DIFF_LINES]
    ]
    more = f"\n... {len(diff) - DIFF_LINES} more diff lines" if len(diff) > DIFF_LINES else ""
    return "\n".join(shown) + more


@pytest.mark.parametrize("dataset", DATASETS)
def test_export_matches_its_golden_files(exported: Path, dataset: str) -> None:
    actual = files_of(exported / dataset)
    assert actual, f"the {dataset} export wrote no file"
    base, own = GOLDEN / dataset, GOLDEN / connection.vendor / dataset
    if UPDATE:
        golden_write(actual, base, own, vendor=connection.vendor)
        return
    expected = files_of(base) if base.is_dir() else {}
    if connection.vendor != BASE_VENDOR and own.is_dir():
        expected.update(files_of(own))
    assert sorted(actual) == sorted(expected), (
        f"{dataset}: files differ from tests/golden/{dataset} (missing: {sorted(set(expected) - set(actual))}, "
        f"new: {sorted(set(actual) - set(expected))}); GROUNDWORK_GOLDEN_UPDATE=1 rewrites them"
    )
    differing = [name for name in sorted(actual) if actual[name] != expected[name]]
    assert not differing, "\n\n".join(first_difference(f"{dataset}/{n}", expected[n], actual[n]) for n in differing)


def golden_write(actual: dict[str, bytes], base: Path, own: Path, *, vendor: str) -> None:
    """The embedded pass rewrites the golden files; another database's pass keeps beside them only
    the files it writes otherwise."""
    if vendor == BASE_VENDOR:
        shutil.rmtree(base, ignore_errors=True)
        kept = actual
    else:
        assert base.is_dir(), f"regenerate {base} on the embedded (SQLite) pass first"
        shutil.rmtree(own, ignore_errors=True)
        written = files_of(base)
        kept = {name: data for name, data in actual.items() if written.get(name) != data}
    for name, data in kept.items():
        path = (base if vendor == BASE_VENDOR else own) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    if own.parent.is_dir() and not any(own.parent.iterdir()):
        own.parent.rmdir()


def test_the_fact_db_is_the_one_the_dialogs_name(exported: Path) -> None:
    """The Curiosity db's bytes are pinned through the dialogs' db_checksum (its md5)."""
    import json

    digest = hashlib.md5((exported / "curiosity" / "wiki_sql.sqlite.db").read_bytes()).hexdigest()
    for path in sorted((exported / "curiosity").glob("curiosity_dialogs.*.json")):
        assert json.loads(path.read_text(encoding="utf-8"))["db_checksum"] == digest, path.name
