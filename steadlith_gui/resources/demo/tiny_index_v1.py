"""A tiny in-memory inverted index with BM25 ranking.

A demo document for Steadlith Inspector: small enough
to read in the panes, long enough to be cut into a few
chunks. Lines are kept short so they fit a narrow pane.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

WORD = re.compile(r"[\w'-]+", re.UNICODE)
STOPWORDS = frozenset(
    "a an and are as at be by for from in is it of on or"
    " that the to was with".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased words without stopwords."""
    words = (m.group().lower() for m in WORD.finditer(text))
    return [w for w in words if w not in STOPWORDS]


@dataclass
class Posting:
    doc_id: int
    count: int


def _postings() -> defaultdict:
    return defaultdict(list)


@dataclass
class Index:
    k1: float = 1.2
    b: float = 0.75
    postings: dict = field(default_factory=_postings)
    lengths: dict[int, int] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)

    def add(self, doc_id: int, text: str) -> None:
        """Index a document; the same id again replaces it."""
        if doc_id in self.texts:
            self.remove(doc_id)
        words = tokenize(text)
        self.texts[doc_id] = text
        self.lengths[doc_id] = len(words)
        for word, count in Counter(words).items():
            self.postings[word].append(Posting(doc_id, count))

    def remove(self, doc_id: int) -> None:
        for word in list(self.postings):
            kept = [
                p for p in self.postings[word]
                if p.doc_id != doc_id
            ]
            if kept:
                self.postings[word] = kept
            else:
                del self.postings[word]
        self.lengths.pop(doc_id, None)
        self.texts.pop(doc_id, None)

    @property
    def average_length(self) -> float:
        if not self.lengths:
            return 0.0
        return sum(self.lengths.values()) / len(self.lengths)

    def idf(self, word: str) -> float:
        n = len(self.lengths)
        df = len(self.postings.get(word, ()))
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def search(self, query: str, limit: int = 10) -> list:
        """Documents ranked by BM25, best first."""
        scores: dict[int, float] = defaultdict(float)
        avg = self.average_length or 1.0
        k1, b = self.k1, self.b
        for word in set(tokenize(query)):
            idf = self.idf(word)
            for p in self.postings.get(word, ()):
                size = self.lengths[p.doc_id] / avg
                norm = 1 - b + b * size
                tf = p.count * (k1 + 1) / (p.count + k1 * norm)
                scores[p.doc_id] += idf * tf
        ranked = sorted(
            scores.items(), key=lambda kv: (-kv[1], kv[0])
        )
        return ranked[:limit]

    def snippet(self, doc_id: int, query: str, width=60) -> str:
        """The text around the first query word found."""
        text = self.texts[doc_id]
        lowered = text.lower()
        for word in tokenize(query):
            at = lowered.find(word)
            if at >= 0:
                start = max(0, at - width // 2)
                piece = text[start : start + width]
                lead = "…" if start else ""
                return lead + piece.replace("\n", " ") + "…"
        return text[:width]


DOCUMENTS = {
    1: "Content-defined chunking cuts where the text says so.",
    2: "Fixed windows move every cut after an edit.",
    3: "A params hash makes chunk hashes depend on parameters.",
}


def demo() -> None:
    index = Index()
    for doc_id, text in DOCUMENTS.items():
        index.add(doc_id, text)
    for doc_id, score in index.search("chunk hash parameters"):
        snippet = index.snippet(doc_id, "chunk hash")
        print(f"{doc_id}  {score:6.3f}  {snippet}")


if __name__ == "__main__":
    demo()
