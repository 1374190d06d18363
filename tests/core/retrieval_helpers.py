"""A tiny retrieval benchmark written by the tests (never the shared data): two corpora
whose paragraphs repeat a topic's sentences, four of them holding a sentence with a word
found nowhere else, and questions that ask for exactly those (imported as
`retrieval_helpers`, like cli_helpers)."""

from __future__ import annotations

import json
from pathlib import Path

TOPICS = {
    "garden": ["Tomatoes need full sun and steady watering.", "Basil grows well beside tomatoes in summer.",
               "Compost feeds the soil through the winter months.", "Slugs eat young lettuce leaves at night."],
    "harbor": ["The ferry leaves the harbor at seven each morning.", "Fishing boats unload their catch by the pier.",
               "A lighthouse guards the rocky northern entrance.", "Storms close the harbor a few days each year."],
}
MARKS = ["amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "heron"]


def corpus_text(cid, sentences):
    """Twelve paragraphs of the topic's sentences, four of them holding a sentence with
    a word found nowhere else: the questions ask for those."""
    paragraphs = []
    for i in range(12):
        body = " ".join(sentences[(i + j) % len(sentences)] for j in range(3))
        if i % 3 == 1:
            body += f" The {MARKS[i // 3 + 4 * (cid == 'harbor')]} gate opens at {i} o'clock."
        paragraphs.append(body)
    return "\n\n".join(paragraphs) + "\n"


def write_benchmark(root: Path) -> tuple[str, str]:
    """Two corpora in ROOT/corpora and eight questions in ROOT/questions.jsonl (the layout
    of Chroma's benchmark): (corpora folder, question file)."""
    folder = root / "corpora"
    folder.mkdir(parents=True)
    lines = []
    for cid, sentences in TOPICS.items():
        text = corpus_text(cid, sentences)
        (folder / f"{cid}.md").write_text(text, encoding="utf-8")
        for n in range(4):
            mark = MARKS[n + 4 * (cid == "harbor")]
            start = text.index(f"The {mark} gate")
            end = text.index("o'clock.", start) + len("o'clock.")
            lines.append(json.dumps({"question": f"When does the {mark} gate open?",
                                     "references": [{"content": text[start:end], "start_index": start,
                                                     "end_index": end}],
                                     "corpus_id": cid}))
    questions = root / "questions.jsonl"
    questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(folder), str(questions)
