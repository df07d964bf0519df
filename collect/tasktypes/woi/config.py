"""A Wizard of Internet campaign's settings (Campaign.protocol_config), with the original
collection's values as defaults (ParlAI's `wizard_of_internet` crowdsourcing project: 180 s for the
wizard's turn, 120 s for the apprentice's, five documents per search):

    {
      "wizard_turn_timeout_s": 180,      the wizard's time for a reply (searches included)
      "apprentice_turn_timeout_s": 120,  the apprentice's time for a reply
      "persona_timeout_s": 180,          the apprentice's time to write their persona
      "search": {
        "backend": "store",              "store": the campaign's knowledge source (its TF-IDF index);
                                         "http": a search server speaking ParlAI's contract
        "url": "",                       the http backend's address (http:// or https://)
        "documents": 5,                  documents asked for and shown per search (1-20)
        "timeout_s": 5,                  a search slower than this fails (0.5-60 s)
        "url_template": "https://{language}.wikipedia.org/wiki/{title}"
                                         the store backend's document url ({title}: the article's
                                         title with underscores, percent-encoded; {language}: the
                                         knowledge source's language)
      },
      "persona": {
        "template_share": 0.7,           share of apprentices who fill in a template persona; the
                                         others pick one of three curated personas
        "topics": [["book", "author"], ...],   the template's topic bundles (two offered)
        "curated": ["*I like farmers markets.", ...],  curated personas; "*": it needs a location
        "locations": ["Austin, Texas", ...],   where a "*" persona lives (one drawn)
        "max_uses": 0                    how often one persona may be used in the campaign (0: no cap)
      }
    }

Every key is optional. `config_of` raises ConfigError naming the key and the value at fault; the
admin shows it (Protocol.config_problems). A live room reads `config_for`, which never raises: a
bad setting stored by other means keeps the defaults, and a bad search setting makes the searches
fail with its message, never a search of another source than the one asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from collect.models import Campaign
from collect.tasktypes.woi.personas import CURATED, LOCATIONS, TOPIC_BUNDLES

BACKENDS = ("store", "http")
TIMEOUT_RANGE = (10, 86_400)  # a turn's seconds
# The original collection's (ParlAI's wizard_of_internet dev.yaml and worlds.py).
TIMEOUT_DEFAULTS = {"wizard_turn_timeout_s": 180, "apprentice_turn_timeout_s": 120, "persona_timeout_s": 180}
SEARCH_TIMEOUT_RANGE = (0.5, 60.0)
MAX_DOCUMENTS = 20
DEFAULT_URL_TEMPLATE = "https://{language}.wikipedia.org/wiki/{title}"


class ConfigError(ValueError):
    """protocol_config holds a value the task type cannot use; says which and why."""


@dataclass(frozen=True)
class SearchConfig:
    backend: str = "store"
    url: str = ""
    documents: int = 5
    timeout_s: float = 5.0
    url_template: str = DEFAULT_URL_TEMPLATE
    broken: str = ""  # why the campaign's search setting cannot be used ("" when it can)


@dataclass(frozen=True)
class PersonaConfig:
    template_share: float = 0.7
    topics: tuple[tuple[str, ...], ...] = TOPIC_BUNDLES
    curated: tuple[str, ...] = CURATED
    locations: tuple[str, ...] = LOCATIONS
    max_uses: int = 0


@dataclass(frozen=True)
class WoiConfig:
    wizard_turn_timeout_s: int = 180
    apprentice_turn_timeout_s: int = 120
    persona_timeout_s: int = 180
    search: SearchConfig = field(default_factory=SearchConfig)
    persona: PersonaConfig = field(default_factory=PersonaConfig)


def config_of(raw: Any) -> WoiConfig:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError("protocol_config must be a JSON object")
    known = {"wizard_turn_timeout_s", "apprentice_turn_timeout_s", "persona_timeout_s", "search", "persona", "review_words"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(f"protocol_config has no setting {unknown[0]!r} (known: {', '.join(sorted(known))})")
    timeouts = {key: _seconds(raw, key, default) for key, default in TIMEOUT_DEFAULTS.items()}
    return WoiConfig(**timeouts, search=_search(raw.get("search", {})), persona=_persona(raw.get("persona", {})))


def config_for(campaign: Campaign) -> WoiConfig:
    """The campaign's settings for a live room: never raises (see the module's docstring)."""
    try:
        return config_of(campaign.protocol_config)
    except ConfigError as error:
        return WoiConfig(search=SearchConfig(broken=f"the campaign's settings cannot be used: {error}"))


def timeout_for(campaign: Campaign, key: str) -> int:
    """One of the campaign's turn timeouts (a key of TIMEOUT_DEFAULTS), its default when unset or
    unusable. Read for every state frame of a room, so it reads that key alone, not the whole
    config (config_for takes some 75 µs)."""
    raw = campaign.protocol_config
    try:
        return _seconds(raw, key, TIMEOUT_DEFAULTS[key]) if isinstance(raw, dict) else TIMEOUT_DEFAULTS[key]
    except ConfigError:
        return TIMEOUT_DEFAULTS[key]


def config_problems(campaign: Campaign) -> list[str]:
    try:
        config_of(campaign.protocol_config)
    except ConfigError as error:
        return [str(error)]
    return []


def _seconds(raw: dict[str, Any], key: str, default: int) -> int:
    value = raw.get(key, default)
    low, high = TIMEOUT_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"protocol_config.{key} must be a whole number of seconds from {low} to {high}, not {value!r}")
    return value


def _search(raw: Any) -> SearchConfig:
    if not isinstance(raw, dict):
        raise ConfigError("protocol_config.search must be a JSON object")
    unknown = sorted(set(raw) - {"backend", "url", "documents", "timeout_s", "url_template"})
    if unknown:
        raise ConfigError(f"protocol_config.search has no setting {unknown[0]!r}")
    backend = raw.get("backend", "store")
    if backend not in BACKENDS:
        raise ConfigError(f"protocol_config.search.backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    url = raw.get("url", "")
    if not isinstance(url, str):
        raise ConfigError(f"protocol_config.search.url must be a string, not {url!r}")
    if backend == "http":
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"protocol_config.search.url must be an http:// or https:// address with a host, not {url!r}")
    documents = raw.get("documents", 5)
    if isinstance(documents, bool) or not isinstance(documents, int) or not 1 <= documents <= MAX_DOCUMENTS:
        raise ConfigError(f"protocol_config.search.documents must be a whole number from 1 to {MAX_DOCUMENTS}, not {documents!r}")
    timeout = raw.get("timeout_s", 5.0)
    low, high = SEARCH_TIMEOUT_RANGE
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not low <= timeout <= high:
        raise ConfigError(f"protocol_config.search.timeout_s must be a number of seconds from {low:g} to {high:g}, not {timeout!r}")
    template = raw.get("url_template", DEFAULT_URL_TEMPLATE)
    if not isinstance(template, str) or "{title}" not in template:
        raise ConfigError(f"protocol_config.search.url_template must be a string holding {{title}}, not {template!r}")
    try:
        template.format(title="t", language="en")
    except (KeyError, IndexError, ValueError) as error:
        raise ConfigError(f"protocol_config.search.url_template may name only {{title}} and {{language}}: {error}") from None
    return SearchConfig(backend=backend, url=url, documents=documents, timeout_s=float(timeout), url_template=template)


def _persona(raw: Any) -> PersonaConfig:
    if not isinstance(raw, dict):
        raise ConfigError("protocol_config.persona must be a JSON object")
    unknown = sorted(set(raw) - {"template_share", "topics", "curated", "locations", "max_uses"})
    if unknown:
        raise ConfigError(f"protocol_config.persona has no setting {unknown[0]!r}")
    share = raw.get("template_share", 0.7)
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
        raise ConfigError(f"protocol_config.persona.template_share must be a number from 0 to 1, not {share!r}")
    topics = raw.get("topics", [list(bundle) for bundle in TOPIC_BUNDLES])
    if not isinstance(topics, list) or len(topics) < 2 or not all(
        isinstance(b, list) and b and all(isinstance(t, str) and t.strip() for t in b) for b in topics
    ):
        raise ConfigError("protocol_config.persona.topics must be a list of at least two bundles, each a list of topic words")
    curated = _strings(raw, "curated", list(CURATED), least=3)
    locations = _strings(raw, "locations", list(LOCATIONS), least=1)
    if share < 1 and any(p.startswith("*") for p in curated) and not locations:
        raise ConfigError("protocol_config.persona.locations must not be empty while a curated persona needs one")
    uses = raw.get("max_uses", 0)
    if isinstance(uses, bool) or not isinstance(uses, int) or uses < 0:
        raise ConfigError(f"protocol_config.persona.max_uses must be a whole number, 0 for no cap, not {uses!r}")
    return PersonaConfig(
        template_share=float(share), topics=tuple(tuple(t.strip() for t in b) for b in topics),
        curated=tuple(curated), locations=tuple(locations), max_uses=uses,
    )


def _strings(raw: dict[str, Any], key: str, default: list[str], *, least: int) -> list[str]:
    value = raw.get(key, default)
    if not isinstance(value, list) or len(value) < least or not all(isinstance(v, str) and v.strip("* ") for v in value):
        raise ConfigError(f"protocol_config.persona.{key} must be a list of at least {least} non-empty strings")
    return [v.strip() for v in value]
