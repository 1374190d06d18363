"""The locality lab: thousands of realistic edits of one document, the
distribution of what each costs every chunker, and the worst edit a search can find.

    >>> from steadlith_core.lab import run_lab
    >>> from steadlith_core import ChunkerParams, Lmx2Params
    >>> result = run_lab(text, {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params(), "fixed": None})
    >>> result.rules["tttd-v1"].reach["p99"]

Modules: `edits` (the edit model), `stream` (the edited word stream), `measure` (one
edit's outcome), `chunkers` and `incremental` (each chunker, and re-cutting only what an
edit touches), `summary`, `hunt`, `run` (run_lab, hunt).
"""

from .chunkers import FIXED
from .edits import EDIT_KINDS, Edit, LabDocument, LabError, draw_edits
from .hunt import DEFAULT_HUNT_TRIALS, HuntResult
from .measure import EditOutcome
from .run import DEFAULT_EDITS, SCHEMA, LabResult, hunt, run_lab
from .summary import RuleSummary

__all__ = [
    "DEFAULT_EDITS", "DEFAULT_HUNT_TRIALS", "EDIT_KINDS", "Edit", "EditOutcome", "FIXED", "HuntResult", "LabDocument",
    "LabError", "LabResult", "RuleSummary", "SCHEMA", "draw_edits", "hunt", "run_lab",
]
