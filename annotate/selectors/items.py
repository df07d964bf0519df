"""An item as its annotator sees it: never its role, its known answer or anyone's votes."""

from __future__ import annotations

from typing import Any

from annotate.models import Item
from annotate.registry import annotation_kind


def item_for_annotator(item: Item, kind: str, *, question: str = "") -> dict[str, Any]:
    """What the screen of `kind` gets for the item (the kind's `item_view`); `question`: the job's."""
    return annotation_kind(kind).part("item_view")(item, question=question)
