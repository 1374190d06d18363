"""The history audit (steadlith_core.history.audit): replaying a repository's first-parent history
gives, for every changed file and rule, exactly what `steadlith compare` says about the
same two versions; added files cost all their tokens, deleted ones nothing; renames are
followed; binary, non-UTF-8 blobs and submodules are reported, not fatal; a merge is
its diff against its first parent; each blob is chunked once per parameter set."""

from __future__ import annotations

import json

import pytest

from git_history import SUBMODULE, History
from steadlith_core import chunk
from steadlith_core.history.audit import audit, replay_file
from steadlith_core.history.audit_costs import AuditResult, CommitCost, FileCost, csv_rows, to_csv
from steadlith_core.history.changes import file_versions
from steadlith_core.cli.main import main
from steadlith_core.bench.examples import generate_prose, scattered_edits, tool_library_example
from steadlith_core.history.git_errors import GitError
from steadlith_core.history.repository import file_log, read_text_at, resolve_revision
from steadlith_core.chunking.lmx2_params import Lmx2Params
from steadlith_core.chunking.params import ChunkerParams
from steadlith_core.chunking.pipeline import Pipeline
from steadlith_core.progress import Cancelled

TEXT_A, TEXT_B, _ = tool_library_example()
NOTES = generate_prose(9000, seed=5)
RULES = ("tttd-v1", "lmx2-v1")
BASELINE = "fixed-tokens/1"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    h = History(tmp_path_factory.mktemp("audited"))
    h.c1 = h.commit({"docs/guide.md": TEXT_A, "notes.md": NOTES, "pic.md": b"\x89PNG\x00\x00",
                     "latin.md": "na\xefve\n".encode("latin-1"), "README.txt": "not markdown\n"}, "Start")
    h.c2 = h.commit({"docs/guide.md": TEXT_B}, "Insert one sentence")
    h.c3 = h.commit({"notes.md": None, "docs/notes.md": scattered_edits(NOTES, 2)}, "Move and edit the notes")
    h.side = h.commit({"docs/guide.md": scattered_edits(TEXT_B, 3, seed=2)}, "Edit on a branch", branch="side",
                      parents=[h.c3])
    merged = scattered_edits(TEXT_B, 3, seed=2) + "\n\nA paragraph the merge added.\n"
    h.c4 = h.commit({"docs/guide.md": merged, "latin.md": None}, "Merge branch 'side'", parents=[h.c3, h.side])
    h.c5 = h.commit({"docs/notes.md": None, "vendor/lib.md": SUBMODULE}, "Drop the notes, vendor a library")
    h.c6 = h.commit({"pic.md": "Now a text file.\n"}, "Replace the picture by text")
    h.result = audit(str(h.root))
    return h


def _by(result: AuditResult, commit: str) -> CommitCost:
    return next(c for c in result.commits if c.commit == commit)


def _cost(c: CommitCost, path: str, rule: str) -> FileCost:
    return next(f for f in c.files if f.path == path and f.rule == rule)


def test_the_first_parent_line_is_replayed_oldest_first(history):
    r = history.result
    assert [c.commit for c in r.commits] == [history.c1, history.c2, history.c3, history.c4, history.c5, history.c6]
    assert r.rules == (*RULES, BASELINE) and not r.partial
    assert _by(r, history.c4).parent == history.c3
    assert _by(r, history.c4).subject == "Merge branch 'side'"


