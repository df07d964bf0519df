"""groundwork.topology: the production Procfile's CPU priorities."""

from __future__ import annotations

from groundwork.topology import procfile


def niceness(command: str) -> int:
    words = command.split()
    return int(words[words.index("-n") + 1]) if words[0] == "nice" else 0


def test_chat_processes_come_first_then_retrieval_then_reranking(tmp_path) -> None:
    lines = dict(line.split(": ", 1) for line in procfile(node_ports=[8001, 8002], out=tmp_path).splitlines())
    assert niceness(lines["web1"]) == niceness(lines["web2"]) == 0
    assert 0 < niceness(lines["default"]) < niceness(lines["rerank"])
    assert " -Q rerank " in lines["rerank"] and " -Q default " in lines["default"]
