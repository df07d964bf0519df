"""Amounts of pay as people read them: cents and a campaign's currency in, "$1.50" out."""

from __future__ import annotations

SYMBOLS = {"USD": "$", "GBP": "£", "EUR": "€"}


def money_text(*, cents: int, currency: str) -> str:
    amount = f"{abs(cents) / 100:,.2f}"
    sign = "−" if cents < 0 else ""
    symbol = SYMBOLS.get(currency)
    return f"{sign}{symbol}{amount}" if symbol else f"{sign}{amount} {currency}"


def currency_symbol(currency: str) -> str:
    return SYMBOLS.get(currency, currency)
