"""What the dialog-act screen tells annotators about Curiosity's 16 acts: the definitions of the
Curiosity paper's act table (Rodriguez et al., 2020), each with an example message in the style of
its dialogs (the examples are Groundwork's own)."""

from __future__ import annotations

from typing import NamedTuple

from django.utils.translation import gettext, gettext_noop as _noop

from annotate.models import DIALOG_ACTS


class ActGuide(NamedTuple):
    act: str
    label: str  # "request followup"
    definition: str
    example: str


_GUIDE: dict[str, tuple[str, str]] = {
    "request_topic": (_noop("A request primarily about the topic."), _noop("Hi! What can you tell me about Puerto Rico?")),
    "request_aspect": (_noop("A request primarily about an aspect."), _noop("What do you know about its history?")),
    "request_followup": (_noop("A request about a concept already mentioned."), _noop("Who were the Taíno people you mentioned?")),
    "request_other": (_noop("A request about a concept not mentioned yet."), _noop("Is there anything to know about its music?")),
    "inform_response": (_noop("Directly answers a request for information."), _noop("The Taíno were the island's indigenous people.")),
    "inform_related": (_noop("Not a direct answer, but related information."), _noop("I can't find that, but the island was a Spanish colony.")),
    "inform_unrelated": (_noop("Neither answers the request nor relates to it."), _noop("Politics can be so tiring!")),
    "feedback_positive": (_noop("Gives positive feedback."), _noop("That's really interesting!")),
    "feedback_negative": (_noop("Gives negative feedback."), _noop("Hmm, that's a bit boring.")),
    "feedback_ask": (_noop("Asks for feedback."), _noop("Did you find that interesting?")),
    "offer_topic": (_noop("Offers to discuss the topic."), _noop("Would you like to learn about Puerto Rico?")),
    "offer_aspect": (_noop("Offers to discuss an aspect."), _noop("Shall I tell you more about its economy?")),
    "offer_followup": (_noop("Offers to discuss a concept already mentioned."), _noop("I could tell you more about the Taíno.")),
    "offer_other": (_noop("Offers to discuss a concept not mentioned yet."), _noop("How about I tell you about its exports?")),
    "offer_accept": (_noop("Accepts an offer of information."), _noop("Yes, I'd love to hear about its history.")),
    "offer_decline": (_noop("Declines an offer of information."), _noop("No thanks, I'm not interested in that.")),
}

# The acts' names as the screen shows them (the act ids stay in English everywhere else).
_LABELS = {
    "request_topic": _noop("request topic"),
    "request_aspect": _noop("request aspect"),
    "request_followup": _noop("request followup"),
    "request_other": _noop("request other"),
    "inform_response": _noop("inform response"),
    "inform_related": _noop("inform related"),
    "inform_unrelated": _noop("inform unrelated"),
    "feedback_positive": _noop("feedback positive"),
    "feedback_negative": _noop("feedback negative"),
    "feedback_ask": _noop("feedback ask"),
    "offer_topic": _noop("offer topic"),
    "offer_aspect": _noop("offer aspect"),
    "offer_followup": _noop("offer followup"),
    "offer_other": _noop("offer other"),
    "offer_accept": _noop("offer accept"),
    "offer_decline": _noop("offer decline"),
}

ACT_GUIDE: tuple[ActGuide, ...] = tuple(ActGuide(act, _LABELS[act], *_GUIDE[act]) for act in DIALOG_ACTS)


def act_guide_translated() -> tuple[ActGuide, ...]:
    """ACT_GUIDE in the active language (the annotation job's)."""
    return tuple(
        guide._replace(label=gettext(guide.label), definition=gettext(guide.definition), example=gettext(guide.example))
        for guide in ACT_GUIDE
    )
