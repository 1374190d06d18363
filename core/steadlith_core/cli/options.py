"""What several commands share: the parameter options (--set, --preset, --format), the
parameters they name, and the analysis a command runs on."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..chunking.presets import RULE_PRESETS, preset
from ..chunking.rules import parse_assignments

if TYPE_CHECKING:
    from ..chunking.chunks import AnyParams
    from ..comparison.analysis import Analysis


def add_params_options(p: argparse.ArgumentParser, formats: tuple[str, ...] = ("text", "json")) -> None:
    p.add_argument(
        "--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
        help="change a parameter (a name of docs/contract/tttd-v1.md#parameters or docs/contract/lmx2-v1.md#parameters; "
             "integers in decimal or 0x hex); repeatable. "
             "boundary_rule=lmx2-v1 selects the strictly local rule and its fields (horizon, fill_horizon, "
             "key_tokens, boundary_preference); a field of the other rule is an error",
    )
    names = [n for presets in RULE_PRESETS.values() for n in presets]
    p.add_argument(
        "--preset", metavar="NAME",
        help=f"start from a named parameter set ({', '.join(names)}); it selects its rule; --set changes "
             "apply on top",
    )
    p.add_argument("--format", choices=formats, default="text")


def params_of(args: argparse.Namespace) -> AnyParams:
    return parse_assignments(args.assignments, preset(args.preset) if args.preset is not None else None)


def new_analysis(word_ids: bool = False) -> Analysis:
    """The command's Analysis; `word_ids` for one that compares (Analysis)."""
    from ..comparison.analysis import Analysis

    # the command owns its process, so pausing the cyclic GC during runs is its call
    return Analysis(pause_gc=True, word_ids=word_ids)
