from __future__ import annotations

from django import template
from django.utils.translation import gettext

from collect.rating_scale import SCALE_WORDS

register = template.Library()


@register.simple_tag
def rating_scale_words() -> list[tuple[int, str]]:
    """{% rating_scale_words as words %}: (point, its words in the worker's language), 1 to 5."""
    return [(point, gettext(words)) for point, words in enumerate(SCALE_WORDS, start=1)]
