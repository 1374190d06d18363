"""A sweep's journal: every finished task on disk as it finishes, so `--resume FILE` runs
only the rest and prints exactly what an uninterrupted run prints.

A journal is bound to its sweep. Its header line carries the plan's fingerprint (the
tool's version, the sources' contents, each set's params hash in grid order: see
SweepPlan.fingerprint), and a journal whose fingerprint differs is refused. Each result
line is then checked before it is believed, since its figures go straight into the rows:
the line's size and nesting are bounded before it is parsed (jsonl: `/dev/zero` or a
line of 100,000 brackets ends in one message, not a memory kill or a RecursionError);
it must be an object with exactly a result's fields; every count an integer, not a
string or a float, in [0, MAX_COUNT]; source and set indices of this plan; the unit keys
those of its source (the pairs' numbers, the versions', or commit ids of the file's
history, in order); the cut classes present for a rule's set and absent for an external
splitter's. Anything else is refused with one line naming the journal and the line.

A line cut short by a kill (the last line, with no newline) is dropped and the file cut
back to the lines before it: that task runs again.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from .._version import __version__
from ..errors import ExportError, FileError, SteadlithError, visible
from ..jsonl import MiB, JsonlError, Limits, bounded_lines, parse_line
from ..report.export import write_text_atomic
from .plan import SweepPlan, TaskKey
from .tasks import PairsSource, RepoFileSource, Source, TaskResult, needs_diffs

JOURNAL_SCHEMA = "steadlith-sweep-journal/1"
#: The largest count a result may hold: a trillion tokens is more than any history has.
MAX_COUNT = 10**12
FIELDS = ("source", "set", "units", "chunks_to_embed", "size_counts", "paragraph_cuts", "sentence_cuts",
          "interior_cuts", "violations", "phase_shift_regions")
_HEADER_FIELDS = ("schema", "fingerprint", "version", "sets", "sources")
#: A result line is an object of lists of pairs: three levels deep.
_DEPTH = 3
#: For tests only: seconds each result line waits with its first half written and flushed
#: and the rest not, so a kill-loop test kills the writer inside a line for sure instead of
#: by luck (a line takes microseconds). Unset, nothing waits.
PAUSE_MID_LINE_ENV = "STEADLITH_TEST_JOURNAL_PAUSE"


def _pause_mid_line() -> float:
    try:
        return max(0.0, float(os.environ.get(PAUSE_MID_LINE_ENV) or 0))
    except ValueError:
        return 0.0


class JournalError(SteadlithError):
    """A journal that cannot be resumed: one line naming the file and the line."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 72 else text[:69] + "..."


def _line_limits(plan: SweepPlan) -> Limits:
    """Bounds from the plan itself: a result line lists its source's units (key and
    count each) and the chunk sizes it saw; the file holds a header and a line a task."""
    def unit_keys(source: Source) -> int:
        if isinstance(source, PairsSource):
            return sum(len(k.encode("utf-8", "surrogatepass")) + 40 for k, _, _ in source.pairs)
        if isinstance(source, RepoFileSource):
            return sum(len(c) + 40 for c in source.commits)
        return sum(len(k.encode("utf-8", "surrogatepass")) + 40 for k in source.keys)

    longest = max((unit_keys(s) for s in plan.sources), default=0) * 2  # escapes can double a key
    line = 4 * MiB + longest  # 4 MiB: the other fields and some 200,000 chunk sizes
    tasks = len(plan.sources) * len(plan.sets)
    return Limits(max_bytes=(tasks + 1) * line, max_line_bytes=line, max_depth=_DEPTH)


