"""A model-chat campaign's settings, read from Campaign.protocol_config:

    {"models": {"kb-retrieval": 20, "tfidf-reply": 20, "no-knowledge": 20},
     "control": 20,
     "unseen_topics": ["Jazz", "Tea"],
     "problems": ["contradiction", "repetitive", "off_topic", "nonsensical", "incorrect"],
     "questions": [{"key": "engagingness", "text": "...", "min": 1, "max": 5,
                    "anchors": {"1": "Not at all", "5": "Very much"}}],
     "onboarding_attempts": 3}

With `"duconv": {...}` (DuConv settings, collect/tasktypes/duconv/config.py; `{}` for the defaults) the campaign
is the DuConv variant: each room gets a DuConv goal from the campaign's knowledge graph, the model is
the agent and speaks first, and the evaluator is the user (no topic choice, no persona); it has no
human control arm. `unseen_topics` then names graph entities: a conversation is unseen when either
goal topic is listed.

`models` maps registered model names to the conversations each needs; `control` is the number of
human–human control conversations (0: no control arm). Topics come from the campaign's personas; a
topic is "seen" unless listed in `unseen_topics`. `problems` may be [] (no per-turn labels); the
worker's explicit "none" is always offered besides them. Turns are the campaign's min/max_turns.
A question's `anchors` name points of its scale in words (shown under the numbers); by default a
1–5 scale has words on every point (DEFAULT_ANCHORS) and any other scale on its two ends.

With `"prism": {"models": ["kb-retrieval", "tfidf-reply", "no-knowledge"]}` (2–4 registered
models, every model of `models` among them) each of the evaluator's messages gets a reply from
every one of them, shown side by side in an order drawn per turn without the models' names; the
evaluator picks one (and may rate each 1–5) and the chat goes on with the picked reply (after
PRISM, Kirk et al. 2024; prism.py). Not in the DuConv variant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_noop

from collect.tasktypes.duconv import config as duconv_config
from collect.models import Campaign
from collect.rating_scale import SCALE_WORDS

NONE_LABEL = "none"
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
DEFAULT_PROBLEMS = ("contradiction", "repetitive", "off_topic", "nonsensical", "incorrect")
# Marked for the catalogs: the worker pages show them translated (collect/tasktypes/modelchat/static/modelchat/room.js looks them up).
PROBLEM_TEXTS = {
    "contradiction": gettext_noop("Contradicts itself or the conversation"),
    "repetitive": gettext_noop("Repeats itself"),
    "off_topic": gettext_noop("Off topic or ignores what I said"),
    "nonsensical": gettext_noop("Nonsensical or hard to understand"),
    "incorrect": gettext_noop("Factually incorrect"),
}
DEFAULT_QUESTIONS = (
    {"key": "engagingness", "text": gettext_noop("How much did you enjoy talking to your partner?"), "min": 1, "max": 5},
)
DEFAULT_ONBOARDING_ATTEMPTS = 3
DEFAULT_ANCHORS = SCALE_WORDS  # a 1–5 scale, low to high: the words of every rating scale
MAX_ANCHOR_CHARS = 40


class ConfigError(ValueError):
    """The campaign's protocol_config is not a valid model-chat config; says what is wrong."""


@dataclass(frozen=True)
class Question:
    key: str
    text: str
    low: int = 1
    high: int = 5
    anchors: tuple[tuple[int, str], ...] = tuple(enumerate(DEFAULT_ANCHORS, start=1))  # (point, words), low to high

    def anchor_map(self) -> dict[str, str]:
        """{"1": "Not at all", ...}: the anchors as JSON has them."""
        return {str(point): words for point, words in self.anchors}


@dataclass(frozen=True)
class ModelChatConfig:
    models: dict[str, int]
    control: int
    unseen_topics: frozenset[str]
    problems: tuple[str, ...]
    questions: tuple[Question, ...]
    onboarding_attempts: int
    duconv: duconv_config.DuConvConfig | None = None  # the DuConv variant's settings; None: Wizard of Wikipedia
    prism: tuple[str, ...] = ()  # the models answering every message side by side; (): one model per room

    def problem_text(self, key: str) -> str:
        return PROBLEM_TEXTS.get(key, key.replace("_", " ").capitalize())


def _count(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"protocol_config.{where} must be a whole number of at least 0, not {value!r}")
    return value


def config_for(campaign: Campaign) -> ModelChatConfig:
    raw = campaign.protocol_config or {}
    if not isinstance(raw, dict):
        raise ConfigError("protocol_config must be a JSON object")
    models = raw.get("models", {})
    if not isinstance(models, dict) or not all(isinstance(k, str) and k for k in models):
        raise ConfigError('protocol_config.models must map model names to conversation counts, e.g. {"kb-retrieval": 20}')
    counts = {name: _count(n, f"models.{name}") for name, n in models.items()}
    control = _count(raw.get("control", 0), "control")
    if not any(counts.values()) and not control:
        raise ConfigError("protocol_config needs at least one conversation: some models with counts, or a control")
    unseen = raw.get("unseen_topics", [])
    if not isinstance(unseen, list) or not all(isinstance(t, str) for t in unseen):
        raise ConfigError("protocol_config.unseen_topics must be a list of topic titles")
    problems = raw.get("problems", list(DEFAULT_PROBLEMS))
    if not isinstance(problems, list) or not all(isinstance(p, str) and KEY_PATTERN.match(p) for p in problems):
        raise ConfigError("protocol_config.problems must be a list of keys like 'off_topic' (lowercase, digits, _)")
    if NONE_LABEL in problems or len(set(problems)) != len(problems):
        raise ConfigError(f"protocol_config.problems must be distinct and must not hold {NONE_LABEL!r} (always offered)")
    questions = tuple(_question(q, i) for i, q in enumerate(raw.get("questions", DEFAULT_QUESTIONS)))
    if not questions or len({q.key for q in questions}) != len(questions):
        raise ConfigError("protocol_config.questions must be a non-empty list with distinct keys")
    attempts = _count(raw.get("onboarding_attempts", DEFAULT_ONBOARDING_ATTEMPTS), "onboarding_attempts")
    duconv = _duconv(raw, control)
    prism = _prism(raw, counts, duconv)
    return ModelChatConfig(
        models=counts,
        control=control,
        unseen_topics=frozenset(t.strip() for t in unseen),
        problems=tuple(problems),
        questions=questions,
        onboarding_attempts=attempts,
        duconv=duconv,
        prism=prism,
    )


