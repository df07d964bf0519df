"""Onboarding before the waiting room: the instructions for every role (with good and bad example
replies, as in WoW's task) and a short quiz with a pass mark and a limited number of attempts.

Campaign.onboarding (JSON):
    {"qualification": "wow-basics",          # shared by every campaign naming it (default: per campaign)
     "pass_mark": 0.75, "max_attempts": 2,
     "roles": {"wizard": {"instructions": "...", "good": ["..."], "bad": ["..."]}, "apprentice": {...}},
     "quiz": [{"question": "...", "choices": ["...", "..."], "answer": 0}, ...]}

A pass is stored as a Qualification and reused; running out of attempts records `screened_out`
(onboarding_screen_out, for model chat's sample conversation too)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from collect.lifecycle.outcomes import assignment_outcome_set
from collect.models import Assignment, Campaign, Outcome, Qualification, Worker


@dataclass(frozen=True)
class QuizResult:
    passed: bool
    score: float
    attempts_left: int


def onboarding_problems(config: Any) -> list[str]:
    """What is wrong with a campaign's onboarding setting ([] when fine or empty)."""
    if config in ({}, None):
        return []
    if not isinstance(config, dict):
        return ["onboarding must be a JSON object"]
    problems = []
    quiz = config.get("quiz")
    if not isinstance(quiz, list) or not quiz:
        problems.append("onboarding.quiz must be a non-empty list of questions")
    else:
        for n, item in enumerate(quiz, 1):
            choices = item.get("choices") if isinstance(item, dict) else None
            if not (isinstance(item, dict) and isinstance(item.get("question"), str) and isinstance(choices, list) and len(choices) >= 2):
                problems.append(f"onboarding.quiz[{n}] needs a question and at least two choices")
            elif not (isinstance(item.get("answer"), int) and 0 <= item["answer"] < len(choices)):
                problems.append(f"onboarding.quiz[{n}].answer must be the index of one of its choices")
    mark = config.get("pass_mark", 1.0)
    if not isinstance(mark, (int, float)) or not 0 < mark <= 1:
        problems.append("onboarding.pass_mark must be a number in (0, 1]")
    attempts = config.get("max_attempts", 2)
    if not isinstance(attempts, int) or attempts < 1:
        problems.append("onboarding.max_attempts must be a whole number ≥ 1")
    if not isinstance(config.get("roles", {}), dict):
        problems.append("onboarding.roles must map a role to its instructions")
    return problems


def qualification_name(campaign: Campaign) -> str:
    return str(campaign.onboarding.get("qualification") or f"campaign:{campaign.slug}")


def onboarding_needed(*, campaign: Campaign, worker: Worker) -> bool:
    if not (isinstance(campaign.onboarding, dict) and campaign.onboarding.get("quiz")):
        return False
    return not Qualification.objects.filter(worker=worker, name=qualification_name(campaign), passed=True).exists()


def attempts_left(*, campaign: Campaign, worker: Worker) -> int:
    used = Qualification.objects.filter(worker=worker, name=qualification_name(campaign)).values_list("attempts", flat=True).first() or 0
    return max(0, int(campaign.onboarding.get("max_attempts", 2)) - used)


def quiz_submit(*, assignment: Assignment, answers: Mapping[int, int]) -> QuizResult:
    """Grade one attempt. `answers` maps question index → chosen index (validated by the caller's form)."""
    campaign, worker = assignment.campaign, assignment.worker
    quiz = campaign.onboarding["quiz"]
    score = sum(1 for n, item in enumerate(quiz) if answers.get(n) == item["answer"]) / len(quiz)
    passed = score >= float(campaign.onboarding.get("pass_mark", 1.0))
    with transaction.atomic():
        qualification, _ = Qualification.objects.select_for_update().get_or_create(worker=worker, name=qualification_name(campaign))
        qualification.attempts += 1
        qualification.passed = qualification.passed or passed
        qualification.save()
        left = max(0, int(campaign.onboarding.get("max_attempts", 2)) - qualification.attempts)
        if not passed and left == 0:
            onboarding_screen_out(assignment=assignment)
    return QuizResult(passed=passed, score=score, attempts_left=left)


def onboarding_screen_out(*, assignment: Assignment) -> None:
    """Out of onboarding attempts (the campaign's quiz, or model chat's sample conversation): the
    assignment ends now as `screened_out`, with that outcome's code and pay. Its status leaves
    `waiting` with it, so it is never paired and the sweep never times it out as `no_partner`.
    Nothing changes for an assignment that already has an outcome."""
    assignment_outcome_set(assignment_id=assignment.pk, outcome=Outcome.SCREENED_OUT)
