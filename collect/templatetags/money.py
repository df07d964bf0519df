from __future__ import annotations

from django import template

from collect.money import currency_symbol, money_text

register = template.Library()


@register.filter
def money(cents: int | None, currency: str) -> str:
    """{{ row.bonus_cents|money:campaign.currency }} → "$1.50"."""
    return money_text(cents=int(cents or 0), currency=currency)


@register.filter
def symbol(currency: str) -> str:
    return currency_symbol(currency)
