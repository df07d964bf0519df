"""`manage.py eval_report CAMPAIGN [--json]`: a model-chat campaign's results — per model (and
seen/unseen, and the human control) ratings, Wiki F1, problem rates, latency, time to first token
(p50/p95) and (DuConv) goal completion; rating tests between models; win rates and the
Bradley–Terry leaderboard of its pairwise jobs, and of its evaluators' picks among several replies
(protocol_config.prism)."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotate.kinds.pairwise.campaign import campaign_evaluation
from annotate.kinds.pairwise.evaluation.bradley_terry import interval_text, rank_text
from annotate.kinds.pairwise.evaluation.groups import groups_notes
from collect.models import Campaign
from collect.tasktypes.modelchat import NAME as MODELCHAT_NAME


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


class Command(BaseCommand):
    help = "Results of a model-chat campaign: ratings, Wiki F1, significance tests, pairwise leaderboard."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign", help="the campaign's slug")
        parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
        parser.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds of the leaderboards")

    def handle(self, *args: Any, **opts: Any) -> None:
        campaign = Campaign.objects.filter(slug=opts["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign {opts['campaign']!r}")
        if campaign.protocol != MODELCHAT_NAME:
            raise CommandError(f"campaign {campaign.slug!r} is a {campaign.protocol} campaign, not model_chat")
        if opts["rounds"] < 0:
            raise CommandError("--rounds must not be negative")
        try:
            report = campaign_evaluation(campaign=campaign, rounds=opts["rounds"])
        except ValueError as error:  # a campaign config the model-chat settings refuse
            raise CommandError(f"campaign {campaign.slug!r}: {error}") from None
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
            return
        self._text(report)

    def _text(self, report: dict[str, Any]) -> None:
        write = self.stdout.write
        write(f"{report['campaign']['name']} ({report['campaign']['slug']}): {report['conversations']} conversations")
        for model, splits in report["models"].items():
            row = splits["all"]
            ratings = ", ".join(
                f"{q} {_fmt(s['mean'])}±{_fmt(s['sd'])} (n={s['n']})" for q, s in row["ratings"].items()
            )
            write(
                f"  {model:<20} n={row['conversations']:<4} {ratings}  wiki F1 {_fmt(row['wiki_f1']['mean'], 3)}"
                f"  no-problem turns {_fmt(row['problem_rates'].get('none'))}  median latency {_fmt(row['median_latency_ms'], 0)} ms"
                f"  first token p50/p95 {_fmt(row['first_token_ms']['p50'], 0)}/{_fmt(row['first_token_ms']['p95'], 0)} ms"
                + (f"  goal completion {_fmt(row['goal_completion']['mean'])} (n={row['goal_completion']['n']})"
                   if row["goal_completion"]["n"] else "")
            )
        for test in report["rating_tests"]:
            welch, mwu = test["welch_t"], test["mann_whitney_u"]
            write(
                f"  {test['question']}: {test['model_a']} vs {test['model_b']}: Welch p={_fmt(welch['p'], 4)} d={_fmt(welch['cohens_d'])}"
                f"; Mann–Whitney p={_fmt(mwu['p'], 4)} r={_fmt(mwu['rank_biserial'])}"
            )
        if report["choices"]:
            write(f"  the evaluators' picks among several replies ({report['choices']['judgments']} judgments)")
            for name, row in report["choices"]["leaderboard"].items():
                write(f"    {rank_text(row):>2}. {name:<20} {row['score']:7.1f}  [{interval_text(row)}]  {row['battles']} judgments")
        for board in report["pairwise_by_question"]:
            left_out = f", {board['excluded_judges']} judge(s) left out" if board["excluded_judges"] else ""
            write(f"  {board['question']} leaderboard (jobs {', '.join(board['jobs'])}; {board['judgments']} judgments{left_out})")
            several = len(board["groups"]) > 1
            for name, row in board["leaderboard"].items():
                group = f"group {row['group']}  " if several else ""
                write(f"    {group}{rank_text(row):>2}. {name:<20} {row['score']:7.1f}  [{interval_text(row)}]  {row['battles']} judgments")
            for note in groups_notes(board["leaderboard"]):
                write(f"    {note}")
