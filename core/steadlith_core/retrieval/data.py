"""Question sets and corpora for the retrieval evaluation, read and checked.

A *corpus folder* holds one text file per corpus; its id is the file stem. Texts are
read as UTF-8 with universal newlines (``\\r\\n`` becomes ``\\n``), which is how Python's
``open()`` reads them and so how Chroma's evaluation counted the reference offsets.

A *question set* is either Chroma's CSV (columns question, references, corpus_id;
references a JSON list of {content, start_index, end_index}) or JSON Lines with the same
three keys per object. Offsets are code points of the corpus text. Every problem is one
`RetrievalDataError` line naming the file and the row (CSV) or line (JSONL), and, for a
reference that does not match its corpus, the question.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..errors import SteadlithError
from ..jsonl import JsonlError, Limits, parse_line, read_jsonl

COLUMNS = ("question", "references", "corpus_id")
#: A question is an object holding a list of objects: a few levels deep, never thousands.
QUESTION_LIMITS = Limits(max_depth=6)


class RetrievalDataError(SteadlithError, ValueError):
    """A question set or a corpus folder cannot be used: one line saying where and why."""


@dataclass(frozen=True)
class Reference:
    """One highlighted passage: [start, end) in code points of its corpus."""

    start: int
    end: int

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Question:
    index: int  # position in the set, from 0
    text: str
    corpus_id: str
    references: tuple[Reference, ...]


@dataclass(frozen=True)
class QuestionSet:
    source: str
    questions: tuple[Question, ...]

    @property
    def corpus_ids(self) -> list[str]:
        """The corpora the questions ask about, in order of first appearance."""
        return list(dict.fromkeys(q.corpus_id for q in self.questions))


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit - 1] + "…")


def load_corpora(folder: str | Path) -> dict[str, str]:
    """{corpus id: text} for every visible regular file in `folder`, in name order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise RetrievalDataError(f"{folder}: not a folder of corpora")
    corpora: dict[str, str] = {}
    seen: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or not path.is_file():
            continue
        if path.stem in seen:
            raise RetrievalDataError(f"{path}: corpus id {path.stem!r} also belongs to {seen[path.stem].name}")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise RetrievalDataError(f"{path}: not UTF-8 (byte {e.start})") from None
        except OSError as e:
            raise RetrievalDataError(f"{path}: cannot read: {e.strerror or e}") from None
        seen[path.stem] = path
        corpora[path.stem] = text
    if not corpora:
        raise RetrievalDataError(f"{folder}: no corpus files in this folder")
    return corpora


def _int(value: Any) -> int | None:
    if type(value) is int:
        return value
    if isinstance(value, float) and value.is_integer():  # pandas writes ints back as floats at times
        return int(value)
    return None


def _question(where: str, index: int, record: Mapping[str, Any], references: Any,
              corpora: Mapping[str, str]) -> Question:
    text, corpus_id = record.get("question"), record.get("corpus_id")
    if not isinstance(text, str) or not text.strip():
        raise RetrievalDataError(f"{where}: the question is empty")
    if not isinstance(corpus_id, str) or corpus_id not in corpora:
        raise RetrievalDataError(f"{where}: unknown corpus id {corpus_id!r} (corpora: {', '.join(corpora)})")
    label = f"{where}: question {index + 1} ({_short(text)})"
    if not isinstance(references, list) or not references:
        raise RetrievalDataError(f"{label}: references must be a non-empty JSON list")
    corpus = corpora[corpus_id]
    refs = []
    for n, ref in enumerate(references, 1):
        if not isinstance(ref, dict):
            raise RetrievalDataError(f"{label}: reference {n} is not an object")
        start, end, content = _int(ref.get("start_index")), _int(ref.get("end_index")), ref.get("content")
        if start is None or end is None:
            raise RetrievalDataError(f"{label}: reference {n} needs integer start_index and end_index")
        if not 0 <= start < end <= len(corpus):
            raise RetrievalDataError(f"{label}: reference {n} [{start}, {end}) is not a non-empty range of "
                                     f"{corpus_id!r} (0 to {len(corpus)} code points)")
        if content is not None and corpus[start:end] != content:
            raise RetrievalDataError(f"{label}: reference {n} [{start}, {end}) does not match {corpus_id!r}: "
                                     f"content starts {_short(str(content), 30)}, corpus there "
                                     f"{_short(corpus[start:end], 30)}")
        refs.append(Reference(start, end))
    return Question(index, text, corpus_id, tuple(refs))