class _Check:
    """The checks of one plan's result lines."""

    def __init__(self, plan: SweepPlan):
        self.plan = plan
        self.keys: list[tuple[str, ...]] = []
        for source in plan.sources:
            if isinstance(source, PairsSource):
                self.keys.append(tuple(k for k, _, _ in source.pairs))
            elif isinstance(source, RepoFileSource):
                self.keys.append(source.commits)
            else:
                self.keys.append(source.keys[1:])

    def result(self, doc: Any) -> TaskResult:
        if not isinstance(doc, dict):
            raise ValueError(f"a result must be an object, got {type(doc).__name__}")
        if set(doc) != set(FIELDS):
            unknown, missing = sorted(set(doc) - set(FIELDS)), [f for f in FIELDS if f not in doc]
            raise ValueError(f"unknown field {_shown(unknown[0])}" if unknown else f"no field {missing[0]!r}")
        source = _count(doc["source"], "source", len(self.plan.sources) - 1)
        set_index = _count(doc["set"], "set", len(self.plan.sets) - 1)
        rule = needs_diffs(self.plan.params_of(set_index))
        units = self._units(doc["units"], source)
        sizes = _pairs(doc["size_counts"], "size_counts", lambda k, n: (_count(k, "a chunk size", lo=0),
                                                                         _count(n, "a chunk count", lo=1)))
        if any(a[0] >= b[0] for a, b in zip(sizes, sizes[1:])):
            raise ValueError("size_counts must list each chunk size once, ascending")
        cuts = [doc[f] for f in ("paragraph_cuts", "sentence_cuts", "interior_cuts")]
        if rule:
            paragraph, sentence, interior = (_count(c, f) for c, f in zip(cuts, ("paragraph_cuts", "sentence_cuts",
                                                                                  "interior_cuts")))
            if paragraph + sentence > interior:
                raise ValueError("paragraph_cuts and sentence_cuts add up to more than interior_cuts")
        elif any(c is not None for c in cuts) or doc["violations"] != 0 or doc["phase_shift_regions"] != 0:
            raise ValueError(f"set {set_index} is an external splitter's: its cut classes are null and its "
                             "violations and phase_shift_regions 0")
        else:
            paragraph = sentence = interior = None
        return TaskResult(source, set_index, units, _count(doc["chunks_to_embed"], "chunks_to_embed"), sizes,
                          paragraph, sentence, interior, _count(doc["violations"], "violations"),
                          _count(doc["phase_shift_regions"], "phase_shift_regions"))

    def _units(self, value: Any, source: int) -> tuple[tuple[str, int], ...]:
        units = _pairs(value, "units", lambda k, n: (_key(k), _count(n, "a unit's tokens")))
        expected = self.keys[source]
        keys = [k for k, _ in units]
        if isinstance(self.plan.sources[source], RepoFileSource):
            # commits that did not change the file, or left it binary, have no unit
            place = {c: i for i, c in enumerate(expected)}
            at = [place.get(k) for k in keys]
            if None in at:
                raise ValueError(f"unit {_shown(keys[at.index(None)])} is not a commit of source {source}")
            if any(a >= b for a, b in zip(at, at[1:])):  # type: ignore[operator]
                raise ValueError(f"the units of source {source} are not its commits in order")
        elif tuple(keys) != expected:
            raise ValueError(f"the units are not those of source {source} ({len(expected)} of them, in order)")
        return units


def _count(value: Any, name: str, high: int = MAX_COUNT, *, lo: int = 0) -> int:
    if type(value) is not int or not lo <= value <= high:
        raise ValueError(f"{name} must be an integer in [{lo}, {high:,}], got {_shown(value)}")
    return value


def _key(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"a unit key must be a string, got {_shown(value)}")
    return value


def _pairs(value: Any, name: str, item) -> tuple:
    if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
        raise ValueError(f"{name} must be a list of pairs")
    return tuple(item(a, b) for a, b in value)


