"""The window's own writers survive SIGKILL at any moment (tests/kill_loop_helpers.py):
a workspace save and the recovery file of unsaved edits are old or new, whole, and
leave no temporary behind."""

from __future__ import annotations

import json

from kill_loop_helpers import Strays, kill_loop, needs_fork
from steadlith_core import ChunkerParams
from steadlith_gui.model.recovery import RecoveryStore, Unsaved, read_recovery
from steadlith_gui.model.workspace import DocumentRef, Workspace, save_workspace
from steadlith_gui.model.workspace_loading import load_workspace

pytestmark = needs_fork

BIG = "A pasted paragraph that makes the workspace file large. " * 5_000  # about 300 kB a save


def test_a_workspace_save_killed_at_any_moment_leaves_the_old_or_the_new_workspace(tmp_path):
    target = tmp_path / "review.steadlith"
    spaces = [Workspace({"a": DocumentRef.pasted(f"{n} {BIG}", f"pasted {n}"), "b": None},
                        ChunkerParams(min_tokens=32 + n)) for n in range(3)]
    save_workspace(spaces[0], target)
    seen = set()
    strays = Strays(tmp_path, target.name)

    def write_forever():
        while True:
            save_workspace(spaces[1], target)
            save_workspace(spaces[2], target)

    def after_kill(i):
        ws = load_workspace(target)  # a torn file would not load
        seen.add(ws.params.min_tokens)
        assert ws.documents["a"].text == f"{ws.params.min_tokens - 32} {BIG}"
        strays.check(i)

    kill_loop(write_forever, after_kill, max_delay=0.3)
    assert seen - {32}, "no save finished before a kill: the loop proved nothing"
    strays.assert_rare_and_cleaned(lambda: save_workspace(spaces[0], target))


def test_the_recovery_file_killed_at_any_moment_holds_whole_text(tmp_path):
    store = RecoveryStore(tmp_path)
    store.save(1, {"B": Unsaved("b.md", None, "0 " + BIG)})
    seen = set()
    strays = Strays(tmp_path, store.file.name)

    def write_forever():
        n = 1
        while True:
            n += 1
            store.save(n, {"B": Unsaved("b.md", None, f"{n % 7} {BIG}")})

    def after_kill(i):
        got = read_recovery(store.file)
        assert got is not None, f"kill {i}: the recovery file is torn: {store.file.stat().st_size} bytes"
        text = got.sides["B"].text
        assert text.endswith(BIG) and text[: -len(BIG)].strip().isdigit()
        seen.add(text[0])
        assert json.loads(store.file.read_text(encoding="utf-8"))["format"] == "steadlith-unsaved-edits"
        strays.check(i)

    kill_loop(write_forever, after_kill, max_delay=0.3)
    assert seen - {"0"}, "no save finished before a kill: the loop proved nothing"
    strays.assert_rare_and_cleaned(lambda: RecoveryStore(tmp_path).save(1 << 40, {"B": Unsaved("b.md", None, BIG)}))
