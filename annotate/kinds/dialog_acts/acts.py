"""Curiosity's 16 dialog acts (Rodriguez et al., 2020) and what the dialog-act screen tells
annotators about them: the definitions of the Curiosity paper's act table, each with an example
message in the style of its dialogs (the examples are Groundwork's own)."""

from __future__ import annotations

from typing import NamedTuple

from django.utils.translation import gettext, gettext_noop

# The acts, in the order the screen and the exports list them.
DIALOG_ACTS: tuple[str, ...] = (
    "request_topic",
    "request_aspect",
    "request_followup",
    "request_other",
    "inform_response",
    "inform_related",
    "inform_unrelated",
    "feedback_positive",
    "feedback_negative",
    "feedback_ask",
    "offer_topic",
    "offer_aspect",
    "offer_followup",
    "offer_other",
    "offer_accept",
    "offer_decline",
)


class ActGuide(NamedTuple):
    act: str
    label: str  # "request followup"
    definition: str
    example: str


_GUIDE: dict[str, tuple[str, str]] = {
    "request_topic": (gettext_noop("A request primarily about the topic."), gettext_noop("Hi! What can you tell me about Puerto Rico?")),
    "request_aspect": (gettext_noop("A request primarily about an aspect."), gettext_noop("What do you know about its history?")),
    "request_followup": (gettext_noop("A request about a concept already mentioned."), gettext_noop("Who were the Taíno people you mentioned?")),
    "request_other": (gettext_noop("A request about a concept not mentioned yet."), gettext_noop("Is there anything to know about its music?")),
    "inform_response": (gettext_noop("Directly answers a request for information."), gettext_noop("The Taíno were the island's indigenous people.")),
    "inform_related": (gettext_noop("Not a direct answer, but related information."), gettext_noop("I can't find that, but the island was a Spanish colony.")),
    "inform_unrelated": (gettext_noop("Neither answers the request nor relates to it."), gettext_noop("Politics can be so tiring!")),
    "feedback_positive": (gettext_noop("Gives positive feedback."), gettext_noop("That's really interesting!")),
    "feedback_negative": (gettext_noop("Gives negative feedback."), gettext_noop("Hmm, that's a bit boring.")),
    "feedback_ask": (gettext_noop("Asks for feedback."), gettext_noop("Did you find that interesting?")),
    "offer_topic": (gettext_noop("Offers to discuss the topic."), gettext_noop("Would you like to learn about Puerto Rico?")),
    "offer_aspect": (gettext_noop("Offers to discuss an aspect."), gettext_noop("Shall I tell you more about its economy?")),
    "offer_followup": (gettext_noop("Offers to discuss a concept already mentioned."), gettext_noop("I could tell you more about the Taíno.")),
    "offer_other": (gettext_noop("Offers to discuss a concept not mentioned yet."), gettext_noop("How about I tell you about its exports?")),
    "offer_accept": (gettext_noop("Accepts an offer of information."), gettext_noop("Yes, I'd love to hear about its history.")),
    "offer_decline": (gettext_noop("Declines an offer of information."), gettext_noop("No thanks, I'm not interested in that.")),
}

# The acts' names as the screen shows them (the act ids stay in English everywhere else).
_LABELS = {
    "request_topic": gettext_noop("request topic"),
    "request_aspect": gettext_noop("request aspect"),
    "request_followup": gettext_noop("request followup"),
    "request_other": gettext_noop("request other"),
    "inform_response": gettext_noop("inform response"),
    "inform_related": gettext_noop("inform related"),
    "inform_unrelated": gettext_noop("inform unrelated"),
    "feedback_positive": gettext_noop("feedback positive"),
    "feedback_negative": gettext_noop("feedback negative"),
    "feedback_ask": gettext_noop("feedback ask"),
    "offer_topic": gettext_noop("offer topic"),
    "offer_aspect": gettext_noop("offer aspect"),
    "offer_followup": gettext_noop("offer followup"),
    "offer_other": gettext_noop("offer other"),
    "offer_accept": gettext_noop("offer accept"),
    "offer_decline": gettext_noop("offer decline"),
}

ACT_GUIDE: tuple[ActGuide, ...] = tuple(ActGuide(act, _LABELS[act], *_GUIDE[act]) for act in DIALOG_ACTS)


def act_guide_translated() -> tuple[ActGuide, ...]:
    """ACT_GUIDE in the active language (the annotation job's)."""
    return tuple(
        guide._replace(label=gettext(guide.label), definition=gettext(guide.definition), example=gettext(guide.example))
        for guide in ACT_GUIDE
    )
