"""WOW++ as a Hugging Face `datasets` config (`export_dataset wowpp --job SLUG --format hf`): one row
per item of the job's WOW++ file (docs/schemas.md#wow), in the file's order, split `train`.

The map key is the column `key`. A passage `{title: [sentences]}` of `knowledges` is `{"title",
"sentences"}`, the `gold_sentence` `{key: text}` is `{"key", "text"}` (an empty `{}` is None, as
is a missing one), and `relevance` is a class label (notRelevant, relevant). Keys the file lacks
are None; keys of an imported item that WOW++ does not define are left out of the rows (the JSON
export keeps them). Source: Eric et al., "Multi-Sentence Knowledge Selection in Open-Domain
Dialogue", INLG 2021 (alexa/wow-plus-plus, CC BY-SA 4.0)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasets import ClassLabel, Features, List, Value

from annotate.kinds.relevance.exporter import exported_job
from annotate.models import Assignment, AssignmentStatus
from collect.exporters import ExportOptions, ExportResult
from collect.exporters.hf import CardFacts, Collection, HfDataset
from collect.models import Campaign

RELEVANCE = ("notRelevant", "relevant")

FEATURES = Features({
    "key": Value("string"),
    "turns": List(Value("string")),
    "topic": Value("string"),
    "start_speaker": Value("string"),
    "id": Value("string"),
    "knowledges": List({"title": Value("string"), "sentences": List(Value("string"))}),
    "gold_sentence": {"key": Value("string"), "text": Value("string")},
    "annotated_sentences": List({
        "label": Value("string"),
        "confidence": Value("float64"),
        "relevance": ClassLabel(names=list(RELEVANCE)),
        "article": Value("string"),
    }),
    "partial": Value("bool"),
    "annotators": Value("int32"),
})

CITATION = """@inproceedings{eric2021multi,
  title={Multi-Sentence Knowledge Selection in Open-Domain Dialogue},
  author={Eric, Mihail and Chartier, Nicole and Hedayatnia, Behnam and Gopalakrishnan, Karthik and Rajan, Pankaj and Liu, Yang and Hakkani-Tur, Dilek},
  booktitle={Proceedings of the 14th International Conference on Natural Language Generation},
  year={2021}
}"""

CARD = CardFacts(
    pretty_name="WOW++ knowledge relevance",
    summary=(
        "Knowledge relevance judgments on dialogue contexts: for each candidate sentence of the passages "
        "shown, the share of annotators who judged it relevant to the next response."
    ),
    protocol=(
        "Annotators read the dialogue context and the candidate sentences of the passages the wizard "
        "was shown, and select every sentence that could ground the next response. `confidence` is the "
        "share of the item's annotators who selected a sentence; `relevance` is `relevant` when it "
        "reaches the job's threshold (0.6 in the original), else `notRelevant`."
    ),
    roles=("annotator",),
    license="cc-by-sa-4.0",  # the contexts and the candidates quote Wizard of Wikipedia and Wikipedia
    knowledge_license="Wikipedia text, CC BY-SA",
    original="WOW++ (Eric et al., 2021)",
    citation=CITATION,
    task_categories=("text-classification",),
    task_ids=("text-scoring",),
)


def hf(json_dir: Path, result: ExportResult) -> HfDataset:
    (file,) = result.counts
    items = json.loads((json_dir / file).read_text(encoding="utf-8"))
    rows = [row_from_item(key, item) for key, item in items.items()]
    return HfDataset(
        features=FEATURES, splits={"train": rows}, card=CARD, turns=sum(len(row["turns"]) for row in rows), units="items",
    )


def row_from_item(key: str, item: dict[str, Any]) -> dict[str, Any]:
    gold = item.get("gold_sentence") or None
    return {
        "key": key,
        "turns": item["turns"],
        "topic": item["topic"],
        "start_speaker": item.get("start_speaker"),
        "id": item.get("id"),
        "knowledges": None if "knowledges" not in item else [
            {"title": title, "sentences": sentences} for passage in item["knowledges"] for title, sentences in passage.items()
        ],
        "gold_sentence": None if gold is None else dict(zip(("key", "text"), next(iter(gold.items())))),
        "annotated_sentences": [{**s, "relevance": RELEVANCE.index(s["relevance"])} for s in item["annotated_sentences"]],
        "partial": item.get("partial"),
        "annotators": item.get("annotators"),
    }


def collection(options: ExportOptions) -> Collection:
    """Who made the job's answers, for the card: its source campaigns (the dialogues judged) and
    how many annotators answered (counted, never named)."""
    job = exported_job(options)
    slugs = list((job.source or {}).get("campaigns", []))
    campaigns = Campaign.objects.filter(slug__in=slugs).select_related("knowledge_source").order_by("slug")
    annotators = Assignment.objects.filter(job=job, status=AssignmentStatus.SUBMITTED).values("worker").distinct().count()
    return Collection(
        campaigns=[(c.slug, c.name) for c in campaigns],
        platforms=[job.get_platform_display()],
        knowledge_sources=sorted({(c.knowledge_source.name, c.knowledge_source.language) for c in campaigns}),
        workers=annotators,
        people="annotators",
    )
