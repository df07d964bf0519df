"""Read-only records of model-chat conversations, for analysis (eval_report), exports and pages.

The interface is stable: `modelchat_conversations` returns one `Conversation` per room, whatever its
arm. In every conversation the human under study (the evaluator, room role "apprentice") talks to a
partner (room role "wizard"): a registered model, or in the control arm another person. In the
DuConv variant the partner is DuConv's agent and the record carries the goal, its knowledge, the
triples each model turn used and the conversation's automatic goal completion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from collect.tasktypes.duconv.completion import goal_completion
from collect.tasktypes.modelchat.config import ConfigError, ModelChatConfig, config_for
from collect.tasktypes.modelchat.models import HUMAN_ARM, ModelCandidate, ModelChat, ModelTurn
from collect.models import Assignment, Campaign, Message, RoomStatus
from collect.tasktypes.modelchat import NAME
from collect.tasktypes.duconv.models import DuConvSession

EVALUATOR_ROLE = "apprentice"
PARTNER_ROLE = "wizard"


@dataclass(frozen=True)
class Candidate:
    """One of several models' replies to an evaluator's message (protocol_config.prism)."""

    position: int  # its place among those shown, from 0
    model: str
    text: str  # the apology when the model failed (then it was not shown)
    error: str
    rating: int | None  # the evaluator's 1–5, when given
    picked: bool
    latency_ms: int
    first_token_ms: int | None


@dataclass(frozen=True)
class Turn:
    seq: int  # 1, 2, ... within the conversation
    speaker: str  # "human" (the evaluator) or "model" (the partner seat, a person in the control arm)
    text: str
    problems: tuple[str, ...] | None  # model turns of the model arm: the evaluator's labels, ("none",) or problem keys
    latency_ms: int | None  # model turns of the model arm: the model's response time
    error: str  # model turns: "" or why the model failed (the text is then an apology)
    checked_sentence: str | None  # partner turns: the knowledge sentence used, "no_passages_used", or None
    knowledge_used: tuple[int, ...] | None = None  # DuConv model turns: ids of the triples used; None when not said
    model: str | None = None  # model turns of the model arm: the model that made it (the picked one's, with several)
    first_token_ms: int | None = None  # model turns: the turn's start to the reply's first text (None: no reply)
    candidates: tuple[Candidate, ...] | None = None  # several models per turn: every reply to the message before


@dataclass(frozen=True)
class Conversation:
    room_id: str
    campaign: str  # slug
    arm: str  # "model" or "human"
    model: str  # the registered model's name, or "human" for the control arm
    topic: str
    seen: bool | None  # topic seen in training (campaign's unseen_topics); None when no topic was chosen
    persona: str
    status: str  # room status: "complete", "rating", "incomplete", ...
    answers: dict[str, int]  # final questions, {} when not answered
    turns: tuple[Turn, ...]
    topic_passage: tuple[str, ...]  # the topic article's first sentences (Wiki F1 reference)
    worker: str  # the evaluator's pseudonym
    created: datetime
    # The DuConv variant (None otherwise): the goal [["START", a, b], relations...], its knowledge
    # triples, and goal completion 0–2 (collect/tasktypes/duconv/completion.py) from the turns' marks.
    goal: list[list[str]] | None = None
    knowledge: list[list[str]] | None = None
    goal_completion: int | None = None
    prism: tuple[str, ...] = ()  # the models answering each message side by side; (): one model

    @property
    def model_utterances(self) -> list[str]:
        return [t.text for t in self.turns if t.speaker == "model"]

    @property
    def latencies_ms(self) -> list[int]:
        return [t.latency_ms for t in self.turns if t.latency_ms is not None]

    @property
    def turn_problems(self) -> list[tuple[str, ...] | None]:
        """Per model turn, in order: its labels, or None when it was not labelled."""
        return [t.problems for t in self.turns if t.speaker == "model"]


def modelchat_conversations(
    *, campaigns: Sequence[str] = (), statuses: Sequence[str] = (RoomStatus.COMPLETE,)
) -> list[Conversation]:
    """Conversations of model-chat campaigns (these slugs; all when empty) whose room status is one
    of `statuses` (default: complete, i.e. chatted and answered), oldest first."""
    chats = ModelChat.objects.select_related("room__campaign", "room__persona", "model").filter(
        room__campaign__protocol=NAME
    )
    if campaigns:
        chats = chats.filter(room__campaign__slug__in=list(campaigns))
    if statuses:
        chats = chats.filter(room__status__in=list(statuses))
    chats = list(chats.order_by("room__created", "room_id"))
    room_ids = [c.room_id for c in chats]
    messages: dict[object, list[Message]] = {}
    for message in Message.objects.filter(room_id__in=room_ids).select_related("sender__worker").order_by("room_id", "seq"):
        messages.setdefault(message.room_id, []).append(message)
    turns = {t.message_id: t for t in ModelTurn.objects.filter(message__room_id__in=room_ids).select_related("model")}
    candidates: dict[tuple[object, int], list[ModelCandidate]] = {}
    for candidate in ModelCandidate.objects.filter(room_id__in=room_ids).select_related("model").order_by("position"):
        candidates.setdefault((candidate.room_id, candidate.after_seq), []).append(candidate)
    evaluators = dict(
        Assignment.objects.filter(room_id__in=room_ids, role=EVALUATOR_ROLE).values_list("room_id", "worker__pseudonym")
    )
    sessions = {s.room_id: s for s in DuConvSession.objects.filter(room_id__in=room_ids)}
    return [
        _record(chat, messages.get(chat.room_id, []), turns, evaluators.get(chat.room_id, ""), sessions.get(chat.room_id), candidates)
        for chat in chats
    ]


def _record(
    chat: ModelChat, messages: list[Message], turns: dict[int, ModelTurn], worker: str, session: DuConvSession | None,
    candidates: dict[tuple[object, int], list[ModelCandidate]],
) -> Conversation:
    room = chat.room
    duconv: dict[str, object] = {}
    if session is not None:
        texts, marks = [m.text for m in messages], [m.knowledge_used for m in messages]
        duconv = {
            "goal": session.goal,
            "knowledge": session.knowledge,
            "goal_completion": goal_completion(session.goal, session.knowledge, texts, marks),
        }
    return Conversation(
        room_id=str(room.id),
        campaign=room.campaign.slug,
        arm=chat.arm,
        model=chat.model.name if chat.model_id else HUMAN_ARM,
        topic=session.goal[0][1] if session is not None else room.topic,  # DuConv: topic A
        seen=chat.seen,
        persona=room.persona.text if room.persona_id else "",
        status=room.status,
        answers=dict(chat.answers or {}),
        turns=tuple(_turn(m, turns.get(m.pk), candidates.get((m.room_id, m.seq - 1))) for m in messages),
        topic_passage=tuple(room.topic_passage or ()),
        worker=worker,
        created=room.created,
        prism=_prism(room.campaign) if chat.model_id else (),
        **duconv,  # type: ignore[arg-type]
    )


def _prism(campaign: Campaign) -> tuple[str, ...]:
    try:
        return config_for(campaign).prism
    except ConfigError:
        return ()  # an export still reads a campaign whose settings were broken later


def _turn(message: Message, model_turn: ModelTurn | None, candidates: list[ModelCandidate] | None) -> Turn:
    checked = next(iter(message.checked_sentence.values())) if message.checked_sentence else None
    return Turn(
        seq=message.seq,
        speaker="human" if message.role == EVALUATOR_ROLE else "model",
        text=message.text,
        problems=tuple(model_turn.problems) if model_turn and model_turn.problems is not None else None,
        latency_ms=model_turn.latency_ms if model_turn else None,
        error=model_turn.error if model_turn else "",
        checked_sentence=checked,
        knowledge_used=tuple(message.knowledge_used) if message.knowledge_used is not None else None,
        model=model_turn.model.name if model_turn else None,
        first_token_ms=model_turn.first_token_ms if model_turn else None,
        candidates=tuple(
            Candidate(c.position, c.model.name, c.text, c.error, c.rating, c.picked, c.latency_ms, c.first_token_ms) for c in candidates
        ) if candidates and model_turn else None,
    )


def modelchat_settings(*, campaign: Campaign) -> ModelChatConfig:
    """The campaign's parsed settings: models and counts, control, unseen topics, problem labels,
    final questions (raises config.ConfigError on a bad config)."""
    return config_for(campaign)
