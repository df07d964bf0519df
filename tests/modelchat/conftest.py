"""Model-chat fixtures: a campaign over the test knowledge with the built-in models, and dana, a
worker seated with a model (the evaluator); an HTTP endpoint stands in for a model owner's server."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from collect.tasktypes.modelchat.bots import builtin_models_ensure
from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind
from collect.tasktypes.modelchat.services import modelchat_seat
from collect.models import Assignment, Campaign, Persona, Room, Worker
from collect.services.matchmaking import assignment_start, worker_get_or_create
from retrieval.models import KnowledgeSource
from tests.collect.conftest import session_cookie
from tests.duconv.conftest import GOAL, films  # noqa: F401 - the demo film graph fixture


@pytest.fixture(autouse=True)
def models_in_process(request: pytest.FixtureRequest, settings) -> None:
    """Model replies on a thread of the test process, except in the test with a real Celery worker."""
    if "models_worker" not in request.fixturenames:
        settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def mc_campaign(knowledge) -> Campaign:
    builtin_models_ensure()
    campaign = Campaign.objects.create(
        slug="mc-test",
        name="Model chat test",
        protocol="model_chat",
        knowledge_source=knowledge,
        min_turns=2,
        max_turns=2,
        turn_limit=4,
        protocol_config={"models": {"kb-retrieval": 2}, "unseen_topics": ["Blues"]},
    )
    Persona.objects.create(campaign=campaign, text="i play the guitar in a small band.", topics=["Guitar", "Blues"])
    return campaign


@pytest.fixture
def dc_campaign(mc_campaign: Campaign, films: KnowledgeSource) -> Campaign:  # noqa: F811 - the imported fixture
    """The test campaign as the DuConv variant on the demo film graph: every room gets GOAL, and
    the DuConv agent bot answers."""
    config = {"models": {"duconv-agent": 2}, "duconv": {"goals": [{"goal": GOAL}]}, "onboarding_attempts": 0}
    Campaign.objects.filter(pk=mc_campaign.pk).update(slug="mc-duconv", knowledge_source=films, protocol_config=config)
    mc_campaign.refresh_from_db()
    return mc_campaign


@dataclass
class Evaluator:
    worker: Worker
    assignment: Assignment
    room: Room
    cookie: bytes


def seat(campaign: Campaign, name: str = "dana", model: str | None = None) -> Evaluator:
    """`name` joins the campaign and is seated with a model (`model` makes it the only arm)."""
    if model is not None:
        campaign.protocol_config = {**campaign.protocol_config, "models": {model: 5}, "control": 0}
        campaign.save(update_fields=["protocol_config"])
    worker = worker_get_or_create(platform="inhouse", external_id=name)
    assignment = assignment_start(campaign=campaign, worker=worker)
    room = modelchat_seat(assignment=assignment)
    assert room is not None
    assignment.refresh_from_db()
    return Evaluator(worker, assignment, room, session_cookie(worker))


@pytest.fixture
def dana(mc_campaign: Campaign) -> Evaluator:
    return seat(mc_campaign)


Handler = Callable[[dict[str, Any]], tuple[int, bytes, float]]  # request JSON -> (status, body, delay s)


@dataclass
class Endpoint:
    url: str
    requests: list[dict[str, Any]]
    respond: list[Handler]


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    """A real local HTTP server; set `endpoint.respond[0]` to choose its behaviour."""
    import time

    requests: list[dict[str, Any]] = []
    respond: list[Handler] = [lambda body: (200, json.dumps({"text": "Hello from the endpoint."}).encode(), 0.0)]

    class Model(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            requests.append(body)
            status, payload, delay = respond[0](body)
            time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the caller gave up (a timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Model)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Endpoint(f"http://127.0.0.1:{server.server_address[1]}/respond", requests, respond)
    server.shutdown()
    server.server_close()


def http_model(endpoint: Endpoint, *, name: str = "owner-model", timeout: float = 2.0, retries: int = 0) -> EvalModel:
    return EvalModel.objects.create(
        name=name, kind=EvalModelKind.HTTP, endpoint_url=endpoint.url, timeout_seconds=timeout, retries=retries
    )
