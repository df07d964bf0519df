"""The demo relevance job, over two sample dialogues of the Wizard of Wikipedia demo campaign."""

from __future__ import annotations

from collections.abc import Callable

from annotate.demo_jobs import demo_job_ensure
from annotate.kinds.relevance import NAME


def demo_ensure(*, say: Callable[[str], object]) -> None:
    for line in demo_job_ensure(slug="relevance-demo", kind=NAME, campaign="wow-demo", dialogues=2,
                                name="Knowledge relevance, WOW++ style (demo)"):
        say(line)
