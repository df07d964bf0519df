"""What the annotators decided on a FaithDial job, per task item: the BEGIN and VRM labels at least
half of them gave and, where those BEGIN labels are unfaithful, the rewrite of the first annotator
who rewrote it (in submission order). Gold and qualification items are not data."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, NamedTuple

from annotate.kinds.faithdial.taxonomy import BEGIN, VRM, unfaithful
from annotate.models import Job
from annotate.selectors.answers import task_answers


class Decision(NamedTuple):
    begin: list[str]
    vrm: list[str]
    rewrite: str  # "": the response stands


def majority(lists: list[list[str]], order: tuple[str, ...]) -> list[str]:
    """The labels in at least half of the lists, in the taxonomy's order."""
    votes = Counter(label for labels in lists for label in labels)
    return sorted((label for label, n in votes.items() if 2 * n >= len(lists)), key=order.index)


def decide(answers: list[dict[str, Any]]) -> Decision:
    """One item's decision from its answers (in submission order)."""
    begin = majority([a["begin"] for a in answers], BEGIN)
    vrm = majority([a["vrm"] for a in answers], VRM)
    rewrite = next((a["response"] for a in answers if a["response"]), "") if unfaithful(begin) else ""
    return Decision(begin, vrm, rewrite)


def faithdial_labels(job: Job) -> dict[int, Decision]:
    """Item id -> its decision, for the job's task items with answers (reports left out)."""
    by_item: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for answer in task_answers(job):
        if not answer["report_reason"]:
            by_item[answer["item_id"]].append(answer["answer"])
    return {item_id: decide(answers) for item_id, answers in by_item.items()}
