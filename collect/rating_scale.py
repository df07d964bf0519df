"""The words of a 1–5 rating scale, low to high: one set for every scale a worker sees (the chat
ratings of WoW and Curiosity, templates/collect/_rating_scale.html; the default anchors of the
model-chat questions, collect/tasktypes/modelchat/config.py). collect/tasktypes/modelchat/static/modelchat/room.js lists them for the
JavaScript catalog."""

from __future__ import annotations

from django.utils.translation import gettext_noop

SCALE_WORDS = (
    gettext_noop("Not at all"), gettext_noop("A little"), gettext_noop("Somewhat"), gettext_noop("Quite a lot"), gettext_noop("Very much"),
)
