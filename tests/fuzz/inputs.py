"""Targets over the files and arguments a user hands the tool: `--set NAME=VALUE`,
workspace files, retrieval question files, sweep journals and `PATH@REV` arguments."""

from __future__ import annotations

import csv
import io
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from hypothesis import strategies as st

from steadlith_core import ChunkerParams, Lmx2Params, ParameterError, SteadlithError, parse_assignments
from steadlith_core.chunking.lmx2_params import LMX2_INT_FIELDS
from steadlith_core.chunking.params import INT_FIELDS

from .contract import expect
from .strategies import ANY_TEXT, HOSTILE_TEXTS, JSON, dumps, encode, mutated
from .target import Target, temporary_folder

# -- --set NAME=VALUE -------------------------------------------------------------------

_NAMES = st.sampled_from([*INT_FIELDS, *LMX2_INT_FIELDS, "token_counter", "snap_mode", "boundary_rule", "horizon",
                          "nope", "", " max_tokens ", "max_tokens\x00"])
_VALUES = st.one_of(
    ANY_TEXT, st.integers(-(2**70), 2**70).map(str), st.integers(0, 2**70).map(hex),
    st.sampled_from(["lmx2-v1", "tttd-v1", "0x", "1_000", "١٢٣", "1e3", " 64", "0b11", "+5", "9" * 5000,
                     "paragraph-sentence/1", "chars4/1"]),
)
_ASSIGNMENT = st.one_of(st.tuples(_NAMES, _VALUES).map("=".join), ANY_TEXT)


def _check_set(_, case) -> None:
    items, lmx2_base = case
    base = Lmx2Params() if lmx2_base else None
    params = expect(lambda: parse_assignments(items, base), ParameterError)
    if params is not None:
        assert isinstance(params, (ChunkerParams, Lmx2Params))
        # what the parser accepted is a valid set: its hash and fields are readable
        assert len(params.params_hash) == 32


SET = Target("set", "--set NAME=VALUE lists (parse_assignments) -> params or ParameterError",
             st.tuples(st.lists(_ASSIGNMENT, max_size=5), st.booleans()), _check_set)

# -- workspace files ---------------------------------------------------------------------


@dataclass
class _Folder:
    path: Path
    valid: Any = None
    extra: Any = None


def _valid_workspace(folder: Path) -> dict:
    from steadlith_gui.model.workspace import DocumentRef, Workspace, workspace_to_dict

    doc = folder / "doc.md"
    doc.write_text("A document on disk.\n\nIts second paragraph.\n", encoding="utf-8")
    ws = Workspace({"a": DocumentRef.from_file(doc), "b": DocumentRef.pasted("pasted text é 😀", "pasted")},
                   Lmx2Params())
    return workspace_to_dict(ws, folder)


@contextmanager
def _workspace_folder() -> Iterator[_Folder]:
    with temporary_folder() as d:
        yield _Folder(d, _valid_workspace(d))


def _workspace_bytes() -> st.SearchStrategy:
    # the valid document is built per run (it names a file of the run's folder); here a
    # placeholder shape with the same keys is mutated, and `check` swaps in the real one
    return st.tuples(st.sampled_from(["valid", "mutated", "raw"]), st.randoms(use_true_random=False),
                     st.binary(max_size=300), JSON, HOSTILE_TEXTS)


def _check_workspace(ctx: _Folder, case) -> None:
    from steadlith_gui.model.workspace import WorkspaceError
    from steadlith_gui.model.workspace_loading import load_workspace
    from steadlith_gui.model.workspace import save_workspace, workspace_to_dict

    kind, rnd, raw, value, hostile = case
    if kind == "raw":
        data = rnd.choice([raw, encode(dumps(value)), encode(hostile)])
    else:
        doc = json.loads(json.dumps(ctx.valid))
        if kind == "mutated":
            _mutate(doc, rnd, value)
        data = encode(dumps(doc))
    path = ctx.path / "fuzz.steadlith"
    path.write_bytes(data)
    ws = expect(lambda: load_workspace(path), WorkspaceError)
    if ws is not None:  # what loads saves and loads back the same
        again = ctx.path / "again.steadlith"
        save_workspace(ws, again)
        assert workspace_to_dict(load_workspace(again), ctx.path) == workspace_to_dict(ws, ctx.path)


