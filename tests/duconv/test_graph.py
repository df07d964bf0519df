"""The knowledge graph: triple imports (TSV and DuConv files) and goal generation."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.graph.services import GoalError, goal_check, goal_generate, knowledge_view
from retrieval.models import KnowledgeSource, Triple

pytestmark = pytest.mark.django_db


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_it_imports_tsv_triples_exactly_and_once(tmp_path: Path) -> None:
    path = write(tmp_path, "g.tsv", "米歇尔 · 菲佛\t代表作\t101次 新年快乐\n\nA\tp\tv \nA\tp\tv \n# a comment\n")
    call_command("import_knowledge", "triples", str(path), source="kg", verbosity=0)
    call_command("import_knowledge", "triples", str(path), source="kg", verbosity=0)
    rows = sorted(Triple.objects.filter(source__slug="kg").values_list("subject", "property", "value"))
    assert rows == [("A", "p", "v "), ("米歇尔 · 菲佛", "代表作", "101次 新年快乐")]


def test_it_refuses_a_line_with_the_wrong_number_of_fields(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.tsv", "A\tp\tv\nB\tonly two\n")
    with pytest.raises(CommandError, match=r"line 2: expected 3 tab-separated fields .* found 2; nothing was imported"):
        call_command("import_knowledge", "triples", str(path), source="kg", verbosity=0)
    assert not Triple.objects.exists()
    assert not KnowledgeSource.objects.filter(slug="kg").exists()


def test_it_imports_duconv_goal_and_knowledge_triples(tmp_path: Path) -> None:
    line = '{"goal": [["START", "A", "B"], ["A", "导演", "B"]], "knowledge": [["A", "类型", "犯罪"], ["A", "导演", "B"]], "conversation": []}\n'
    path = write(tmp_path, "s.txt", line + "not json\n")
    with pytest.raises(CommandError, match="line 2: invalid JSON"):
        call_command("import_knowledge", "duconv", str(path), source="kg", verbosity=0)
    path = write(tmp_path, "s.txt", line + line)
    call_command("import_knowledge", "duconv", str(path), source="kg", verbosity=0)
    assert sorted(Triple.objects.values_list("subject", "property", "value")) == [("A", "导演", "B"), ("A", "类型", "犯罪")]


def test_it_generates_linked_goals_with_their_knowledge(films: KnowledgeSource) -> None:
    rng = random.Random(3)
    for _ in range(20):
        goal = goal_generate(source_id=films.pk, rng=rng)
        start, *relations = goal.goal
        a, b = start[1], start[2]
        assert start[0] == "START" and a != b and relations
        # A's triple names B, B's names A, or both share a property and value.
        if len(relations) == 1:
            assert relations[0] in ([a, relations[0][1], b], [b, relations[0][1], a])
        else:
            assert relations[0][0] == a and relations[1][0] == b and relations[0][1:] == relations[1][1:]
        assert 11 <= len(goal.knowledge) <= 21
        assert {t[0] for t in goal.knowledge} <= {a, b}


def test_it_refuses_a_goal_naming_an_entity_without_triples(films: KnowledgeSource) -> None:
    with pytest.raises(GoalError, match="names 'Nobody', which has no triples"):
        goal_check(source_id=films.pk, goal=[["START", "Inception", "Nobody"]])


def test_it_groups_the_agent_view_by_entity() -> None:
    view = knowledge_view(goal=[["START", "A", "B"], ["A", "p", "B"]], knowledge=[["B", "q", "1"], ["A", "p", "B"], ["B", "r", "2"]])
    assert view["path"] == ["START", "A", "B"]
    assert [(e["entity"], [t["id"] for t in e["triples"]]) for e in view["entities"]] == [("A", [1]), ("B", [0, 2])]
