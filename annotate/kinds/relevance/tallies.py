"""What the crowd decided on a relevance job: the votes per candidate sentence of each item.

Only task items count (gold and qualification items check the annotators, they are not data); an
item imported from a finished WOW++ file carries its own tally.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from annotate.models import Item, ItemRole, Job
from annotate.selectors.answers import task_answers


@dataclass(frozen=True)
class Tally:
    item: Item
    annotators: int
    selected: list[int]  # votes per candidate, in candidate order
    confidences: list[float] | None = None  # an imported file's exact confidences, when votes/annotators differ

    def confidence(self, candidate: int) -> float:
        if self.confidences is not None:
            return self.confidences[candidate]
        return self.selected[candidate] / self.annotators if self.annotators else 0.0


def relevance_tallies(job: Job, *, complete_only: bool = False) -> list[Tally]:
    """One tally per task item in job order: imported items carry theirs, the others count answers."""
    by_item: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for answer in task_answers(job):
        by_item[answer["item_id"]].append(answer["answer"])
    tallies = []
    for item in Item.objects.filter(job=job, role=ItemRole.TASK).order_by("position", "id"):
        imported = item.imported_tally
        if imported is not None:
            # An imported item is finished whatever its count (a published context may have 9 of 10).
            tally = Tally(item, imported["annotators"], list(imported["selected"]), imported.get("confidences"))
        else:
            votes = Counter(i for answer in by_item[item.pk] for i in answer["selected"])
            tally = Tally(item, len(by_item[item.pk]), [votes[i] for i in range(len(item.payload["candidates"]))])
        if tally.annotators and (tally.annotators >= job.overlap or imported is not None or not complete_only):
            tallies.append(tally)
    return tallies
