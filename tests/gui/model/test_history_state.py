"""The History dock's Qt-free state: which pair a commit loads (renames followed), the
spikes, the one scale of the bars; and the workspace entries of revisions."""

import pytest
from git_helpers import commit, prose
import pygit2

from steadlith_core.history.audit import replay_file
from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_gui.model.history_state import HistoryState, HistoryTarget, Revision, locate, read_history
from steadlith_gui.model.workspace import WorkspaceError
from steadlith_gui.model.workspace_loading import workspace_from_dict


@pytest.fixture
def renamed(tmp_path):
    """notes.md added, edited, renamed to guide.md with an edit, edited again."""
    repo = pygit2.init_repository(str(tmp_path / "repo"))
    v1 = prose(20, seed=3)
    ids = [commit(repo, "Add notes", {"notes.md": v1}, 1_700_000_000)]
    v2 = v1.replace("Paragraph 2:", "Paragraph two:")
    ids.append(commit(repo, "Edit notes", {"notes.md": v2}, 1_700_000_100))
    v3 = v2.replace("Paragraph 9:", "Paragraph nine:")
    ids.append(commit(repo, "Rename to guide", {"notes.md": None, "guide.md": v3}, 1_700_000_200))
    ids.append(commit(repo, "Edit guide", {"guide.md": v3.replace("Paragraph 15:", "Paragraph 15, edited:")},
                      1_700_000_300))
    return tmp_path / "repo", ids


def state_of(root, path="guide.md") -> HistoryState:
    state = HistoryState()
    state.set_history(*read_history(locate(str(root / path))))
    return state


def test_a_click_on_a_rename_loads_the_old_name_at_the_parent(renamed):
    root, ids = renamed
    state = state_of(root)
    assert [c.commit for c in state.commits] == list(reversed(ids))
    before, after = state.pair(state.row_of(ids[2]))
    assert before == Revision(str(root), "notes.md", ids[1])
    assert after == Revision(str(root), "guide.md", ids[2])
    assert state.covers(str(root), "notes.md") and state.covers(str(root), "guide.md")
    assert not state.covers(str(root), "other.md")


def test_the_commit_that_added_the_file_has_no_before(renamed):
    root, ids = renamed
    state = state_of(root)
    before, after = state.pair(state.row_of(ids[0]))
    assert before is None and after.commit == ids[0]


def test_a_file_no_longer_at_head_is_listed_from_the_commit_shown(renamed):
    root, ids = renamed
    with pytest.raises(Exception):
        read_history(HistoryTarget(str(root), "notes.md"))
    target, commits = read_history(HistoryTarget(str(root), "notes.md"), fallback_rev=ids[1])
    assert target.rev == ids[1] and [c.commit for c in commits] == [ids[1], ids[0]]


def test_costs_fill_the_columns_and_one_scale_holds_every_bar(renamed):
    root, ids = renamed
    state = state_of(root)
    params = {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params()}
    costs = replay_file(str(root), "guide.md", [c.commit for c in reversed(state.commits)], params)
    state.set_costs(costs, params)
    for row in range(len(ids)):
        assert all(state.tokens(row, col) is not None for col in ("tttd-v1", "lmx2-v1", "fixed"))
    # adding the file cost all of it: that commit is marked and kept off the scale
    added = state.row_of(ids[0])
    assert [r for r in range(len(ids)) if state.added(r)] == [added]
    assert state.scale == max(c.tokens_to_embed for c in costs if c.commit != ids[0] and c.rule in state.shown_columns)
    assert state.spike_rows() == [state.row_of(ids[0])]  # adding the file cost all of it
    assert not state.stale(params)
    assert state.stale({"tttd-v1": ChunkerParams(min_tokens=50), "lmx2-v1": Lmx2Params()})


def test_a_workspace_revision_entry_is_checked_field_by_field(tmp_path):
    def doc(revision):
        return {"format": "steadlith-workspace", "version": 1,
                "documents": {"a": {"path": None, "name": "x", "revision": revision}}}

    ws = workspace_from_dict(doc({"repo": "repo", "path": "doc.md", "commit": "ABCDEF12" * 5}), tmp_path)
    assert ws.documents["a"].revision == Revision(str(tmp_path / "repo"), "doc.md", "abcdef12" * 5)
    for revision, where in (({"repo": "r", "path": "p", "commit": "HEAD"}, "documents.a.revision.commit"),
                            ({"repo": "r", "commit": "abcd"}, "documents.a.revision.path"),
                            ({"repo": "", "path": "p", "commit": "abcd"}, "documents.a.revision.repo"),
                            ("r@abcd", "documents.a.revision")):
        with pytest.raises(WorkspaceError) as e:
            workspace_from_dict(doc(revision), tmp_path)
        assert e.value.where == where
