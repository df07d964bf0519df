"""The DuConv demos `make run` serves, each a graph written for the project and a campaign whose
rooms generate goals from it: English films (collect/tasktypes/duconv/data/demo_films.tsv) and the same films
and people in Chinese, with some Chinese films (collect/tasktypes/duconv/data/demo_films_zh.tsv), as DuConv's
own collection was run in Chinese."""

from __future__ import annotations

from typing import Callable

from pathlib import Path

from django.core.management import call_command

from collect.models import Campaign

from collect.tasktypes.duconv import NAME
from retrieval.models import KnowledgeSource

GRAPHS = Path(__file__).resolve().parent / "data"

DEMO_SLUG = "duconv-demo"
DEMO_SOURCE = "films-demo"
DEMO_TSV = GRAPHS / "demo_films.tsv"

ZH_DEMO_SLUG = "duconv-zh-demo"
ZH_DEMO_SOURCE = "films-zh-demo"
ZH_DEMO_TSV = GRAPHS / "demo_films_zh.tsv"
# The language the Chinese demo's worker screens are shown in (a Django language code), for the
# campaign's language setting; its graph's language (for word segmentation) is "zh".
ZH_DEMO_LANGUAGE = "zh-hans"

# The original's conversations: 4 to 8 turns each.
TURNS = {"min_turns": 4, "max_turns": 8, "turn_limit": 8}


def duconv_demo_ensure() -> Campaign:
    source = _graph_ensure(slug=DEMO_SOURCE, tsv=DEMO_TSV, name="Films (demo graph)", language="en")
    return _campaign_ensure(
        slug=DEMO_SLUG,
        source=source,
        name="DuConv: goal-driven film chat (demo)",
        instructions=(
            "The agent leads the chat from small talk to topic A and then to topic B, using the "
            "facts on their screen and marking the ones each message uses. The user just chats."
        ),
    )


def duconv_zh_demo_ensure() -> Campaign:
    source = _graph_ensure(slug=ZH_DEMO_SOURCE, tsv=ZH_DEMO_TSV, name="电影知识图谱（演示）", language="zh")
    return _campaign_ensure(
        slug=ZH_DEMO_SLUG,
        source=source,
        name="目标驱动的电影对话（中文演示）",
        instructions=(
            "引导者根据屏幕上的知识，把对话从闲聊自然地引到话题A，再引到话题B，"
            "并标出每条消息用到的知识。用户只需自然地聊天。"
        ),
        language=ZH_DEMO_LANGUAGE,
    )


def _graph_ensure(*, slug: str, tsv: Path, name: str, language: str) -> KnowledgeSource:
    source = KnowledgeSource.objects.filter(slug=slug).first()
    if source is None or not source.triples.exists():
        call_command("import_knowledge", "triples", str(tsv), source=slug, name=name, language=language, verbosity=0)
        source = KnowledgeSource.objects.get(slug=slug)
    return source


def _campaign_ensure(*, slug: str, source: KnowledgeSource, name: str, instructions: str, language: str = "en") -> Campaign:
    campaign, _ = Campaign.objects.get_or_create(
        slug=slug,
        defaults={"name": name, "protocol": NAME, "knowledge_source": source, "instructions": instructions,
                  "language": language, **TURNS},
    )
    return campaign


def demo_ensure(*, wiki: KnowledgeSource, say: Callable[[str], object]) -> None:
    """The registry's demo: DuConv over its own small film graphs, in English and in Chinese
    (`wiki` is not used: DuConv's knowledge is a graph of triples)."""
    duconv = duconv_demo_ensure()
    say(f"DuConv demo ready: {duconv.knowledge_source.triples.count()} triples, campaign '{duconv.slug}'")
    duconv_zh = duconv_zh_demo_ensure()
    say(f"DuConv Chinese demo ready: {duconv_zh.knowledge_source.triples.count()} triples, campaign '{duconv_zh.slug}'")
