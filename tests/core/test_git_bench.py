"""`steadlith bench-git`: the generated history is what the audit benchmark claims (N
commits on one line, documents of the asked size, each later commit an edit of one or
two of them), and both benchmarks run end to end on small sizes (timings not asserted)."""

from __future__ import annotations

import pytest

from steadlith_core.history.audit import audit
from steadlith_core.bench.git import build_history, prose_sources
from steadlith_core.cli.main import main
from steadlith_core.history.repository import first_parent_walk

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run


def test_the_generated_history_has_the_asked_shape(tmp_path):
    repo = build_history(str(tmp_path / "h"), commits=12, documents=3, size=4000, texts=prose_sources(None))
    commits = list(first_parent_walk(repo, repo.head.peel()))
    assert len(commits) == 12 and all(len(c.parents) <= 1 for c in commits)
    docs = [e for e in repo[commits[0].tree["docs"].id]]
    assert len(docs) == 3 and all(3500 < repo[e.id].size < 8000 for e in docs)
    result = audit(str(tmp_path / "h"), params_by_rule={"tttd-v1": None})
    per_commit = [sum(1 for f in c.files if f.rule == "tttd-v1") for c in result.commits]
    assert per_commit[0] == 3 and all(n in (1, 2) for n in per_commit[1:])


@pytest.mark.bench
@pytest.mark.parametrize("argv", [["audit", "--commits", "4", "--documents", "2", "--doc-kb", "2"],
                                  ["batch", "--files", "6", "--sample", "2", "--jobs", "2"]])
def test_both_benchmarks_run_and_print_their_figures(capsys, argv):
    assert main(["bench-git", *argv]) == 0
    out = capsys.readouterr().out
    assert ("audit      both rules" in out) if argv[0] == "audit" else ("x faster in one command" in out)


@pytest.mark.bench
def test_the_sweep_benchmark_times_audit_and_sweeps_in_fresh_processes(capsys):
    assert main(["bench-git", "sweep", "--commits", "4", "--documents", "2", "--doc-kb", "2", "--rounds", "1",
                 "--sets", "2", "--jobs", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("sweep ")]
    assert [row.split("  wall")[0].split(None, 1)[1].strip() for row in rows] == [
        "audit --rules tttd-v1", "sweep --jobs 1, 1 set", "sweep --jobs 1, 2 sets", "sweep --jobs 2, 1 set",
        "sweep --jobs 2, 2 sets"]
    assert all("÷ audit: wall" in row and " MiB" in row for row in rows)
    assert rows[0].split("÷ audit: ")[1].startswith("wall 1.00, CPU 1.00")
    assert lines[1].startswith("load average") and lines[-1].startswith("load average")


def test_a_failing_run_of_the_sweep_benchmark_is_one_line(capsys, tmp_path):
    assert main(["bench-git", "sweep", "--repo", str(tmp_path), "--rounds", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("steadlith: error: steadlith audit ")
    assert err.endswith("failed: steadlith: error: " + f"{tmp_path}: not a git repository (nor inside one)\n")
