"""Python models by dotted path: options reach the constructor; a model that raises, hangs, returns
the wrong type or cannot be imported gives an apology; the concurrency limit holds."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from collect.tasktypes.modelchat.bots import FALLBACK, KnowledgeBot, NoKnowledgeBot
from collect.tasktypes.modelchat.calls import APOLOGY, model_respond
from collect.tasktypes.modelchat.models import EvalModel
from tests.modelchat.sample_models import Slow

pytestmark = pytest.mark.django_db

CONTEXT = {"history": ["Do you like tea?"], "topic": "Tea", "knowledge": []}


def python_model(path: str, **fields) -> EvalModel:
    return EvalModel.objects.create(name=path.rsplit(".", 1)[-1].lower(), dotted_path=f"tests.modelchat.sample_models.{path}", **fields)


def test_options_reach_the_class() -> None:
    result = model_respond(model=python_model("Echo", options={"prefix": "Echo: "}), context=CONTEXT)
    assert (result.text, result.error) == ("Echo: Do you like tea?", "")


@pytest.mark.parametrize(
    ("path", "error"),
    [("Broken", "RuntimeError: CUDA out of memory"), ("WrongType", "bad reply"), ("Missing", "cannot import")],
)
def test_a_failing_class_gives_an_apology(path: str, error: str) -> None:
    result = model_respond(model=python_model(path, retries=1), context=CONTEXT)
    assert result.text == APOLOGY and error in result.error and result.attempts == 2


def test_a_hanging_class_times_out() -> None:
    model = python_model("Slow", options={"seconds": 60.0}, timeout_seconds=0.3, retries=0)
    finished = Slow.finished
    try:
        result = model_respond(model=model, context=CONTEXT)
        unfinished = Slow.finished == finished  # the apology came while the class was still at work
    finally:
        Slow.release.set()
        wait_until(lambda: Slow.finished > finished)
        Slow.release.clear()
    assert result.text == APOLOGY and result.error.startswith("timeout") and unfinished


def wait_until(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "still waiting"
        time.sleep(0.02)


def test_the_concurrency_limit_holds() -> None:
    model = python_model("Slow", options={"seconds": 0.3}, max_concurrency=2, timeout_seconds=5)
    deadline = time.monotonic() + 5
    while Slow.running and time.monotonic() < deadline:  # a timed-out call of another test finishing
        time.sleep(0.05)
    Slow.most = 0
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: model_respond(model=model, context=CONTEXT), range(6)))
    assert all(r.text == "Sorry for the wait." for r in results)
    assert Slow.most == 2


def test_the_built_in_bots_answer() -> None:
    knowledge = [{"title": "Tea", "sentences": ["Tea is an aromatic beverage.", "Tea comes from China."]}]
    reply = KnowledgeBot().respond({"history": ["Where does tea come from, China?"], "topic": "Tea", "knowledge": knowledge})
    assert reply == {"text": "Tea comes from China.", "knowledge_used": "Tea comes from China."}
    # Never the same sentence twice: with both said, it falls back.
    said = ["Tea is an aromatic beverage.", "Tea comes from China."]
    assert KnowledgeBot().respond({"history": said, "topic": "Tea", "knowledge": knowledge}) == {"text": FALLBACK}
    assert "Tea" in NoKnowledgeBot().respond({"history": ["hi"], "topic": "Tea", "knowledge": knowledge})
