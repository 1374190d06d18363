"""steadlith_core: the Qt-free content-defined chunker of Steadlith (rules tttd-v1 and lmx2-v1).

    >>> from steadlith_core import chunk, ChunkerParams
    >>> result = chunk("Some text to index.", ChunkerParams(min_tokens=1, max_tokens=64))
    >>> [c.kind for c in result.chunks]
    ['end']
"""

from ._version import __version__
from .errors import (
    ComparisonError,
    ExportError,
    FileError,
    LoadError,
    ParameterError,
    SteadlithError,
    TokenCountError,
)
from .kernel import select as _kernel_choice
from .chunking.chunks import Chunk, Chunking
from .chunking.diagnostics import Diagnostics, Lmx2Diagnostics
from .chunking.identity import IDENTITY_SCHEMA_VERSION, chunk_hash
from .chunking.lmx2_params import BOUNDARY_RULES, LMX2_RULE, Lmx2Params
from .chunking.loader import decode_document, load_text
from .chunking.normalize import NORMALIZER_VERSION, Word, WordStream, has_words, normalize
from .chunking.params import BOUNDARY_RULE, FINGERPRINT_ID, SNAP_MODES, ChunkerParams
from .chunking.pipeline import Pipeline, chunk
from .chunking.presets import LMX2_PRESETS, PRESETS, RULE_PRESETS, preset
from .chunking.rules import params_from_mapping, parse_assignments, parse_rule_assignments, rule_of
from .chunking.tokens import TokenCounter, register_counter, unregister_counter
from .comparison.analysis import Analysis, compare_rules
from .comparison.baseline import BASELINE_STRATEGY, FixedChunking, FixedTokenParams, chunk_fixed
from .comparison.churn import (
    BaselineChurn,
    ChurnSummary,
    Comparison,
    LocalityViolation,
    PhaseShiftRegion,
    compare,
)
from .comparison.diff import DiffOp, diff_sequences, word_diff
from .report.comparison import locality_verdict, render_report
from .report.export import (
    chunking_to_json,
    chunks_jsonl,
    comparison_json,
    rules_comparison_json,
    to_json_text,
    write_text_atomic,
)

__all__ = [
    "Analysis",
    "BASELINE_STRATEGY",
    "BOUNDARY_RULE",
    "BOUNDARY_RULES",
    "BaselineChurn",
    "Chunk",
    "ChunkerParams",
    "Chunking",
    "ChurnSummary",
    "Comparison",
    "ComparisonError",
    "Diagnostics",
    "DiffOp",
    "ExportError",
    "FileError",
    "FINGERPRINT_ID",
    "FixedChunking",
    "FixedTokenParams",
    "IDENTITY_SCHEMA_VERSION",
    "KERNEL",
    "LMX2_PRESETS",
    "LMX2_RULE",
    "LoadError",
    "Lmx2Diagnostics",
    "Lmx2Params",
    "LocalityViolation",
    "NORMALIZER_VERSION",
    "PRESETS",
    "RULE_PRESETS",
    "ParameterError",
    "PhaseShiftRegion",
    "Pipeline",
    "SNAP_MODES",
    "SteadlithError",
    "TokenCountError",
    "TokenCounter",
    "Word",
    "WordStream",
    "chunk",
    "chunk_fixed",
    "chunk_hash",
    "chunking_to_json",
    "chunks_jsonl",
    "compare",
    "compare_rules",
    "comparison_json",
    "decode_document",
    "diff_sequences",
    "has_words",
    "load_text",
    "locality_verdict",
    "normalize",
    "params_from_mapping",
    "parse_assignments",
    "parse_rule_assignments",
    "preset",
    "register_counter",
    "render_report",
    "rule_of",
    "rules_comparison_json",
    "to_json_text",
    "unregister_counter",
    "word_diff",
    "write_text_atomic",
]


def __getattr__(name: str):
    # KERNEL is read at each access: kernel.use() may switch it after import
    if name == "KERNEL":
        return _kernel_choice.active()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
