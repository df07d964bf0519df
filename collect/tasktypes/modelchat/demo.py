"""The demo model-chat campaigns `make run` serves: beside the WoW demo, the three built-in models
(and SmolLM2, a trained model, when its package is installed: demo_local.py), a human control arm,
the WoW demo personas and a few topics marked unseen; beside the DuConv demo, its DuConv variant on
the demo film graph with the DuConv agent bot and the no-knowledge baseline, in English and, on the
Chinese graph, in Chinese."""

from __future__ import annotations

from typing import Callable

from collect.tasktypes.wow.demo import PERSONAS
from collect.tasktypes.duconv.demo import ZH_DEMO_LANGUAGE
from collect.tasktypes.modelchat.bots import BUILT_IN, BUILT_IN_DUCONV, builtin_models_ensure
from collect.tasktypes.modelchat.models import EvalModel
from collect.models import Campaign, Persona
from collect.tasktypes.modelchat import NAME
from collect.tasktypes.duconv.demo import duconv_demo_ensure, duconv_zh_demo_ensure
from collect.tasktypes.modelchat.demo_local import smollm2_ensure
from retrieval.models import KnowledgeSource

DEMO_SLUG = "modelchat-demo"
DUCONV_DEMO_SLUG = "modelchat-duconv-demo"
DUCONV_ZH_DEMO_SLUG = "modelchat-duconv-zh-demo"
UNSEEN = ["Jazz", "Tea", "Mars", "Volcano", "Chess", "Bread", "Basketball", "Dinosaur", "Horse", "Star Wars"]


def modelchat_demo_ensure(*, source: KnowledgeSource, local_model: EvalModel | None = None) -> Campaign:
    """`local_model`: a trained model (demo_local.py) evaluated beside the built-in ones."""
    builtin_models_ensure()
    campaign, created = Campaign.objects.get_or_create(
        slug=DEMO_SLUG,
        defaults={
            "name": "Model chat (demo)",
            "protocol": NAME,
            "knowledge_source": source,
            "min_turns": 3,
            "max_turns": 5,
            "turn_limit": 5,
            "protocol_config": {"models": {name: 20 for name in BUILT_IN}, "control": 10, "unseen_topics": UNSEEN},
            "instructions": (
                "Pick a topic and chat with your partner about it. After each of your partner's messages, "
                "tick the problems you see in it (or 'None'). At the end, tell us how much you enjoyed the chat."
            ),
        },
    )
    if created:
        Persona.objects.bulk_create(Persona(campaign=campaign, text=t, topics=topics) for t, topics in PERSONAS)
    models = campaign.protocol_config.get("models", {})
    if local_model is not None and local_model.name not in models:
        campaign.protocol_config = {**campaign.protocol_config, "models": {**models, local_model.name: 20}}
        campaign.save(update_fields=["protocol_config"])
    return campaign


def modelchat_duconv_demo_ensure(*, source: KnowledgeSource, chinese: bool = False) -> Campaign:
    """`source`: a DuConv demo's film graph (`chinese`: the Chinese one). Rooms generate their goals from it."""
    builtin_models_ensure()
    config = {"models": {**{name: 20 for name in BUILT_IN_DUCONV}, "no-knowledge": 20}, "duconv": {}}
    if chinese:
        slug, name = DUCONV_ZH_DEMO_SLUG, "模型对话评测：目标驱动的电影对话（中文演示）"
        instructions = "和对方自然地聊天：对方先开口。对方每说一句话后，勾选你看到的问题（或“没有问题”）。最后告诉我们你有多喜欢这次对话。"
    else:
        slug, name = DUCONV_DEMO_SLUG, "Model chat, DuConv (demo)"
        instructions = (
            "Chat naturally with your partner: they open the conversation. After each of your partner's messages, "
            "tick the problems you see in it (or 'None'). At the end, tell us how much you enjoyed the chat."
        )
    turns = {"min_turns": 3, "max_turns": 4, "turn_limit": 6}
    campaign, _ = Campaign.objects.get_or_create(slug=slug, defaults={
        "name": name, "protocol": NAME, "knowledge_source": source, "language": ZH_DEMO_LANGUAGE if chinese else "en",
        "protocol_config": config, "instructions": instructions, **turns})
    return campaign


def demo_ensure(*, wiki: KnowledgeSource, say: Callable[[str], object]) -> None:
    """The registry's demo: model chats with the built-in bots and SmolLM2 (when its package is
    installed) over the demo knowledge, and the DuConv variants over the DuConv demo graphs."""
    modelchat_demo_ensure(source=wiki, local_model=smollm2_ensure(say=say))
    duconv_chat = modelchat_duconv_demo_ensure(source=duconv_demo_ensure().knowledge_source)
    say(f"DuConv model-chat demo ready: campaign '{duconv_chat.slug}'")
    duconv_zh_chat = modelchat_duconv_demo_ensure(source=duconv_zh_demo_ensure().knowledge_source, chinese=True)
    say(f"DuConv Chinese model-chat demo ready: campaign '{duconv_zh_chat.slug}'")
