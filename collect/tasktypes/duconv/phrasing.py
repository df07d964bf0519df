"""A knowledge-graph triple said as a person would say it, for the scripted DuConv agents (the
simulation's and the built-in GoalBot): "Inception was directed by Christopher Nolan." rather than
"Inception: directed by Christopher Nolan.". English by the demo graph's properties
(retrieval/graph/demo_films.tsv), any other property as "X's property is Y"; Chinese as
"X的属性是Y。", DuConv's own way of saying a triple."""

from __future__ import annotations

ENGLISH = {
    "directed by": "{s} was directed by {v}",
    "starring": "{v} stars in {s}",
    "release year": "{s} came out in {v}",
    "genre": "{s} is {a} {v} film",
    "award": "{s} won the {v}",
    "running time": "{s} runs for {v}",
    "tagline": 'the tagline of {s} is "{v}"',
    "setting": "{s} is set on {v}",
    "based on": "{s} is based on {v}",
    "original language": "{s} is in {v}",
    "studio": "{s} was made by {v}",
    "born": "{s} was born on {v}",
    "birthplace": "{s} was born in {v}",
    "nationality": "{s} is {v}",
    "occupation": "{s} is {a} {v}",
    "known for": "{s} is known for {v}",
    "co-founded": "{s} co-founded {v}",
    "cause": "{s} campaigns for {v}",
    "record": "{s} holds the record for {v}",
}


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def triple_sentence(triple: list[str], *, zh: bool = False) -> str:
    """The triple as one sentence, first letter capitalised, with its full stop."""
    subject, prop, value = triple
    if zh:
        return f"{subject}的{prop}是{value}。"
    template = ENGLISH.get(prop, "{s}'s {p} is {v}")
    text = template.format(s=subject, p=prop, v=value, a=_article(value))
    return text[0].upper() + text[1:] + "."