class Journal:
    """Finished task results, one JSON line each after a header binding them to the plan."""

    def __init__(self, path: str, plan: SweepPlan, *, resume: bool = False):
        self.path = path
        self.loaded: dict[TaskKey, TaskResult] = {}
        self._pause = _pause_mid_line()
        fingerprint = plan.fingerprint()
        try:
            if resume:
                self.loaded = self._read(plan, fingerprint)
                self._file = open(path, "a", encoding="utf-8")
            else:
                # the header replaces a previous journal all at once: a kill while starting
                # leaves the old journal or the new header, never an empty file
                header = {"schema": JOURNAL_SCHEMA, "fingerprint": fingerprint, "version": __version__,
                          "sets": len(plan.sets), "sources": len(plan.sources)}
                write_text_atomic(path, json.dumps(header, separators=(",", ":")) + "\n")
                self._file = open(path, "a", encoding="utf-8")
        except ExportError as e:
            raise FileError(path, f"cannot write the sweep journal: {e.reason}") from None
        except OSError as e:
            raise FileError(path, f"cannot {'resume' if resume else 'write'} the sweep journal: "
                                  f"{e.strerror or e}") from None

    def _refuse(self, line: int | None, problem: str) -> JournalError:
        where = visible(self.path) + (f": line {line}" if line is not None else "")
        return JournalError(f"{where}: {problem}; this journal cannot be resumed (run without --resume to start "
                            "again)")

    def _read(self, plan: SweepPlan, fingerprint: str) -> dict[TaskKey, TaskResult]:
        limits = _line_limits(plan)
        check = _Check(plan)
        results: dict[TaskKey, TaskResult] = {}
        good = 0  # the end of the last whole line
        with open(self.path, "rb") as f:
            try:
                for number, start, line in bounded_lines(f, limits):
                    if not line.endswith(b"\n"):
                        break  # the last line, cut short by a kill: dropped, and written again
                    good = start + len(line)
                    doc = parse_line(line, number, limits)
                    if number == 1:
                        self._header(doc, plan, fingerprint)
                        continue
                    try:
                        result = check.result(doc)
                    except ValueError as e:
                        raise self._refuse(number, str(e)) from None
                    if results.get(result.key, result) != result:
                        raise self._refuse(number, f"a second, different result for source {result.source}, "
                                                   f"set {result.set}")
                    results[result.key] = result
            except JsonlError as e:
                raise self._refuse(e.line, e.problem) from None
        if good == 0:
            raise self._refuse(None, f"empty, not a sweep journal ({JOURNAL_SCHEMA})")
        with open(self.path, "r+b") as f:
            if f.seek(0, 2) > good:
                f.truncate(good)
        return results

    def _header(self, doc: Any, plan: SweepPlan, fingerprint: str) -> None:
        if not isinstance(doc, dict) or doc.get("schema") != JOURNAL_SCHEMA:
            raise self._refuse(1, f"not a sweep journal ({JOURNAL_SCHEMA})")
        if set(doc) != set(_HEADER_FIELDS):
            raise self._refuse(1, f"a journal header has the fields {', '.join(_HEADER_FIELDS)}")
        if doc["version"] != __version__:
            raise self._refuse(1, f"written by steadlith-core {_shown(doc['version'])}, this is {__version__} "
                                  "(another version may count differently)")
        if doc["fingerprint"] != fingerprint or doc["sets"] != len(plan.sets) or doc["sources"] != len(plan.sources):
            raise self._refuse(1, "this journal is of another sweep (other sources or parameter sets)")

    def _write(self, doc: dict) -> None:
        line = json.dumps(doc, separators=(",", ":")) + "\n"
        if self._pause > 0:
            half = len(line) // 2
            self._file.write(line[:half])
            self._file.flush()
            time.sleep(self._pause)
            line = line[half:]
        self._file.write(line)
        self._file.flush()

    def record(self, result: TaskResult) -> None:
        try:
            self._write(result.to_dict())
        except OSError as e:
            raise FileError(self.path, f"cannot write the sweep journal: {e.strerror or e}") from None

    def close(self) -> None:
        self._file.close()
