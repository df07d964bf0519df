"""register_model --openai: what can be known at registration is refused then, with a message (a
bad base URL, a missing key variable, a server that is not there or refuses the key, a bad prompt
template); a good registration stores the variable's name, never the key."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from collect.tasktypes.modelchat.models import EvalModel
from tests.modelchat.openai_server import OpenAIServer, json_answer, openai_server

pytestmark = pytest.mark.django_db

KEY_ENV = "GW_TEST_REGISTER_KEY"
KEY = "sk-register-0c9e77b1"


@pytest.fixture
def server(monkeypatch) -> Iterator[OpenAIServer]:
    monkeypatch.setenv(KEY_ENV, KEY)
    with openai_server() as running:
        yield running


def register(*args: str) -> str:
    out = io.StringIO()
    call_command("register_model", *args, stdout=out)
    return out.getvalue()


def test_it_registers_an_openai_model_with_the_key_variable_name_only(server: OpenAIServer) -> None:
    output = register(
        "smol", "--openai", server.base_url, "--model", "test-model", "--api-key-env", KEY_ENV,
        "--temperature", "0.5", "--max-tokens", "48", "--timeout", "30",
        "--options", json.dumps({"prompts": {"plain": "Chat about {topic}."}}),
    )  # fmt: skip
    assert "registered openai model 'smol'" in output and "note" not in output
    model = EvalModel.objects.get(name="smol")
    assert (model.kind, model.endpoint_url, model.timeout_seconds) == ("openai", server.base_url, 30.0)
    assert model.options == {"model": "test-model", "api_key_env": KEY_ENV, "temperature": 0.5, "max_tokens": 48, "prompts": {"plain": "Chat about {topic}."}}
    assert KEY not in json.dumps(list(EvalModel.objects.values()), default=str)
    (check,) = server.requests
    assert check.path == "/v1/models" and check.headers["authorization"] == f"Bearer {KEY}"


def test_a_model_the_server_does_not_list_is_a_note_not_a_refusal(server: OpenAIServer) -> None:
    output = register("smol", "--openai", server.base_url, "--model", "other-model")
    assert "does not list 'other-model'" in output and EvalModel.objects.filter(name="smol").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--openai", "localhost:8000/v1", "--model", "m"], "the base URL must be http(s)://HOST"),
        (["--openai", "http://127.0.0.1:8000/v1/chat/completions", "--model", "m"], "not the /chat/completions address"),
        (["--openai", "http://127.0.0.1:8000/v1"], "--openai needs --model MODEL"),
        (["--openai", "http://127.0.0.1:8000/v1", "--model", "m", "--api-key-env", "NOT_SET_ANYWHERE_GW", "--no-check"], "NOT_SET_ANYWHERE_GW is not set"),
        (["--openai", "http://127.0.0.1:8000/v1", "--model", "m", "--api-key-env", "bad-name"], "environment variable's name"),
        (["--openai", "http://127.0.0.1:8000/v1", "--model", "m", "--temperature", "3"], "'temperature' must be a number from 0 to 2"),
        (["--openai", "http://127.0.0.1:8000/v1", "--model", "m", "--max-tokens", "0"], "'max_tokens' must be a whole number"),
        (["--openai", "http://127.0.0.1:8000/v1", "--model", "m", "--options", '{"prompts": {"wow": "About {subject}"}}'], "unknown field(s) {subject}"),
        (["--openai", "http://127.0.0.1:8000/v1", "--model", "m", "--options", '{"prompts": {"wow": "About {topic"}}'], "prompts.wow"),
        (["--openai", "http://127.0.0.1:8000/v1", "--model", "m", "--options", '{"prompts": {"poem": "x"}}'], "unknown prompt"),
        (["--openai", "http://127.0.0.1:8000/v1", "--model", "m", "--options", '{"api_key": "sk-x"}'], "unknown option(s) api_key"),
        (["--openai", "http://127.0.0.1:9/v1", "--model", "m"], "cannot reach http://127.0.0.1:9/v1"),
        (["--url", "http://127.0.0.1:8000/respond", "--model", "m"], "go with --openai"),
    ],
    ids=["no-scheme", "full-path", "no-model", "unset-key", "bad-env-name", "temperature", "max-tokens", "template-field", "template-brace", "unknown-prompt", "key-in-options", "unreachable", "model-without-openai"],
)
def test_what_can_be_known_at_registration_is_refused(args: list[str], message: str) -> None:
    with pytest.raises(CommandError) as raised:
        register("smol", *args)
    assert message in str(raised.value)
    assert not EvalModel.objects.exists()


def test_a_server_that_refuses_the_key_is_refused_at_registration(server: OpenAIServer) -> None:
    server.reply[0] = lambda request: json_answer(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})
    with pytest.raises(CommandError) as raised:
        register("smol", "--openai", server.base_url, "--model", "test-model", "--api-key-env", KEY_ENV)
    assert f"refused the key in {KEY_ENV} (HTTP 401)" in str(raised.value) and KEY not in str(raised.value)
    assert not EvalModel.objects.exists()


def test_no_check_registers_a_server_that_is_not_up_yet() -> None:
    register("later", "--openai", "http://127.0.0.1:9/v1", "--model", "m", "--no-check")
    assert EvalModel.objects.get(name="later").kind == "openai"
