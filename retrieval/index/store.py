"""Index files on disk. Each build is written to its own directory under INDEX_DIR/.builds/<slug>/
and published by atomically replacing the symlink INDEX_DIR/<slug>; readers load a build once per
process (memory-mapped) and reload when the link points elsewhere or meta.json changes."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from retrieval.index.term_major import ARRAYS, TermMajorIndex
from retrieval.titles import title_index_load

VERSION = 1
T = TypeVar("T")
BUILDS = ".builds"

_cache: dict[Path, tuple[tuple[str, int], Any]] = {}  # link -> (its build and meta.json's mtime, what was loaded)
_cache_lock = threading.Lock()


def build_dir_create(*, index_dir: Path, slug: str) -> Path:
    """A new, empty, not yet published build directory for `slug`, to write the arrays into."""
    builds = index_dir / BUILDS / slug
    builds.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=f"{time.time_ns()}-", dir=builds))
    build.chmod(0o755)  # mkdtemp makes it private; serving processes may run as another user
    return build


def build_publish(*, index_dir: Path, slug: str, build: Path, meta: dict[str, object]) -> Path:
    """Write meta.json into a complete build and make it the current one for `slug`."""
    builds = index_dir / BUILDS / slug
    (build / "meta.json").write_text(json.dumps({**meta, "version": VERSION}, indent=1))
    link = index_dir / slug
    previous = Path(os.readlink(link)).name if link.is_symlink() else None
    if link.is_dir() and not link.is_symlink():
        shutil.rmtree(link)
    staged = index_dir / f".{slug}.{build.name}.link"
    os.symlink(build.relative_to(index_dir), staged)
    os.replace(staged, link)
    # Keep the previous build (a reader that resolved the link just before the swap may still be
    # loading it) and anything newer (a concurrent build not yet published); delete older ones.
    if previous is not None:
        for old in builds.iterdir():
            if _stamp(old.name) < _stamp(previous) and (old / "meta.json").exists():
                shutil.rmtree(old, ignore_errors=True)
    return build


def _stamp(build_name: str) -> int:
    return int(build_name.split("-", 1)[0])


def index_load(*, index_dir: Path, slug: str) -> TermMajorIndex:
    """The current build for `slug`, memory-mapped and cached; FileNotFoundError if there is none."""

    def load(build: Path, meta: dict[str, Any]) -> TermMajorIndex:
        if meta.get("version") != VERSION:
            raise FileNotFoundError(f"{build} was built by index version {meta.get('version')}; rebuild it")
        arrays = {name: np.load(build / f"{name}.npy", mmap_mode="r") for name in ARRAYS}
        return TermMajorIndex(meta=meta, **arrays, titles=title_index_load(build))

    return published_load(index_dir / slug, load)


def published_load(link: Path, load: Callable[[Path, dict[str, Any]], T]) -> T:
    """What `load(build, meta)` makes of the build that `link` points at, made once per process and
    again when the link points elsewhere or its meta.json changes; FileNotFoundError (or
    NotADirectoryError) when there is no published build."""
    with _cache_lock:
        build = link.resolve(strict=True)
        meta_file = build / "meta.json"
        fingerprint = (str(build), meta_file.stat().st_mtime_ns)
        cached = _cache.get(link)
        if cached is not None and cached[0] == fingerprint:
            return cached[1]
        loaded = load(build, json.loads(meta_file.read_text()))
        _cache[link] = (fingerprint, loaded)
        return loaded
