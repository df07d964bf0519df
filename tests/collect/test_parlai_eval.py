"""ParlAI evaluates a 100-candidate retrieval baseline on an exported Wizard of Wikipedia test split
(bench/parlai_eval.py). ParlAI is not a dependency: this runs only where GROUNDWORK_PARLAI_PYTHON
names a Python with ParlAI 1.7.2 installed (docs/datasets.md says how one was made)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WOWPP = REPO.parent / "shared" / "data" / "wowpp" / "test_random_augmented_wow.json"

# ParlAI's evaluation may take its own 900 s.
pytestmark = [
    pytest.mark.backends,
    pytest.mark.timeout(1200),
    pytest.mark.skipif(not os.environ.get("GROUNDWORK_PARLAI_PYTHON"),
                       reason="GROUNDWORK_PARLAI_PYTHON is not set (a Python with ParlAI installed)"),
    pytest.mark.skipif(not WOWPP.exists(), reason="the shared WOW++ file is not here"),
]


@pytest.mark.parametrize(("model", "floor", "ceiling"), [("ir_baseline", 0.1, 1.0), ("random_candidate", 0.0, 0.05)])
def test_parlai_ranks_the_exported_candidates(tmp_path: Path, model: str, floor: float, ceiling: float) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env["GROUNDWORK_VAR_DIR"] = str(tmp_path / "var")  # an embedded database of its own, not the test run's
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "parlai_eval.py"), "--wowpp", str(WOWPP), "--dialogues", "120",
         "--model", model, "--report", str(report)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    got = json.loads(report.read_text())
    # Every wizard turn is an example with 100 candidates, the gold among them.
    assert got["rooms"] == 120 and got["report"]["exs"] == got["wizard_turns"]
    assert got["report"]["hits@100"] == 1.0
    assert floor <= got["report"]["hits@1"] <= ceiling  # the baseline well above chance; chance about 1 in 100
