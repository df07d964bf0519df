"""The demo DuConv scoring job, over two sample dialogues of the DuConv demo campaign."""

from __future__ import annotations

from collections.abc import Callable

from annotate.demo_jobs import demo_job_ensure
from annotate.kinds.duconv_eval import NAME


def demo_ensure(*, say: Callable[[str], object]) -> None:
    for line in demo_job_ensure(slug="duconv-eval-demo", kind=NAME, campaign="duconv-demo", dialogues=2,
                                name="DuConv human evaluation (demo)"):
        say(line)