@pytest.mark.parametrize("commit, path, old_path", [
    ("c2", "docs/guide.md", "docs/guide.md"),
    ("c3", "docs/notes.md", "notes.md"),
    ("c4", "docs/guide.md", "docs/guide.md"),  # a merge: against its first parent, c3
])
def test_each_changed_file_costs_what_compare_says(history, tmp_path, capsys, commit, path, old_path):
    """The audit's figures for a pair are `steadlith compare --rules tttd-v1,lmx2-v1`'s on
    the same two versions written to files: tokens and chunks to embed, reused share,
    phase-shift regions and violations, for both rules and the baseline."""
    c = _by(history.result, getattr(history, commit))
    before = resolve_revision(history.root, old_path, c.parent)
    after = resolve_revision(history.root, path, c.commit)
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(read_text_at(before), encoding="utf-8")
    b.write_text(read_text_at(after), encoding="utf-8")
    assert main(["compare", str(a), str(b), "--rules", "tttd-v1,lmx2-v1", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    summaries = {r["boundary_rule"]: r["summary"] for r in doc["rules"]}
    summaries[BASELINE] = doc["baselines"][0]["summary"]
    for rule, s in summaries.items():
        f = _cost(c, path, rule)
        got = (f.tokens_to_embed, f.chunks_to_embed, f.reused_share, f.phase_shift_regions, f.locality_violations,
               f.tokens, f.chunks)
        want = (s["tokens_to_embed"], s["chunks_to_embed"], s["reused_token_ratio"], s["phase_shift_regions"],
                s["violations"], s["tokens_b"], s["chunks_b"])
        assert got == want, rule
        assert f.old_path == old_path
    assert _cost(c, path, "tttd-v1").status == ("renamed" if old_path != path else "modified")


def test_the_inserted_sentence_breaks_tttd_locality_and_not_lmx2(history):
    """The tool-library insertion (README): tttd-v1 re-embeds a chunk past its margin,
    lmx2-v1 only the chunk holding the sentence."""
    c = _by(history.result, history.c2)
    assert _cost(c, "docs/guide.md", "tttd-v1").locality_violations == 1
    assert _cost(c, "docs/guide.md", "lmx2-v1").locality_violations == 0
    assert _cost(c, "docs/guide.md", "lmx2-v1").chunks_to_embed == 1
    assert c.totals["tttd-v1"].tokens_to_embed > c.totals["lmx2-v1"].tokens_to_embed


def test_added_files_cost_all_their_tokens_and_deleted_ones_nothing(history):
    r = history.result
    first = _by(r, history.c1)
    assert sorted({f.path for f in first.files}) == ["docs/guide.md", "notes.md"]  # README.txt is not *.md
    for rule, params in (("tttd-v1", ChunkerParams()), ("lmx2-v1", Lmx2Params())):
        whole = chunk(NOTES, params)
        f = _cost(first, "notes.md", rule)
        assert f.status == "added"
        assert (f.tokens_to_embed, f.chunks_to_embed, f.reused_share) == (
            int(whole.cum_tokens[-1]), len(whole.chunks), 0.0)
        assert list(f.chunk_tokens) == [ch.tokens for ch in whole.chunks]
    assert _cost(first, "notes.md", BASELINE).tokens_to_embed == int(chunk(NOTES).cum_tokens[-1])
    dropped = _by(r, history.c5)
    for rule in (*RULES, BASELINE):
        f = _cost(dropped, "docs/notes.md", rule)
        assert (f.status, f.tokens_to_embed, f.chunks_to_embed) == ("deleted", 0, 0)
    assert dropped.totals["tttd-v1"].tokens_to_embed == 0


def test_unreadable_blobs_and_submodules_are_skipped_with_a_reason(history):
    r = history.result
    reasons = {(s.commit, s.path): s.reason for s in r.skipped}
    assert reasons[(history.c1, "pic.md")].startswith("binary file (NUL byte at byte offset 4)")
    assert reasons[(history.c1, "latin.md")].startswith("not valid UTF-8: byte 0xef")
    assert "submodule" in reasons[(history.c5, "vendor/lib.md")]
    # once text, the former picture costs all its tokens: nothing of it was ever embedded
    last = _by(r, history.c6)
    assert "previous version: binary file" in reasons[(history.c6, "pic.md")]
    assert _cost(last, "pic.md", "tttd-v1").status == "added"
    assert _cost(last, "pic.md", "tttd-v1").tokens_to_embed == int(chunk("Now a text file.\n").cum_tokens[-1])
    # the deleted Latin-1 file is not chunked either, and costs nothing
    assert _cost(_by(r, history.c4), "latin.md", "tttd-v1").tokens_to_embed == 0


def test_totals_add_up_the_commits_and_rank_the_spikes(history):
    r = history.result
    for rule in (*RULES, BASELINE):
        assert r.totals[rule].tokens_to_embed == sum(c.tokens_to_embed(rule) for c in r.commits)
        assert r.totals[rule].files == sum(1 for c in r.commits for f in c.files if f.rule == rule)
    top = r.top_commits("tttd-v1", 3)
    assert top[0].commit == history.c1  # adding two documents costs the most
    costs = [c.tokens_to_embed("tttd-v1") for c in top]
    assert costs == sorted(costs, reverse=True) and len(top) == 3
    assert r.totals[BASELINE].tokens_to_embed > r.totals["lmx2-v1"].tokens_to_embed


def test_revision_ranges_and_max_commits_choose_the_commits(history):
    root = str(history.root)
    assert [c.commit for c in audit(root, revs=f"{history.c2}..HEAD~1").commits] == [history.c3, history.c4,
                                                                                      history.c5]
    assert [c.commit for c in audit(root, max_commits=2).commits] == [history.c5, history.c6]
    assert [c.commit for c in audit(root, revs="side").commits] == [history.c1, history.c2, history.c3,
                                                                    history.side]
    only_guide = audit(root, paths=["docs/guide.md"], params_by_rule={"lmx2-v1": None})
    assert {f.path for c in only_guide.commits for f in c.files} == {"docs/guide.md"}
    assert only_guide.rules == ("lmx2-v1", BASELINE)
    with pytest.raises(GitError, match="unknown revision 'nope'"):
        audit(root, revs="nope..HEAD")


def test_each_blob_is_chunked_once_per_parameter_set(history, monkeypatch):
    calls = []
    original = Pipeline.chunk

    def counting(self, text, params=None):
        calls.append((hash(text), params.params_hash))
        return original(self, text, params)

    monkeypatch.setattr(Pipeline, "chunk", counting)
    audit(str(history.root))
    assert calls and len(calls) == len(set(calls))


def test_progress_is_per_commit_and_a_stop_keeps_what_is_done(history):
    seen = []
    audit(str(history.root), progress=lambda done, total: seen.append((done, total)))
    assert seen == [(n, 6) for n in range(7)]

    def stop_after_two(done, total):
        if done == 2:
            raise Cancelled()

    with pytest.raises(Cancelled):
        audit(str(history.root), progress=stop_after_two)
    partial = audit(str(history.root), progress=stop_after_two, keep_partial=True)
    assert partial.partial and [c.commit for c in partial.commits] == [history.c1, history.c2]
    assert partial.to_dict()["partial"] is True and partial.to_dict()["planned_commits"] == 6


def test_replay_file_gives_the_audit_figures_of_one_file(history):
    """The sweep's unit: one file along its own log, renames followed."""
    log = file_log(str(history.root), "docs/notes.md", rev=history.c4)
    costs = replay_file(str(history.root), "docs/notes.md", [c.commit for c in reversed(log)])
    from_audit = [f for c in history.result.commits for f in c.files
                  if f.path in ("notes.md", "docs/notes.md") and f.status != "deleted"]
    assert costs == from_audit
    assert [f.status for f in costs if f.rule == "tttd-v1"] == ["added", "renamed"]


def test_file_versions_are_the_texts_the_replay_compares(history):
    """What a chunker other than the rules replays: renames followed, a binary first
    version skipped and the text that replaced it counted as added."""
    root = str(history.root)
    log = file_log(root, "docs/notes.md", rev=history.c4)
    versions = list(file_versions(root, "docs/notes.md", [c.commit for c in reversed(log)]))
    assert [(v.commit, v.status, v.path, v.old_path) for v in versions] == [
        (history.c1, "added", "notes.md", None), (history.c3, "renamed", "docs/notes.md", "notes.md")]
    assert versions[0].old_text is None and versions[0].new_text == NOTES == versions[1].old_text
    assert versions[1].new_text == scattered_edits(NOTES, 2)
    pic = list(file_versions(root, "pic.md", [history.c1, history.c6]))
    assert [(v.commit, v.status, v.old_text, v.new_text) for v in pic] == [
        (history.c6, "added", None, "Now a text file.\n")]


def test_file_versions_decode_each_version_once(history, count_calls):
    """One change's "after" is the next one's "before": read from the repository once
    (a sweep walks every file's versions for its diffs, then once per set)."""
    from steadlith_core.history import changes as changes_module

    root = str(history.root)
    calls = count_calls(changes_module, ["decode_blob"])
    versions = list(file_versions(root, "docs/guide.md", [history.c1, history.c2, history.c3, history.c4]))
    assert [v.commit for v in versions] == [history.c1, history.c2, history.c4]
    assert versions[1].new_text == versions[2].old_text
    assert calls["decode_blob"] == len({v.new_text for v in versions}) == 3


def test_json_and_csv_carry_every_file_cost(history):
    r = history.result
    doc = json.loads(json.dumps(r.to_dict()))
    assert doc["schema"] == "steadlith-audit/1" and doc["replayed_commits"] == 6
    assert doc["totals"]["tttd-v1"]["tokens_to_embed"] == r.totals["tttd-v1"].tokens_to_embed
    assert sum(len(c["files"]) for c in doc["commits"]) == len(csv_rows(r))
    text = to_csv(r)
    assert text.splitlines()[0].startswith("commit,short,when,author,subject,path")
    assert len(text.splitlines()) == 1 + len(csv_rows(r))


def test_the_cache_is_bounded_and_never_changes_a_figure(history, monkeypatch):
    """Versions are forgotten oldest first once their text passes the bound (a large
    history cannot hold every chunking in memory), and a replay that keeps almost
    nothing gives the same figures as one that keeps everything."""
    from steadlith_core.history import audit as audit_module

    cache = audit_module._VersionCache(max_chars=10)
    made = []

    def version(text):
        made.append(text)
        return audit_module._Version(text, None)

    for key, text in [("a", "123456"), ("b", "abcdef"), ("a", "123456")]:
        cache.get(key, lambda t=text: version(t))
    assert made == ["123456", "abcdef", "123456"]  # "a" was forgotten when "b" came in
    monkeypatch.setattr(audit_module._VersionCache.__init__, "__defaults__", (1,))
    assert audit(str(history.root)).to_dict() == history.result.to_dict()


def test_a_shallow_clone_says_its_oldest_commit_is_unknown_instead_of_inventing_a_spike(tmp_path):
    """CI checkouts are often shallow: their oldest commit has no parent to diff against.
    Counting every file as added there would make it the costliest commit; it is left
    out and reported instead."""
    h = History(tmp_path / "shallow")
    h.commit({"a.md": TEXT_A}, "Add")
    boundary = h.commit({"a.md": TEXT_B}, "Edit")
    last = h.commit({"a.md": TEXT_B + "\nOne more line.\n"}, "Append")
    (tmp_path / "shallow" / ".git" / "shallow").write_text(boundary + "\n")  # as `git clone --depth 2` leaves it
    result = audit(str(tmp_path / "shallow"))
    assert [c.commit for c in result.commits] == [boundary, last]
    first = result.commits[0]
    assert first.files == () and first.tokens_to_embed("tttd-v1") == 0
    assert "not in this shallow clone" in first.skipped[0].reason and first.skipped[0].path == ""
    assert result.top_commits("tttd-v1")[0].commit == last


def test_rules_with_different_windows_each_get_their_own_baseline(history):
    """The baseline's windows are the rule's max_tokens: two rules with different ones
    are measured against two baselines, each named by its window."""
    result = audit(str(history.root), params_by_rule={"tttd-v1": ChunkerParams(max_tokens=400),
                                                      "lmx2-v1": None})
    windows = ("fixed-tokens/1@400/chars4/1", "fixed-tokens/1@512/chars4/1")
    assert result.rules == ("tttd-v1", "lmx2-v1", *windows)
    guide = _cost(_by(result, history.c2), "docs/guide.md", windows[0])
    assert max(guide.chunk_tokens) <= 400 < max(_cost(_by(result, history.c2), "docs/guide.md", windows[1]).chunk_tokens)
