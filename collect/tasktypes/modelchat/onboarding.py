"""The onboarding sample: a short conversation with a model whose problems are known. A worker
labels its model turns before their first real chat and must get every one right."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from collect.tasktypes.modelchat.config import NONE_LABEL

# (speaker, text, the problems a careful worker ticks on model turns). The page shows the text in
# the campaign's language (collect.tasktypes.modelchat.views); a translation keeps each turn's problem.
SAMPLE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("human", gettext_noop("Hi! I'd love to talk about tea. Do you drink it?"), ()),
    ("model", gettext_noop("Tea is an aromatic beverage made by pouring hot water over cured tea leaves."), (NONE_LABEL,)),
    ("human", gettext_noop("Nice. Which country drinks the most tea?"), ()),
    ("model", gettext_noop("My favourite football team won on Sunday, did you watch the game?"), ("off_topic",)),
    ("human", gettext_noop("Um, no. Back to tea: is green tea healthy?"), ()),
    ("model", gettext_noop("Tea is an aromatic beverage made by pouring hot water over cured tea leaves."), ("repetitive",)),
    ("human", gettext_noop("You said that already. Do you like coffee better?"), ()),
    ("model", gettext_noop("I never drink anything hot. I had a lovely hot cup of tea this morning."), ("contradiction",)),
)


def expected_labels(problems: tuple[str, ...]) -> dict[int, tuple[str, ...]]:
    """The right labels per model turn index, for a campaign offering `problems`: problems the
    campaign does not offer are left out, and a turn left with none expects "none"."""
    expected: dict[int, tuple[str, ...]] = {}
    for index, (speaker, _text, labels) in enumerate(SAMPLE):
        if speaker == "model":
            kept = tuple(label for label in labels if label in problems)
            expected[index] = kept or (NONE_LABEL,)
    return expected


class OnboardingRefused(ValueError):
    """A try that is not a set of labels (not a wrong answer): it is refused without using an
    attempt. `turns` maps each SAMPLE index at fault to what is wrong with it."""

    def __init__(self, turns: dict[int, str]) -> None:
        super().__init__("; ".join(f"message {index}: {reason}" for index, reason in sorted(turns.items())))
        self.turns = turns


def answers_check(answers: dict[int, list[str]], problems: tuple[str, ...]) -> None:
    """Refuse labels that cannot be an answer: "None" ticked with a problem (they exclude each
    other, as in the chat's label frame) or a key the campaign does not offer."""
    faults = {}
    for index, labels in answers.items():
        unknown = sorted(set(labels) - {NONE_LABEL, *problems})
        if unknown:
            faults[index] = f"unknown label(s) {', '.join(unknown)}"
        elif NONE_LABEL in labels and len(set(labels)) > 1:
            faults[index] = "“None” cannot be ticked together with a problem"
    if faults:
        raise OnboardingRefused(faults)
