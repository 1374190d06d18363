"""What `steadlith` loads to start: building the parser, `--version` and `params` need
neither numpy nor git, retrieval or report libraries, which each command imports when
it runs. Structural checks on sys.modules in a fresh interpreter; the time the start
takes is measured by `steadlith bench --startup`, not here."""

import json
import os
import subprocess
import sys

import pytest

from steadlith_core.cli import lab as cli_lab
from steadlith_core.cli import retrieval as cli_retrieval
from steadlith_core.cli.main import version_line
from steadlith_core.kernel import extension
from steadlith_core.kernel import select as kernel

pytestmark = pytest.mark.kernel_independent

HEAVY = ("numpy", "pygit2", "bm25s", "jinja2", "pathspec")


def _loaded(code: str, env: dict | None = None) -> dict:
    probe = (f"import sys, json\n{code}\n"
             f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env=env or dict(os.environ))
    return json.loads(proc.stderr.strip().splitlines()[-1])


def test_importing_the_command_loads_none_of_the_heavy_libraries():
    loaded = _loaded("import steadlith_core.cli.main")
    assert not any(loaded.values()), loaded


def test_version_and_params_run_without_them():
    run = ("from steadlith_core.cli.main import main\n"
           "try:\n    main({argv!r})\nexcept SystemExit:\n    pass")
    for argv in (["--version"], ["params"], ["params", "--set", "boundary_rule=lmx2-v1", "--format", "json"],
                 ["--help"], ["params", "--set", "token_counter=words/1"]):
        loaded = _loaded(run.format(argv=argv))
        assert not any(loaded.values()), (argv, loaded)


@pytest.mark.parametrize("forced", [False, True])
def test_the_fast_kernel_words_agree_with_kernel_describe(forced):
    """--version names the kernel from kernel.extension, without numpy; a fresh process
    that loads kernel.select says the same."""
    env = dict(os.environ)
    env.pop("STEADLITH_KERNEL", None)
    if forced:
        env["STEADLITH_KERNEL"] = "numpy"
    code = ("from steadlith_core.kernel import extension, select\n"
            "print(extension.describe() + '\\n' + select.describe())")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    fast, full = proc.stdout.splitlines()
    assert fast == full
    if forced:
        assert fast == "numpy fallback (STEADLITH_KERNEL=numpy is set)"
    else:  # this process may run with STEADLITH_KERNEL=numpy; the extension's presence is the same
        assert (fast == "compiled kernel") == (extension.KERNEL_MODULE is not None)


def test_the_version_line_follows_a_kernel_switched_in_this_process():
    assert kernel.describe() in version_line()
    if "c" in kernel.KERNELS:
        with kernel.using("numpy"):
            assert "numpy fallback (selected with kernel.use)" in version_line()
    assert extension.INITIAL == kernel.KERNELS[0]


def test_the_constants_the_parser_names_are_the_libraries():
    from steadlith_core.lab.hunt import DEFAULT_HUNT_TRIALS
    from steadlith_core.lab.run import DEFAULT_EDITS, MAX_EDITS, MAX_HUNT_TRIALS
    from steadlith_core.retrieval import DEFAULT_TOP_K, known_retrievers

    assert (cli_lab.DEFAULT_EDITS, cli_lab.DEFAULT_HUNT_TRIALS, cli_lab.MAX_EDITS, cli_lab.MAX_HUNT_TRIALS) == (
        DEFAULT_EDITS, DEFAULT_HUNT_TRIALS, MAX_EDITS, MAX_HUNT_TRIALS)
    assert cli_retrieval.DEFAULT_TOP_K == DEFAULT_TOP_K
    assert list(cli_retrieval.RETRIEVERS) == known_retrievers()


def test_the_builtin_token_counters_are_the_registered_ones():
    from steadlith_core.chunking import tokens
    from steadlith_core.vocabulary import BUILTIN_TOKEN_COUNTERS

    assert set(BUILTIN_TOKEN_COUNTERS) <= set(tokens.known_counters())
    assert tokens.BUILTIN_COUNTERS == BUILTIN_TOKEN_COUNTERS


def test_bench_startup_reports_both_commands(capsys):
    """The shape of `steadlith bench --startup`, not its times."""
    from cli_helpers import run

    code, out, err = run(capsys, "bench", "--startup", "--repeat", "1", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert [s["args"] for s in report["starts"]] == ["--version", "params"]
    assert all(s["median_ms"] > 0 for s in report["starts"]) and report["runs"] == 1
    assert "load_average_start" in report and "load_average_end" in report
