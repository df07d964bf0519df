"""What can be known about an OpenAI-compatible endpoint when its model is registered: the key's
environment variable is set, the server answers, and it takes the key. Problems refuse the
registration; notes (no model list, the model not in it) are only shown."""

from __future__ import annotations

from dataclasses import dataclass, field

import openai

from collect.tasktypes.modelchat.openai_adapter import NO_KEY, key_redacted
from collect.tasktypes.modelchat.openai_options import api_key_read


@dataclass
class EndpointCheck:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def endpoint_check(*, base_url: str, model: str, api_key_env: str | None, timeout: float = 5.0) -> EndpointCheck:
    check = EndpointCheck()
    key = NO_KEY
    if api_key_env:
        key = api_key_read(api_key_env)
        if not key:
            check.problems.append(f"the environment variable {api_key_env} is not set (it must hold the endpoint's API key)")
            return check
    client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=timeout)
    try:
        served = [m.id for m in client.models.list()]
    except openai.AuthenticationError as error:
        whose = f"the key in {api_key_env}" if api_key_env else "requests without a key (give --api-key-env)"
        check.problems.append(f"{base_url} refused {whose} (HTTP {error.status_code})")
    except openai.APIStatusError as error:
        check.notes.append(f"{base_url}/models answered HTTP {error.status_code}: the model name was not checked")
    except openai.APITimeoutError:
        check.problems.append(f"{base_url} did not answer within {timeout:g} s (start the server first, or pass --no-check)")
    except openai.APIConnectionError as error:
        cause = key_redacted(str(error.__cause__ or error), key)[:200]
        check.problems.append(f"cannot reach {base_url}: {cause} (start the server first, or pass --no-check)")
    except openai.APIError as error:
        check.notes.append(f"{base_url}/models gave an unreadable answer ({type(error).__name__}): the model name was not checked")
    else:
        if model not in served:
            listed = ", ".join(served[:5]) or "none"
            check.notes.append(f"{base_url}/models does not list {model!r} (it lists: {listed}); some servers load models on demand")
    finally:
        client.close()
    return check
