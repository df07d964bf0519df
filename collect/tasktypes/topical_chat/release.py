"""The Topical-Chat release's vocabulary (alexa/Topical-Chat, conversations/*.json and
reading_sets/*.json), as its files spell it: every value below was read from the released
valid_freq, valid_rare, test_freq and test_rare files (46,903 turns), not from the README, which
spells some differently ("Curious to Dive Deeper")."""

from __future__ import annotations

AGENT_1 = "agent_1"
AGENT_2 = "agent_2"
AGENTS = (AGENT_1, AGENT_2)

# The knowledge configurations (README, "Configuration Type"): what each partner's reading set holds.
#   A  the same entities, both the shortened Wikipedia lead, different fun facts (1–5 and 6–10), the article
#   B  the same entities and fun facts; agent_1 the shortened lead, agent_2 the summarized one; the article
#   C  both the same reading set, no article (its reading set keeps only the article's url)
#   D  both the same reading set, with the article
CONFIGS = ("A", "B", "C", "D")
WITH_ARTICLE = ("A", "B", "D")

# A turn's `knowledge_source`: reading-set keys, sorted, each once, at least one.
FACT_SECTIONS = ("FS1", "FS2", "FS3")
ARTICLE_SECTIONS = ("AS1", "AS2", "AS3", "AS4")
PERSONAL_KNOWLEDGE = "Personal Knowledge"
KNOWLEDGE_SOURCES = (*ARTICLE_SECTIONS, *FACT_SECTIONS, PERSONAL_KNOWLEDGE)

# A turn's `sentiment`, the sender's own annotation.
SENTIMENTS = ("Angry", "Curious to dive deeper", "Disgusted", "Fearful", "Happy", "Neutral", "Sad", "Surprised")

# `turn_rating` (the partner's rating of the turn) and `conversation_rating` (each agent's of the
# whole conversation), worst first; "" where none was given (455 turns and 6 ratings of the release).
RATINGS = ("Poor", "Not Good", "Passable", "Good", "Excellent")
NO_RATING = ""

# A factual section's Wikipedia text: shortened (configurations A, C, D and agent_1 of B) or
# TextRank-summarized (agent_2 of B).
SHORTENED = "shortened_wiki_lead_section"
SUMMARIZED = "summarized_wiki_lead_section"
WIKI_FIELDS = (SHORTENED, SUMMARIZED)

# The five splits, one file each under conversations/ and reading_sets/: "freq" holds entities
# frequently seen in train, "rare" entities seldom seen there.
SPLITS = ("train", "valid_freq", "valid_rare", "test_freq", "test_rare")

# reading_sets/pre-build/ (the release as shipped: ids of Wikipedia texts and Reddit threads) and
# reading_sets/post-build/ (what the release's build.py makes of it: the texts).
PRE_BUILD = "pre-build"
POST_BUILD = "post-build"


def knowledge_source_sorted(keys: list[str]) -> list[str]:
    """The release's order of a turn's keys: sorted as strings ("AS1" < "FS1" < "Personal Knowledge")."""
    return sorted(keys)
