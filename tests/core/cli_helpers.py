"""Running the `steadlith` command inside a test (imported as `cli_helpers`, like
git_history.py): one copy of what each CLI test module used to define for itself."""

from __future__ import annotations

from steadlith_core.cli.main import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """main(argv) as the console script runs it: (exit status, stdout, stderr)."""
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse usage errors exit from inside main
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def interruptible() -> None:
    """`preexec_fn` of a command a test stops with SIGINT: Ctrl+C's default disposition.
    A test run started in the background (`pytest &` in a script, nohup, some CI runners)
    has SIGINT ignored, a child inherits that, and Python then installs no
    KeyboardInterrupt handler: the signal would do nothing and the run go on."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
