"""What the crowd decided on dialog-act jobs: the acts of each message.

Only task items count (gold and qualification items check the annotators, they are not data), and a
dialog reported as broken is left out of its item's labels.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from annotate.kinds.dialog_acts.acts import DIALOG_ACTS
from annotate.models import Assignment, AssignmentStatus, Item, ItemMessage, ItemRole, Job
from annotate.selectors.answers import task_answers

_ORDER = {act: n for n, act in enumerate(DIALOG_ACTS)}


def majority_acts(answers: Iterable[list[list[str]]], messages: int) -> list[list[str]]:
    """Per message, the acts given by at least half of the annotators."""
    answers = list(answers)
    votes = [Counter(act for answer in answers for act in answer[index]) for index in range(messages)]
    return [sorted((a for a, n in v.items() if 2 * n >= len(answers)), key=_ORDER.__getitem__) for v in votes]


def dialog_act_labels(job: Job) -> dict[int, list[list[str]]]:
    """Item id -> majority acts per message index, for the job's task items with answers."""
    by_item: dict[int, list[list[list[str]]]] = defaultdict(list)
    for answer in task_answers(job):
        if not answer["report_reason"]:
            by_item[answer["item_id"]].append(answer["answer"]["acts"])
    items = Item.objects.filter(pk__in=list(by_item)).only("payload")
    return {item.pk: majority_acts(by_item[item.pk], len(item.payload["messages"])) for item in items}


def dialog_acts_for(message_ids: list[int]) -> dict[int, list[str]]:
    """collect Message id -> the dialog acts at least half of its annotators gave it (the Curiosity
    export's `dialog_acts`). A message labeled in several jobs pools their answers; a message nobody
    has labeled yet is absent (an exporter writes [] for it)."""
    links = list(ItemMessage.objects.filter(message_id__in=message_ids).values_list("item_id", "index", "message_id"))
    answers = (
        Assignment.objects.filter(
            item_id__in={item_id for item_id, _, _ in links},
            item__role=ItemRole.TASK,
            status=AssignmentStatus.SUBMITTED,
            report_reason="",
        )
        .values_list("item_id", "answer")
    )
    by_item: dict[int, list[list[list[str]]]] = defaultdict(list)
    for item_id, answer in answers:
        by_item[item_id].append(answer["acts"])
    votes: dict[int, Counter[str]] = defaultdict(Counter)
    annotators: Counter[int] = Counter()
    for item_id, index, message_id in links:
        for acts in by_item[item_id]:
            votes[message_id].update(acts[index])
            annotators[message_id] += 1
    return {
        message_id: sorted((a for a, n in votes[message_id].items() if 2 * n >= total), key=_ORDER.__getitem__)
        for message_id, total in annotators.items()
        if total
    }
