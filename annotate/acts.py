"""What the dialog-act screen tells annotators about Curiosity's 16 acts: the definitions of the
Curiosity paper's act table (Rodriguez et al., 2020), each with an example message in the style of
its dialogs (the examples are Groundwork's own)."""

from __future__ import annotations

from typing import NamedTuple

from annotate.models import DIALOG_ACTS


class ActGuide(NamedTuple):
    act: str
    label: str  # "request followup"
    definition: str
    example: str


_GUIDE: dict[str, tuple[str, str]] = {
    "request_topic": ("A request primarily about the topic.", "Hi! What can you tell me about Puerto Rico?"),
    "request_aspect": ("A request primarily about an aspect.", "What do you know about its history?"),
    "request_followup": ("A request about a concept already mentioned.", "Who were the Taíno people you mentioned?"),
    "request_other": ("A request about a concept not mentioned yet.", "Is there anything to know about its music?"),
    "inform_response": ("Directly answers a request for information.", "The Taíno were the island's indigenous people."),
    "inform_related": ("Not a direct answer, but related information.", "I can't find that, but the island was a Spanish colony."),
    "inform_unrelated": ("Neither answers the request nor relates to it.", "Politics can be so tiring!"),
    "feedback_positive": ("Gives positive feedback.", "That's really interesting!"),
    "feedback_negative": ("Gives negative feedback.", "Hmm, that's a bit boring."),
    "feedback_ask": ("Asks for feedback.", "Did you find that interesting?"),
    "offer_topic": ("Offers to discuss the topic.", "Would you like to learn about Puerto Rico?"),
    "offer_aspect": ("Offers to discuss an aspect.", "Shall I tell you more about its economy?"),
    "offer_followup": ("Offers to discuss a concept already mentioned.", "I could tell you more about the Taíno."),
    "offer_other": ("Offers to discuss a concept not mentioned yet.", "How about I tell you about its exports?"),
    "offer_accept": ("Accepts an offer of information.", "Yes, I'd love to hear about its history."),
    "offer_decline": ("Declines an offer of information.", "No thanks, I'm not interested in that."),
}

ACT_GUIDE: tuple[ActGuide, ...] = tuple(
    ActGuide(act, act.replace("_", " "), *_GUIDE[act]) for act in DIALOG_ACTS
)
