"""A small Curiosity fact database written the way the original is laid out
(docs/schemas.md#curiosity), for tests: two geographic topics with four sections each, entity
mentions and page views."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from retrieval.curiosity.factdb import SCHEMA

# entity → page views (popularity from common to obscure)
ENTITIES = {
    "Germany": 900_000, "South Africa": 800_000, "Atlantic Ocean": 700_000, "Portugal": 600_000,
    "France": 950_000, "Pacific Ocean": 650_000, "Windhoek": 90_000, "Kalahari Desert": 80_000,
    "Namib Desert": 70_000, "Herero people": 30_000, "Otjiwarongo": 5_000, "Papeete": 60_000,
    "Paul Gauguin": 120_000, "Bora Bora": 110_000, "Society Islands": 20_000, "Mo'orea": 9_000,
    "Angola": 300_000, "Botswana": 250_000, "Zambia": 200_000, "Diamond": 400_000,
}

FACTS = {
    "Namibia": {
        "History": [
            ("Namibia was a German colony from 1884 until the First World War.", ["Germany"]),
            ("South Africa administered the territory after 1915.", ["South Africa"]),
            ("The Herero people resisted colonial rule in 1904.", ["Herero people", "Germany"]),
            ("Portugal explored the coast in the fifteenth century.", ["Portugal"]),
            ("Namibia became independent in 1990 after a long war.", []),
            ("The capital Windhoek was founded as a German fort.", ["Windhoek", "Germany"]),
        ],
        "Economy": [
            ("Mining of diamond deposits is the largest part of the economy.", ["Diamond"]),
            ("Fishing in the Atlantic Ocean is an important industry.", ["Atlantic Ocean"]),
            ("Tourism brings visitors to the Namib Desert dunes.", ["Namib Desert"]),
            ("The currency is pegged to the South African rand.", ["South Africa"]),
            ("Otjiwarongo is a centre of cattle farming.", ["Otjiwarongo"]),
            ("Uranium is exported mostly to Europe.", []),
        ],
        "Geography": [
            ("The Kalahari Desert covers the east of the country.", ["Kalahari Desert"]),
            ("Namibia borders Angola and Zambia in the north.", ["Angola", "Zambia"]),
            ("Botswana lies to the east.", ["Botswana"]),
            ("The Namib Desert is one of the oldest deserts in the world.", ["Namib Desert"]),
            ("The coast faces the cold Benguela current of the Atlantic Ocean.", ["Atlantic Ocean"]),
        ],
        "Culture": [
            ("English is the only official language.", []),
            ("Many people speak Afrikaans and German at home.", ["Germany"]),
            ("Football is the most popular sport.", []),
            ("Windhoek holds a yearly carnival with German roots.", ["Windhoek", "Germany"]),
        ],
    },
    "Tahiti": {
        "History": [
            ("Polynesians settled Tahiti around the year 900.", []),
            ("France made Tahiti a protectorate in 1842.", ["France"]),
            ("The painter Paul Gauguin lived on Tahiti in the 1890s.", ["Paul Gauguin"]),
            ("Papeete became the capital of French Polynesia.", ["Papeete", "France"]),
        ],
        "Geography": [
            ("Tahiti is the largest island of the Society Islands.", ["Society Islands"]),
            ("It lies in the southern Pacific Ocean.", ["Pacific Ocean"]),
            ("Mo'orea can be seen across the sea from Papeete.", ["Mo'orea", "Papeete"]),
            ("Bora Bora lies to the northwest.", ["Bora Bora"]),
        ],
        "Economy": [
            ("Tourism is the main industry of the island.", []),
            ("Black pearls are farmed in the lagoons.", []),
            ("Most goods are imported from France.", ["France"]),
        ],
        "Culture": [
            ("Tahitian dance is called ori Tahiti.", []),
            ("Outrigger canoe racing is a national sport.", []),
            ("Paul Gauguin painted many scenes of daily life.", ["Paul Gauguin"]),
        ],
    },
}

SUMMARIES = {
    "Namibia": "Namibia is a country in southern Africa on the Atlantic coast.",
    "Tahiti": "Tahiti is the largest island of French Polynesia, in the Pacific Ocean.",
    "Windhoek": "Windhoek is the capital of Namibia.",
}
PAGE_VIEWS = {"Namibia": 500_000, "Tahiti": 400_000}
FIRST_FACT_ID = 7000


def write_factdb(path: Path, facts: dict = FACTS) -> dict[str, list[int]]:
    """Write the db; returns each page's fact ids in order."""
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA)
    fid, mid = FIRST_FACT_ID, 1
    ids: dict[str, list[int]] = {}
    for page, sections in facts.items():
        for section_idx, (section, rows) in enumerate([("Body", [(SUMMARIES[page], [])]), *sections.items()]):
            for paragraph_idx, (text, mentions) in enumerate(rows):
                connection.execute(
                    "INSERT INTO fact VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (fid, page, section_idx, section, paragraph_idx, text, PAGE_VIEWS[page]),
                )
                for title in mentions:
                    connection.execute(
                        "INSERT INTO mention VALUES (?, ?, ?, ?, ?, ?)", (mid, True, ENTITIES[title], page, title, fid)
                    )
                    mid += 1
                ids.setdefault(page, []).append(fid)
                fid += 3  # ids with gaps, as in a real db
    for n, (title, text) in enumerate(SUMMARIES.items(), start=1):
        connection.execute("INSERT INTO wiki VALUES (?, ?, ?, ?)", (n, title, text, False))
    connection.commit()
    connection.close()
    return ids
