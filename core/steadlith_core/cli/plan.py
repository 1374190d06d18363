"""`steadlith plan OLD NEW`: the upserts and deletes that take a vector store from the
chunks of OLD to those of NEW, by stable chunk id (history.plan), as JSON Lines on
standard output and one summary line on standard error."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable


def add_parser(sub: argparse._SubParsersAction, add_params_options: Callable, params_of: Callable) -> None:
    p = sub.add_parser(
        "plan", help="what a vector store must upsert and delete to go from OLD's chunks to NEW's (by stable id)")
    p.add_argument("old", metavar="OLD", help="what is indexed now: a file, a directory, a quoted glob, PATH@REV or "
                                              "REPO@REV:GLOB")
    p.add_argument("new", metavar="NEW", help="what it should become, named the same way")
    add_params_options(p, ("jsonl", "json", "text"))
    p.set_defaults(format="jsonl", func=lambda args: cmd_plan(args, params_of))


def cmd_plan(args: argparse.Namespace, params_of: Callable) -> int:
    from ..history.plan import make_plan

    plan = make_plan(args.old, args.new, params_of(args))
    if args.format == "text":
        print(plan.summary())
        return 0
    records = list(plan.records())
    if args.format == "json":
        sys.stdout.write(json.dumps({"summary": plan.summary(), "operations": records}, ensure_ascii=False) + "\n")
    else:
        for r in records:
            sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")
        print(plan.summary(), file=sys.stderr)
    return 0
