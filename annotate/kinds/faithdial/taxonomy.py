"""FaithDial's two label sets, as its released files spell them (McGill-NLP/FaithDial, README "Data
Format" and the FaithDial paper, section 3): BEGIN (Dziri et al., 2022, "Evaluating Attribution in
Dialogue Systems: The BEGIN Benchmark") says how a response relates to its knowledge; VRM (Stiles,
1992, verbal response modes) says what the response does in the conversation. A response takes one
or more labels of each. The definitions are Groundwork's summaries of the paper's."""

from __future__ import annotations

from typing import NamedTuple

from django.utils.translation import gettext, gettext_noop


class Label(NamedTuple):
    name: str  # as written in the released files' BEGIN / VRM lists
    definition: str


BEGIN_LABELS: tuple[Label, ...] = (
    Label("Entailment", gettext_noop("Everything it states is supported by the knowledge.")),
    Label("Hallucination", gettext_noop("It states something the knowledge does not support (or contradicts).")),
    Label("Partial Hallucination", gettext_noop("Part of it is supported by the knowledge, part is not.")),
    Label("Generic", gettext_noop("Vague or content-free: it could answer almost anything.")),
    Label("Uncooperative", gettext_noop("Ignores or dodges what the seeker asked, or steers away from it.")),
)

VRM_LABELS: tuple[Label, ...] = (
    Label("Disclosure", gettext_noop("Reveals the speaker's own thoughts, feelings or experience.")),
    Label("Edification", gettext_noop("States objective information.")),
    Label("Advisement", gettext_noop("Tries to guide what the other does (advice, suggestion).")),
    Label("Confirmation", gettext_noop("Agrees with or confirms what the other said.")),
    Label("Question", gettext_noop("Asks for information or for the other's view.")),
    Label("Acknowledgment", gettext_noop("Acknowledges the other's message without adding to it.")),
)

BEGIN: tuple[str, ...] = tuple(label.name for label in BEGIN_LABELS)
VRM: tuple[str, ...] = tuple(label.name for label in VRM_LABELS)

# A response with any of these is unfaithful: FaithDial's annotators rewrote it (the paper edits
# hallucinated and uncooperative responses; a partial hallucination is a hallucination too).
UNFAITHFUL: frozenset[str] = frozenset({"Hallucination", "Partial Hallucination", "Uncooperative"})


def unfaithful(begin: list[str]) -> bool:
    return any(label in UNFAITHFUL for label in begin)


def translated(labels: tuple[Label, ...]) -> list[Label]:
    """The labels with their definitions in the active language (the label names stay as released)."""
    return [label._replace(definition=gettext(label.definition)) for label in labels]
