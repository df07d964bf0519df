"""The demo dialog-act job, over two sample dialogues of the Curiosity demo campaign."""

from __future__ import annotations

from collections.abc import Callable

from annotate.demo_jobs import demo_job_ensure
from annotate.kinds.dialog_acts import NAME


def demo_ensure(*, say: Callable[[str], object]) -> None:
    for line in demo_job_ensure(slug="dialog-acts-demo", kind=NAME, campaign="curiosity-demo", dialogues=2,
                                name="Curiosity dialog acts (demo)"):
        say(line)
