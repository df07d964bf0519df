"""Built-in models, so that a model-chat campaign runs out of the box on the demo. They exist to
make evaluation runnable, not to be good. Each has `respond(context) -> reply`, with context
{"history": [utterances, oldest first], "topic": str, "knowledge": [{"title", "sentences"}]} and
reply a string or {"text", "knowledge_used"}. In the DuConv variant the context also has "goal" and
its knowledge is [[subject, property, value], ...] (GoalBot is the DuConv agent); the DuConv bots
answer in Chinese when the goal's topics are Chinese."""

from __future__ import annotations

import re
from typing import Any

from sklearn.feature_extraction.text import TfidfVectorizer

from collect.tasktypes.duconv.phrasing import triple_sentence
from retrieval.words import CJK

FALLBACK = "That's interesting! What do you like most about it?"
# Said in turn when a bot has nothing to go on, never one already said in the conversation.
FALLBACKS = (
    FALLBACK,
    "I don't have much on that, I'm afraid. What got you interested in it?",
    "Hmm, that's beyond what I know. Is there another side of it you'd like to talk about?",
    "Good question! I can't say for sure. What do you think?",
)
_HAN = re.compile(f"[{CJK}]")


def chinese(text: str) -> bool:
    return bool(_HAN.search(text))


def _said(history: list[str]) -> set[str]:
    return {h.strip().lower() for h in history}


def fallback(history: list[str]) -> dict[str, Any]:
    """The first fallback line not said yet in the conversation (the first again once all were)."""
    said = _said(history)
    return {"text": next((line for line in FALLBACKS if line.lower() not in said), FALLBACK)}


class KnowledgeBot:
    """Answers with the sentence the live ranker (GROUNDWORK_RANKER) scores best for the dialogue
    among the knowledge a wizard would see for this turn, never one it has already said."""

    def respond(self, context: dict[str, Any]) -> dict[str, Any]:
        from retrieval.rerank import passages_rank

        # Passages only: a DuConv context's knowledge is triples, which this bot does not read.
        passages = [p for p in context.get("knowledge", []) if isinstance(p, dict) and p.get("sentences")]
        if not passages:
            return fallback(context.get("history", []))
        ranked = passages_rank(context=context.get("history", []), passages=passages, topic=context.get("topic", ""))
        said = _said(context.get("history", []))
        scored = [(score, s) for p in ranked for s, score in zip(p["sentences"], p["scores"]) if s.strip().lower() not in said]
        if not scored:
            return fallback(context.get("history", []))
        best = max(scored, key=lambda pair: pair[0])[1]
        return {"text": best, "knowledge_used": best}


class TfidfKnowledgeBot:
    """Answers with the knowledge sentence most similar by TF-IDF (fitted on this turn's knowledge)
    to the evaluator's last message and the topic, never one already said. It reads only the
    knowledge a wizard would see, never other people's chats, so it cannot repeat another
    participant's words. Unlike KnowledgeBot it ignores the live ranker and the older turns."""

    def respond(self, context: dict[str, Any]) -> dict[str, Any]:
        history = context.get("history", [])
        said = _said(history)
        sentences = list(dict.fromkeys(
            s.strip()
            for p in context.get("knowledge", [])
            if isinstance(p, dict)
            for s in p.get("sentences") or []
            if isinstance(s, str) and s.strip() and s.strip().lower() not in said
        ))
        if not sentences:
            return fallback(history)
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, stop_words="english")
        try:
            matrix = vectorizer.fit_transform(sentences)
        except ValueError:  # only stop words: nothing to match on, so the first sentence (the topic's)
            return {"text": sentences[0], "knowledge_used": sentences[0]}
        query = " ".join([context.get("topic", ""), *(history[-1:])])
        scores = (vectorizer.transform([query]) @ matrix.T).toarray()[0]
        best = sentences[int(scores.argmax())]  # ties: the earliest, i.e. the topic passage first
        return {"text": best, "knowledge_used": best}