def _json(text: str, where: str, what: str) -> Any:
    """`text` parsed within the question files' limits (depth, integer digits, no NaN),
    or one line naming `where`: the same reader as a JSONL file's lines."""
    try:
        return parse_line(text.encode("utf-8", "surrogatepass"), 0, QUESTION_LIMITS)
    except JsonlError as e:
        raise RetrievalDataError(f"{where}: {what} {e.problem}") from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise RetrievalDataError(f"{path}: not UTF-8 (byte {e.start})") from None
    except OSError as e:
        raise RetrievalDataError(f"{path}: cannot read: {e.strerror or e}") from None


def _csv_questions(path: Path, corpora: Mapping[str, str]) -> list[Question]:
    # a spreadsheet's UTF-8 export starts with a byte-order mark: not part of the header
    raw = _read(path).removeprefix("\ufeff")
    reader = csv.DictReader(raw.splitlines(keepends=True), strict=True)
    try:
        header = reader.fieldnames or []
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise RetrievalDataError(f"{path}: row 0 (header): missing column(s) {', '.join(missing)}; "
                                     f"expected {', '.join(COLUMNS)}")
        out = []
        for row in reader:
            where = f"{path}: row {len(out) + 1} (line {reader.line_num})"
            if None in row or any(row.get(c) is None for c in COLUMNS):
                raise RetrievalDataError(f"{where}: expected {len(header)} fields")
            references = _json(row["references"], where, "references are")
            out.append(_question(where, len(out), row, references, corpora))
    except csv.Error as e:
        # the underlying reader's count: DictReader's moves only once a row parsed
        raise RetrievalDataError(f"{path}: line {reader.reader.line_num}: not CSV ({e})") from None
    return out


def _jsonl_questions(path: Path, corpora: Mapping[str, str]) -> list[Question]:
    out = []
    try:
        with open(path, "rb") as stream:
            for number, obj in read_jsonl(stream, QUESTION_LIMITS):
                where = f"{path}: line {number}"
                if not isinstance(obj, dict) or any(k not in obj for k in COLUMNS):
                    raise RetrievalDataError(f"{where}: expected an object with {', '.join(COLUMNS)}")
                references = obj["references"]
                if isinstance(references, str):  # the CSV's JSON-in-a-string, carried over as is
                    references = _json(references, where, "references are")
                out.append(_question(where, len(out), obj, references, corpora))
    except JsonlError as e:
        if e.byte is not None:
            raise RetrievalDataError(f"{path}: not UTF-8 (byte {e.byte})") from None
        raise RetrievalDataError(f"{path}: line {e.line}: {e.problem}") from None
    except OSError as e:
        raise RetrievalDataError(f"{path}: cannot read: {e.strerror or e}") from None
    return out


def load_questions(path: str | Path, corpora: Mapping[str, str]) -> QuestionSet:
    """The questions of a CSV (``.csv``) or JSON Lines file (anything else), checked
    against `corpora`."""
    path = Path(path)
    if not path.is_file():
        raise RetrievalDataError(f"{path}: no such question file")
    questions = _csv_questions(path, corpora) if path.suffix.lower() == ".csv" else _jsonl_questions(path, corpora)
    if not questions:
        raise RetrievalDataError(f"{path}: no questions")
    return QuestionSet(str(path), tuple(questions))
