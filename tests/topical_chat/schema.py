"""The Topical-Chat release's files, as a check: the keys in their order, the types and the values
of alexa/Topical-Chat's conversations/*.json and reading_sets/*.json (read from the released
valid_freq, valid_rare, test_freq and test_rare files; this check passes on all four and on their
pre-build reading sets). Returns problems, each naming the conversation and the field."""

from __future__ import annotations

from typing import Any

SENTIMENTS = {"Angry", "Curious to dive deeper", "Disgusted", "Fearful", "Happy", "Neutral", "Sad", "Surprised"}
RATINGS = {"Poor", "Not Good", "Passable", "Good", "Excellent", ""}
SOURCES = {"FS1", "FS2", "FS3", "AS1", "AS2", "AS3", "AS4", "Personal Knowledge"}


def conversations_problems(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return ["the file is not an object of conversations"]
    problems = []
    for cid, conv in data.items():
        where = f"{cid}"
        if not cid.startswith("t_"):
            problems.append(f"{where}: the id is not t_<uuid>")
        if list(conv) != ["article_url", "config", "content", "conversation_rating"]:
            problems.append(f"{where}: keys {list(conv)}")
            continue
        if not isinstance(conv["article_url"], str) or not conv["article_url"].startswith(("http://", "https://")):
            problems.append(f"{where}: article_url {conv['article_url']!r}")
        if conv["config"] not in ("A", "B", "C", "D"):
            problems.append(f"{where}: config {conv['config']!r}")
        if list(conv["conversation_rating"]) != ["agent_1", "agent_2"] or not set(conv["conversation_rating"].values()) <= RATINGS:
            problems.append(f"{where}: conversation_rating {conv['conversation_rating']!r}")
        if not isinstance(conv["content"], list) or not conv["content"]:
            problems.append(f"{where}: content is not a non-empty list")
            continue
        for n, turn in enumerate(conv["content"]):
            at = f"{where}: content[{n}]"
            if list(turn) != ["message", "agent", "sentiment", "knowledge_source", "turn_rating"]:
                problems.append(f"{at} keys {list(turn)}")
                continue
            sources = turn["knowledge_source"]
            if not isinstance(turn["message"], str) or turn["agent"] not in ("agent_1", "agent_2"):
                problems.append(f"{at}: message or agent")
            if turn["sentiment"] not in SENTIMENTS or turn["turn_rating"] not in RATINGS:
                problems.append(f"{at}: sentiment {turn['sentiment']!r} or turn_rating {turn['turn_rating']!r}")
            if not isinstance(sources, list) or not sources or not set(sources) <= SOURCES or sources != sorted(set(sources)):
                problems.append(f"{at}: knowledge_source {sources!r}")
    return problems


def reading_sets_problems(data: Any, build: str, conversations: dict[str, Any]) -> list[str]:
    if not isinstance(data, dict) or list(data) != list(conversations):
        return ["the reading sets are not those of the conversations, in their order"]
    keys = ["article_url", "config", "agent_1", "agent_2"] if build == "pre-build" else ["config", "agent_1", "agent_2", "article"]
    problems = []
    for cid, rs in data.items():
        if list(rs) != keys:
            problems.append(f"{cid}: keys {list(rs)}")
            continue
        if rs["config"] != conversations[cid]["config"]:
            problems.append(f"{cid}: config")
        for agent in ("agent_1", "agent_2"):
            if list(rs[agent]) != ["FS1", "FS2", "FS3"]:
                problems.append(f"{cid}.{agent}: sections {list(rs[agent])}")
            for key, section in rs[agent].items():
                wiki = list(section)[1] if len(section) == 3 else None
                if list(section) != ["entity", wiki, "fun_facts"] or wiki not in ("shortened_wiki_lead_section", "summarized_wiki_lead_section"):
                    problems.append(f"{cid}.{agent}.{key}: keys {list(section)}")
                    continue
                text_type = int if build == "pre-build" else str
                if not isinstance(section["entity"], str) or not isinstance(section[wiki], text_type):
                    problems.append(f"{cid}.{agent}.{key}: entity or {wiki}")
                if not isinstance(section["fun_facts"], list) or not all(isinstance(f, str) for f in section["fun_facts"]):
                    problems.append(f"{cid}.{agent}.{key}: fun_facts")
                summarized = rs["config"] == "B" and agent == "agent_2"
                if (wiki == "summarized_wiki_lead_section") != summarized:
                    problems.append(f"{cid}.{agent}.{key}: {wiki} in configuration {rs['config']}")
        if build == "post-build":
            article = rs["article"]
            expected = ["url"] if rs["config"] == "C" else ["url", "headline", "AS1", "AS2", "AS3", "AS4"]
            if list(article) != expected or not all(isinstance(v, str) for v in article.values()):
                problems.append(f"{cid}.article: keys {list(article)}")
            elif article["url"] != conversations[cid]["article_url"]:
                problems.append(f"{cid}.article.url is not the conversation's article_url")
        elif rs["article_url"] != conversations[cid]["article_url"]:
            problems.append(f"{cid}.article_url is not the conversation's")
    return problems