class NoKnowledgeBot:
    """A baseline without knowledge: friendly, generic, about the topic only by name."""

    LINES = (
        "I don't know much about {topic}, but it sounds fascinating. What got you interested?",
        "That's interesting! What do you like most about {topic}?",
        "Really? Tell me more about that.",
        "I see. How did you first come across {topic}?",
        "Ha, I had never thought of it that way. What else do you know about it?",
    )

    LINES_ZH = (
        "我对{topic}了解不多，不过听起来很有意思。你是怎么对它感兴趣的？",
        "真有意思！你最喜欢{topic}的哪一点？",
        "是吗？再多说一点吧。",
        "原来如此。你是怎么第一次知道{topic}的？",
        "哈哈，我从来没这么想过。你还知道些什么？",
    )

    def respond(self, context: dict[str, Any]) -> str:
        turn = sum(1 for _ in context.get("history", [])) // 2
        topic = context.get("topic") or ""
        lines = self.LINES_ZH if chinese(topic) else self.LINES
        return lines[turn % len(lines)].format(topic=topic or ("它" if lines is self.LINES_ZH else "that"))


class GoalBot:
    """A DuConv agent: each turn states one knowledge triple it has not stated yet, in the order
    that walks the goal: one triple of topic A, the goal's relation triples (naming A and B), topic
    B's triples, then the rest. It marks the triple as used."""

    def respond(self, context: dict[str, Any]) -> dict[str, Any]:
        goal, knowledge = context.get("goal"), context.get("knowledge") or []
        if not goal or not all(isinstance(t, list) and len(t) == 3 for t in knowledge):
            return fallback(context.get("history", []))
        zh = chinese(goal[0][1] + goal[0][2])
        said = _said(context.get("history", []))
        for index in self.order(goal, knowledge):
            text = self.sentence(knowledge[index], zh=zh)
            if text.lower() not in said:
                return {"text": text, "knowledge_used": [index]}
        if zh:
            return {"text": f"很高兴和你聊{goal[0][1]}和{goal[0][2]}！"}
        return {"text": f"It was nice talking about {goal[0][1]} and {goal[0][2]} with you!"}

    @staticmethod
    def order(goal: list[list[str]], knowledge: list[list[str]]) -> list[int]:
        a, b = goal[0][1], goal[0][2]
        relations = [i for i, t in enumerate(knowledge) if t in goal[1:]]
        of_a = [i for i, t in enumerate(knowledge) if t[0] == a and i not in relations]
        of_b = [i for i, t in enumerate(knowledge) if t[0] == b and i not in relations]
        first = [*of_a[:1], *relations, *of_b]
        return first + [i for i in range(len(knowledge)) if i not in first]

    @staticmethod
    def sentence(triple: list[str], *, zh: bool = False) -> str:
        return triple_sentence(triple, zh=zh)


BUILT_IN = {
    "kb-retrieval": ("collect.tasktypes.modelchat.bots.KnowledgeBot", "Best knowledge sentence for the turn (live ranker)"),
    "tfidf-reply": ("collect.tasktypes.modelchat.bots.TfidfKnowledgeBot", "Knowledge sentence most similar to the last message (TF-IDF)"),
    "no-knowledge": ("collect.tasktypes.modelchat.bots.NoKnowledgeBot", "Generic replies without knowledge (baseline)"),
}
# For DuConv model-chat campaigns (no-knowledge works there too).
BUILT_IN_DUCONV = {
    "duconv-agent": ("collect.tasktypes.modelchat.bots.GoalBot", "States the next goal triple it has not used (DuConv agent)"),
}


def builtin_models_ensure() -> list[Any]:
    """Register the built-in models (idempotent); returns them."""
    from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind

    models = []
    for name, (path, description) in {**BUILT_IN, **BUILT_IN_DUCONV}.items():
        model, created = EvalModel.objects.get_or_create(
            name=name, defaults={"kind": EvalModelKind.PYTHON, "dotted_path": path, "description": description, "timeout_seconds": 5.0}
        )
        if not created and model.kind == EvalModelKind.PYTHON and (model.dotted_path, model.description) != (path, description):
            # A built-in's class or wording may differ in an older database; its other settings stay.
            model.dotted_path, model.description = path, description
            model.save(update_fields=["dotted_path", "description"])
        models.append(model)
    return models