PRISM_MODELS = (2, 4)  # the fewest and the most replies shown per message


def _prism(raw: dict[str, Any], counts: dict[str, int], duconv: Any) -> tuple[str, ...]:
    if "prism" not in raw:
        return ()
    setting, (low, high) = raw["prism"], PRISM_MODELS
    example = '{"models": ["kb-retrieval", "tfidf-reply"]}'
    if not isinstance(setting, dict) or set(setting) != {"models"}:
        raise ConfigError(f"protocol_config.prism must be an object with one key, models, e.g. {example}")
    models = setting["models"]
    if not isinstance(models, list) or not all(isinstance(m, str) and m.strip() for m in models):
        raise ConfigError(f"protocol_config.prism.models must be a list of registered model names, e.g. {example}")
    if not low <= len(models) <= high or len(set(models)) != len(models):
        raise ConfigError(f"protocol_config.prism.models must name {low} to {high} different models, not {len(models)}: {models}")
    outside = sorted(name for name, n in counts.items() if n and name not in models)
    if outside:
        raise ConfigError(f"protocol_config.prism.models must include every model of protocol_config.models; missing: {', '.join(outside)}")
    if duconv is not None:
        raise ConfigError("protocol_config.prism is not available in the DuConv variant (its model opens the chat alone)")
    return tuple(models)


def _duconv(raw: dict[str, Any], control: int) -> duconv_config.DuConvConfig | None:
    if "duconv" not in raw:
        return None
    try:
        settings = duconv_config.config_parse(raw["duconv"])
    except duconv_config.ConfigError as error:
        raise ConfigError(f"protocol_config.duconv: {error}") from error
    if control:
        # A human control would sit in the agent's seat, which needs the DuConv agent's screen.
        raise ConfigError("protocol_config.control must be 0 in a DuConv model chat: its partner is always a model")
    return settings


def _question(item: Any, index: int) -> Question:
    where = f"protocol_config.questions[{index}]"
    if not isinstance(item, dict) or not isinstance(item.get("key"), str) or not KEY_PATTERN.match(item["key"]):
        raise ConfigError(f"{where} must be an object with a 'key' like 'engagingness'")
    text = item.get("text", item["key"].capitalize())
    low, high = item.get("min", 1), item.get("max", 5)
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"{where}.text must be a non-empty string")
    for value in (low, high):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"{where}.min and .max must be whole numbers")
    if low >= high:
        raise ConfigError(f"{where}.min must be below .max")
    return Question(item["key"], text.strip(), low, high, _anchors(item.get("anchors"), low, high, where))


def _anchors(raw: Any, low: int, high: int, where: str) -> tuple[tuple[int, str], ...]:
    if raw is None:
        if (low, high) == (1, len(DEFAULT_ANCHORS)):
            return tuple(enumerate(DEFAULT_ANCHORS, start=1))
        return ((low, DEFAULT_ANCHORS[0]), (high, DEFAULT_ANCHORS[-1]))
    if not isinstance(raw, dict) or not raw:
        raise ConfigError(f'{where}.anchors must map points of the scale to words, e.g. {{"{low}": "Not at all", "{high}": "Very much"}}')
    anchors = {}
    for point, words in raw.items():
        number = int(point) if isinstance(point, str) and point.lstrip("-").isdigit() else None
        if number is None or not low <= number <= high:
            raise ConfigError(f"{where}.anchors: {point!r} is not a point of the {low}–{high} scale")
        if not isinstance(words, str) or not words.strip() or len(words.strip()) > MAX_ANCHOR_CHARS:
            raise ConfigError(f"{where}.anchors[{point!r}] must be words of 1–{MAX_ANCHOR_CHARS} characters")
        anchors[number] = words.strip()
    return tuple(sorted(anchors.items()))


def config_errors(campaign: Campaign) -> list[str]:
    """What is wrong with a model-chat campaign's settings (empty when it can run). The DuConv
    variant also needs goals from the campaign's knowledge source (checked when it has one)."""
    from collect.tasktypes.modelchat.models import EvalModel

    try:
        config = config_for(campaign)
    except ConfigError as error:
        return [str(error)]
    known = set(EvalModel.objects.filter(name__in=[*config.models, *config.prism], is_active=True).values_list("name", flat=True))
    errors = [f"protocol_config.models: no active registered model named {name!r}" for name in config.models if name not in known]
    errors += [f"protocol_config.prism.models: no active registered model named {name!r}" for name in config.prism if name not in known]
    if config.duconv is not None and campaign.knowledge_source_id is not None:
        problems = duconv_config.config_problems(config.duconv, source_id=campaign.knowledge_source_id)
        errors += [f"protocol_config.duconv: {problem}" for problem in problems]
    return errors
