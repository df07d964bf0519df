"""Model chat (protocol `model_chat`): human evaluation of a dialogue model, after the Wizard of
Wikipedia paper's §5.3 and ParlAI's model_chat.

A model-chat room is a Wizard of Wikipedia room whose apprentice is the evaluator: they pick the
topic from their persona's 2–3, speak first, and in the partner's seat (the wizard) find a registered
model (the model arm: a bot seat, no waiting room) or another person (the human control arm, paired
in the waiting room as in WoW, with the wizard's knowledge panel). In the model arm the evaluator
labels every model message with problems or an explicit "none"; at the end they answer the
campaign's final questions. In the DuConv variant (collect/tasktypes/modelchat/duconv.py) the room has a
DuConv goal instead of a topic choice, and the model, DuConv's agent, speaks first."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.utils import timezone

from collect.errors import ProtocolError
from collect.frames import MAX_SEQ, require_int
from collect.tasktypes.modelchat.config import NONE_LABEL, config_errors, config_for
from collect.tasktypes.modelchat.duconv import OPENING, duconv_message_fields, duconv_room_create, duconv_session, user_state
from collect.tasktypes.modelchat.models import ModelChat, ModelChatArm, ModelTurn
from collect.models import Assignment, Campaign, Message, Room, RoomStatus
from collect.protocols.base import Effect, histogram
from collect.tasktypes.wow.protocol import APPRENTICE, WIZARD, WizardOfWikipedia


class ModelChatProtocol(WizardOfWikipedia):
    name = "model_chat"
    actions = {"choose_topic": "choose_topic", "label": "label", "pick": "pick"}
    # The consumer asks collect.tasktypes.modelchat.relay for the model's reply after each evaluator message.
    room_template = "modelchat/room.html"

    def room_template_for(self, role: str) -> str:
        # The control arm's human partner is an ordinary Wizard of Wikipedia wizard.
        return super().room_template if role == WIZARD else self.room_template

    def message_relayed(self, *, room_id: str, seq: int) -> None:
        from collect.tasktypes.modelchat import relay  # relay -> turns -> this module: a cycle

        relay.reply_soon(room_id=room_id, seq=seq)

    def room_synced(self, *, room_id: str) -> None:
        from collect.tasktypes.modelchat import relay  # relay -> turns -> this module: a cycle

        relay.reply_if_owed(room_id=room_id)

    def action_relayed(self, *, room_id: str, name: str) -> None:
        if name == "pick":  # the partner's seat posts the reply the evaluator picked
            from collect.tasktypes.modelchat import relay  # relay -> turns -> this module: a cycle

            relay.reply_to_last(room_id=room_id)

    def config_problems(self, campaign: Campaign) -> list[str]:
        return config_errors(campaign)

    def room_create(self, *, campaign: Campaign) -> Room:
        """A room of the human control arm (matchmaking pairs two people); the model arm's seat
        service turns it into a model room. The DuConv variant's rooms are model rooms only."""
        if config_for(campaign).duconv is not None:
            room, seen = duconv_room_create(campaign=campaign)
            ModelChat.objects.create(room=room, arm=ModelChatArm.MODEL, seen=seen)
            return room
        room = super().room_create(campaign=campaign)
        room.first_speaker = APPRENTICE
        room.save(update_fields=["first_speaker"])
        ModelChat.objects.create(room=room, arm=ModelChatArm.HUMAN)
        return room

    def out_of_turn(self, *, role: str, count: int) -> str:
        if count == 0 and role == APPRENTICE:
            return OPENING  # only in the DuConv variant does the partner open
        return super().out_of_turn(role=role, count=count)

    def choose_topic(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        effect = super().choose_topic(room=room, assignment=assignment, frame=frame)
        ModelChat.objects.filter(room=room).update(seen=room.topic not in config_for(room.campaign).unseen_topics)
        return effect

    def snapshot_extra(self, room: Room) -> dict[str, Any]:
        extra = super().snapshot_extra(room)
        chat = ModelChat.objects.filter(room=room).only("arm").first()
        config = config_for(room.campaign)
        model_arm = chat is not None and chat.arm == ModelChatArm.MODEL
        problems = [{"key": k, "text": config.problem_text(k)} for k in config.problems] if model_arm else []
        labels = (
            {str(seq): p for seq, p in ModelTurn.objects.filter(message__room=room).values_list("message__seq", "problems")}
            if problems
            else {}
        )
        questions = [{"key": q.key, "text": q.text, "min": q.low, "max": q.high, "anchors": q.anchor_map()} for q in config.questions]
        duconv = config.duconv is not None
        candidates = None
        if model_arm and config.prism:
            from collect.tasktypes.modelchat.prism import candidates_offered  # prism -> turns -> this module: a cycle

            last = Message.objects.filter(room=room).order_by("-seq").values_list("seq", "role").first() or (0, None)
            candidates = candidates_offered(room=room, last_seq=last[0], last_role=last[1])
        return {
            **extra, "problems": problems, "labels": labels, "questions": questions, "duconv": duconv, "model_partner": model_arm,
            "candidates": candidates,
        }

    def state_for_role(self, snapshot: dict[str, Any], role: str) -> dict[str, Any]:
        state = super().state_for_role(snapshot, role)
        if role == APPRENTICE:
            state.update(
                problems=snapshot["problems"], labels=snapshot["labels"], questions=snapshot["questions"],
                model_partner=snapshot["model_partner"],  # the page shows the model at work while it is its turn
                candidates=snapshot["candidates"],  # several models' replies to pick from (prism.py)
            )
            if snapshot["duconv"]:
                state.update(user_state())
        return state

    def message_fields(
        self, *, room: Room, assignment: Assignment, frame: dict[str, Any], count: int, recent: list[Message]
    ) -> dict[str, Any]:
        if assignment.role == APPRENTICE and count:
            unlabeled = ModelTurn.objects.filter(message__room=room, problems__isnull=True).exists()
            if unlabeled and config_for(room.campaign).problems:
                raise ProtocolError("label_required", "Mark your partner's last message first: tick its problems, or 'None'.")
        session = duconv_session(room)
        if session is not None:
            return duconv_message_fields(session=session, role=assignment.role, frame=frame)
        return super().message_fields(room=room, assignment=assignment, frame=frame, count=count, recent=recent)

    def after_message(self, *, message: Message) -> dict[str, dict[str, Any]]:
        """WoW's retrieval for the control arm's human wizard. In the model arm the model's turn
        (turns.py) retrieves for the evaluator's message itself: no second pass here."""
        if ModelChat.objects.filter(room_id=message.room_id, arm=ModelChatArm.MODEL).exists():
            return {}
        return self.retrieve(message=message)

    def retrieve(self, *, message: Message) -> dict[str, dict[str, Any]]:
        return super().after_message(message=message)

    def label(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        """The evaluator's problem labels for one model message (relabelling replaces them)."""
        seq = require_int(frame, "seq", low=1, high=MAX_SEQ)
        if assignment.role != APPRENTICE:
            raise ProtocolError("not_allowed", "Only the person evaluating the chat labels messages.")
        if room.status not in (RoomStatus.CHATTING, RoomStatus.RATING):
            raise ProtocolError("wrong_state", "Messages can be labelled only during the chat and before the final questions.")
        config = config_for(room.campaign)
        turn = ModelTurn.objects.filter(message__room=room, message__seq=seq).first()
        if turn is None or not config.problems:
            raise ProtocolError("bad_label", "Only your partner's messages take problem labels, and only when the study asks for them.")
        problems = frame.get("problems")
        allowed = {NONE_LABEL, *config.problems}
        if not isinstance(problems, list) or not problems or not all(isinstance(p, str) for p in problems):
            raise ProtocolError("bad_label", "'problems' must be a non-empty list: the problems you saw, or [\"none\"].")
        if set(problems) - allowed:
            raise ProtocolError("bad_label", f"Unknown problem label(s): {', '.join(sorted(set(problems) - allowed))}.")
        if NONE_LABEL in problems and len(set(problems)) > 1:
            raise ProtocolError("bad_label", "'None' cannot be ticked together with a problem.")
        turn.problems = list(dict.fromkeys(problems))
        turn.labeled_at = timezone.now()
        turn.save(update_fields=["problems", "labeled_at"])
        return Effect()

    def pick(self, *, room: Room, assignment: Assignment, frame: dict[str, Any]) -> Effect:
        """The evaluator's pick among several models' replies (protocol_config.prism)."""
        from collect.tasktypes.modelchat.prism import candidate_pick  # prism -> turns -> this module: a cycle

        if not config_for(room.campaign).prism:
            raise ProtocolError("bad_pick", "This study shows one reply per message: there is nothing to pick.")
        candidate_pick(room=room, assignment=assignment, frame=frame)
        return Effect()

    def rating_parse(self, frame: dict[str, Any]) -> dict[str, Any]:
        answers = frame.get("answers")
        if not isinstance(answers, dict):
            raise ProtocolError("bad_rating", "Send the final answers as {\"answers\": {question: number}}.")
        return answers

    def rate(self, *, room: Room, role: str, rating: dict[str, Any]) -> None:
        config = config_for(room.campaign)
        answers: dict[str, int] = {}
        for question in config.questions:
            value = rating.get(question.key)
            if not isinstance(value, int) or isinstance(value, bool) or not question.low <= value <= question.high:
                raise ProtocolError(
                    "bad_rating", f"Answer “{question.text}” with a whole number from {question.low} to {question.high}."
                )
            answers[question.key] = value
        unknown = set(rating) - set(answers)
        if unknown:
            raise ProtocolError("bad_rating", f"Unknown question(s): {', '.join(sorted(unknown))}.")
        if config.problems and ModelTurn.objects.filter(message__room=room, problems__isnull=True).exists():
            raise ProtocolError("label_required", "Mark your partner's last message first: tick its problems, or 'None'.")
        ModelChat.objects.filter(room=room).update(answers=answers, answered_at=timezone.now())
        # The first question is WoW's 1–5 rating of the partner: keep it where WoW keeps its rating.
        room.rating = answers[config.questions[0].key]
        room.save(update_fields=["rating"])

    def rated(self, room: Room) -> bool:
        return ModelChat.objects.filter(room=room, answers__isnull=False).exists()

    def rating_histograms(self, *, campaign: Campaign, rooms: Any) -> list[tuple[str, list[tuple[str, int]]]]:
        """One chart per final question of the campaign, on that question's own scale."""
        answered = list(ModelChat.objects.filter(room__in=rooms, answers__isnull=False).values_list("answers", flat=True))
        charts = []
        for question in config_for(campaign).questions:
            counts = Counter(a.get(question.key) for a in answered if isinstance(a, dict))
            scale = range(question.low, question.high + 1)
            charts.append((f"Evaluator ratings: {question.text}", histogram(counts.items(), scale)))
        return charts


MODEL_CHAT = ModelChatProtocol()
EVALUATOR, PARTNER = APPRENTICE, WIZARD

