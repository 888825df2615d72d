"""Sentence pairs whose words always translate one way (the word-translation checks)."""

from __future__ import annotations

NOUNS = [
    ("dog", "Hund"), ("cat", "Katze"), ("horse", "Pferd"), ("bird", "Vogel"),
    ("child", "Kind"), ("teacher", "Lehrer"), ("farmer", "Bauer"), ("doctor", "Arzt"),
]  # fmt: skip
PLACES = [
    ("garden", "Garten"), ("kitchen", "Küche"), ("station", "Bahnhof"), ("forest", "Wald"),
    ("village", "Dorf"), ("market", "Markt"), ("river", "Fluss"), ("church", "Kirche"),
]  # fmt: skip


def word_corpus() -> list[tuple[str, str]]:
    """64 sentence pairs whose words translate one way: "The dog waits near the garden."."""
    return [
        (f"The {n} waits near the {p} every morning.", f"{nd} wartet jeden Morgen am {pd}.")
        for n, nd in NOUNS
        for p, pd in PLACES
    ]