def _mutate(doc: Any, rnd, value: Any) -> None:
    """One seeded mutation of `doc` in place: a value replaced, removed or added."""
    slots = []

    def walk(v):
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, child in items:
            slots.append((v, k))
            walk(child)

    walk(doc)
    for _ in range(rnd.randint(1, 3)):
        if not slots:
            return
        container, key = rnd.choice(slots)
        action = rnd.choice(["replace", "replace", "delete", "add"])
        try:
            if action == "replace":
                container[key] = value
            elif action == "delete":
                del container[key]
            elif isinstance(container, dict):
                container[f"k{rnd.randint(0, 9)}"] = value
            else:
                container.append(value)
        except (KeyError, IndexError):  # removed by an earlier step
            pass


WORKSPACE = Target("workspace", "workspace files (load_workspace) -> Workspace (which saves and loads back) or "
                   "WorkspaceError", _workspace_bytes(), _check_workspace, _workspace_folder)

# -- retrieval question files ------------------------------------------------------------

CORPUS = "The quick brown fox jumps over the lazy dog.\n\nA second paragraph, é and 😀 in it.\n"
VALID_QUESTION = {"question": "Where does the fox jump?", "corpus_id": "guide",
                  "references": [{"start_index": 4, "end_index": 19, "content": CORPUS[4:19]}]}


def _csv_text(records: list) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["question", "references", "corpus_id"])
    for r in records:
        if isinstance(r, dict):
            writer.writerow([r.get("question"), dumps(r.get("references")), r.get("corpus_id")])
        else:
            writer.writerow(r if isinstance(r, list) else [r])
    return out.getvalue()


_QUESTION_RECORDS = st.lists(st.one_of(st.just(VALID_QUESTION), mutated(VALID_QUESTION), JSON), min_size=0, max_size=4)
_QUESTIONS = st.one_of(
    st.tuples(st.just(".jsonl"), _QUESTION_RECORDS.map(lambda rs: encode("\n".join(dumps(r) for r in rs)))),
    st.tuples(st.just(".csv"), _QUESTION_RECORDS.map(lambda rs: encode(_csv_text(rs)))),
    st.tuples(st.sampled_from([".jsonl", ".csv"]), st.one_of(st.binary(max_size=300), HOSTILE_TEXTS.map(encode))),
    st.tuples(st.just(".csv"), HOSTILE_TEXTS.map(lambda h: encode("question,references,corpus_id\nq," + h + ",guide\n"))),
)


def _check_questions(ctx: Path, case) -> None:
    from steadlith_core.retrieval import RetrievalDataError, load_questions

    suffix, data = case
    path = ctx / f"questions{suffix}"
    path.write_bytes(data)
    corpora = {"guide": CORPUS}
    qs = expect(lambda: load_questions(path, corpora), RetrievalDataError)
    if qs is not None:
        assert qs.questions
        for q in qs.questions:
            assert q.corpus_id in corpora and q.text.strip()
            assert all(0 <= r.start < r.end <= len(corpora[q.corpus_id]) for r in q.references)


QUESTIONS = Target("questions", "retrieval question files, JSONL and CSV (load_questions) -> questions or "
                   "RetrievalDataError", _QUESTIONS, _check_questions)

# -- sweep journals ----------------------------------------------------------------------


@contextmanager
def _journal_folder() -> Iterator[_Folder]:
    from steadlith_core.sweep.grid import build_grid
    from steadlith_core.sweep.journal import Journal
    from steadlith_core.sweep.plan import SweepPlan
    from steadlith_core.sweep.run import run_sweep
    from steadlith_core.sweep.tasks import batch_pairs

    with temporary_folder() as d:
        pairs = [("1", "One two three. Four five six.\n\nSeven eight.", "One two three. Four SIX.\n\nSeven eight."),
                 ("2", "Alpha beta gamma delta.", "Alpha beta gamma delta epsilon.")]
        plan = SweepPlan(batch_pairs(pairs, chars_per_task=40), build_grid(["min_tokens=2,3", "max_tokens=12"]).sets)
        path = d / "journal.jsonl"
        journal = Journal(str(path), plan)
        run_sweep(plan, journal=journal)
        journal.close()
        lines = path.read_text(encoding="utf-8").splitlines()
        yield _Folder(d, [json.loads(line) for line in lines], plan)


