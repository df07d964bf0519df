"""The demo FaithDial job, over the wizard responses of two sample dialogues of the WoW demo campaign."""

from __future__ import annotations

from collections.abc import Callable

from annotate.demo_jobs import demo_job_ensure
from annotate.kinds.faithdial import NAME


def demo_ensure(*, say: Callable[[str], object]) -> None:
    for line in demo_job_ensure(slug="faithdial-demo", kind=NAME, campaign="wow-demo", dialogues=2,
                                name="FaithDial: label and rewrite wizard responses (demo)"):
        say(line)
