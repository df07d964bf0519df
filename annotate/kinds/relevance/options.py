"""create_annotation_job's options of relevance jobs: the threshold, how candidates are chosen
(candidates.py) and least-certain selection (active.py)."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from annotate.kinds.relevance.candidates import SOURCES
from annotate.registry import JobOptions
from annotate.services import AnnotationError

CANDIDATE_OPTIONS = ("sources", "max_articles", "max_sentences_per_article", "max_candidates")


class RelevanceOptions(JobOptions):
    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--threshold", type=float, default=0.6, help="relevance threshold")
        parser.add_argument("--sources", nargs="+", choices=SOURCES, default=None, help="relevance: knowledge sources")
        parser.add_argument("--max-articles", type=int, default=None)
        parser.add_argument("--max-sentences-per-article", type=int, default=None)
        parser.add_argument("--max-candidates", type=int, default=None)
        parser.add_argument("--no-gold-sentence", action="store_true", help="relevance: leave out the wizard's checked sentence")
        parser.add_argument("--least-certain", type=int, default=None, metavar="N",
                            help="relevance: add only the N contexts where the live ranker's two best sentences score "
                                 "closest (default: every context)")

    def job_settings(self, opts: dict[str, Any]) -> dict[str, Any]:
        candidates = {key: opts[key] for key in CANDIDATE_OPTIONS if opts[key]}
        if opts["no_gold_sentence"]:
            candidates["include_gold"] = False
        return {"threshold": opts["threshold"], "candidates": candidates}

    def items_options(self, opts: dict[str, Any]) -> dict[str, Any]:
        if opts["least_certain"] is not None and opts["least_certain"] < 1:
            raise AnnotationError("bad_selection", "--least-certain takes --kind relevance and a number of at least 1")
        return {"least_certain": opts["least_certain"]}


OPTIONS = RelevanceOptions()