_JOURNAL = st.tuples(st.lists(st.tuples(st.sampled_from(["valid", "mutated", "json", "hostile", "bytes"]),
                                        st.randoms(use_true_random=False), JSON, HOSTILE_TEXTS,
                                        st.binary(max_size=80)), max_size=6),
                     st.booleans(), st.integers(0, 200))


def _check_journal(ctx: _Folder, case) -> None:
    from steadlith_core.sweep.journal import Journal

    steps, keep_header, cut = case
    header, *results = ctx.valid
    lines = [dumps(header)] if keep_header else []
    for kind, rnd, value, hostile, raw in steps:
        if kind == "valid":
            lines.append(dumps(rnd.choice(results)))
        elif kind == "mutated":
            doc = json.loads(json.dumps(rnd.choice(ctx.valid)))
            _mutate(doc, rnd, value)
            lines.append(dumps(doc))
        elif kind == "json":
            lines.append(dumps(value))
        elif kind == "hostile":
            lines.append(hostile)
        else:
            lines.append(raw.decode("latin-1"))
    data = b"".join(encode(line) + b"\n" for line in lines)
    if cut:  # a journal cut short by a kill
        data = data[: max(0, len(data) - cut)]
    path = ctx.path / "resumed.jsonl"
    path.write_bytes(data)
    journal = expect(lambda: Journal(str(path), ctx.extra, resume=True), SteadlithError)
    if journal is not None:
        journal.close()
        assert set(journal.loaded) <= set(ctx.extra.task_keys())


JOURNAL = Target("journal", "sweep journals on --resume (Journal) -> the finished tasks or SteadlithError",
                 _JOURNAL, _check_journal, _journal_folder)

# -- PATH@REV ----------------------------------------------------------------------------


@contextmanager
def _repository() -> Iterator[_Folder]:
    import pygit2

    with temporary_folder() as d:
        repo = pygit2.init_repository(str(d / "repo"), initial_head="main")
        sig = pygit2.Signature("Fuzz", "fuzz@example.org", 1_700_000_000, 0)
        parents: list = []
        for n in range(2):
            (d / "repo" / "doc.md").write_text(f"version {n}\n", encoding="utf-8")
            (d / "repo" / "notes@v2.md").write_text("a name with an at sign\n", encoding="utf-8")
            repo.index.add_all()
            repo.index.write()
            tree = repo.index.write_tree()
            parents = [repo.create_commit("HEAD", sig, sig, f"commit {n}", tree, parents)]
        (d / "repo" / "sub").mkdir()
        yield _Folder(d, str(d / "repo"), str(parents[0]))


_PREFIXES = st.sampled_from(["doc.md", "notes@v2.md", "notes", "sub", "sub/new.md", "", ".git", "missing.md",
                             "../outside.md", "doc.md\x00x", "doc\udcff.md"])
_REVS = st.one_of(st.sampled_from(["HEAD", "HEAD~1", "HEAD~2", "HEAD~99999999999999999999", "main@{2}", "main@{99}",
                                   "{", "@", "HEAD^{tree}", "HEAD:doc.md", ":/commit", "..", "HEAD..HEAD", "-1",
                                   "v2.md", "refs/heads/main", "\x00", "HEAD\udcff", "@{-1}", "0" * 40, "f" * 80]),
                  ANY_TEXT)


def _check_revision(ctx: _Folder, case) -> None:
    from steadlith_core.history.revisions import parse_revision_arg

    prefix, revs, commit_prefix = case
    rev = "@".join(revs) if revs else ""
    if commit_prefix:
        rev = ctx.extra[:commit_prefix] + rev
    arg = os.path.join(ctx.valid, prefix) + ("@" + rev if rev or revs else "")
    ref = expect(lambda: parse_revision_arg(arg), SteadlithError)
    if ref is not None:
        assert len(ref.commit) == 40 and ref.path and not ref.path.startswith("/")


REVISION = Target("revision", "PATH@REV arguments (parse_revision_arg) -> a file at a commit, None, or GitError",
                  st.tuples(_PREFIXES, st.lists(_REVS, max_size=3), st.integers(0, 12)), _check_revision,
                  _repository)
