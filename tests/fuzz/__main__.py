"""python -m tests.fuzz [--seconds N] [--target NAME ...] [--list]: run the fuzz targets
for a time budget (shared among the chosen targets); exit 1 with the shrunk failing
example on the first defect, 0 when none was found."""

from __future__ import annotations

import argparse
import sys
import traceback
import warnings

from .runner import run
from .targets import TARGETS


class _ShortLines:
    """A stream that cuts every line at LINE characters: a failing example can hold a
    100,000-character input, and its report should still fit a terminal."""

    LINE = 400

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        lines = text.split("\n")
        self.stream.write("\n".join(x if len(x) <= self.LINE else x[: self.LINE] + f"... ({len(x)} chars)"
                                    for x in lines))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="time budget shared by the targets (default 60)")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), metavar="NAME",
                        help=f"run this target only (repeatable): {', '.join(TARGETS)}")
    parser.add_argument("--list", action="store_true", help="name every target and what it checks")
    args = parser.parse_args(argv)
    # a failing example can hold a 100,000-character input; _ShortLines cuts its report
    warnings.filterwarnings("ignore", message="Generating overly large repr")
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.list:
        for t in TARGETS.values():
            print(f"{t.name:14} {t.what}")
        return 0
    names = args.target or list(TARGETS)
    share = args.seconds / len(names)
    failed = 0
    for name in names:
        target = TARGETS[name]
        why_not = target.available()
        if why_not:
            print(f"{name}: skipped: {why_not}")
            continue
        try:
            count = run(target, seconds=share)
        except Exception:
            failed += 1
            print(f"{name}: DEFECT", flush=True)
            traceback.print_exc()
            continue
        print(f"{name}: {count} examples in {share:.1f} s, no defect", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.stdout, sys.stderr = _ShortLines(sys.stdout), _ShortLines(sys.stderr)
    sys.exit(main())
