"""steadlith_core: the Qt-free content-defined chunker of Steadlith (rules tttd-v1 and lmx2-v1).

    >>> from steadlith_core import chunk, ChunkerParams
    >>> result = chunk("Some text to index.", ChunkerParams(min_tokens=1, max_tokens=64))
    >>> [c.kind for c in result.chunks]
    ['end']
"""

from ._version import __version__
from .analysis import Analysis, compare_rules
from .baseline import BASELINE_STRATEGY, FixedChunking, FixedTokenParams, chunk_fixed
from .chunks import Chunk, Chunking
from .compare import (
    BaselineChurn,
    ChurnSummary,
    Comparison,
    LocalityViolation,
    PhaseShiftRegion,
    compare,
)
from .diagnostics import Diagnostics, Lmx2Diagnostics
from .diff import DiffOp, diff_sequences, word_diff
from .errors import (
    ComparisonError,
    ExportError,
    FileError,
    LoadError,
    ParameterError,
    SteadlithError,
    TokenCountError,
)
from .export import (
    chunking_to_json,
    chunks_jsonl,
    comparison_json,
    rules_comparison_json,
    to_json_text,
    write_text_atomic,
)
from .identity import IDENTITY_SCHEMA_VERSION, chunk_hash
from . import kernel as _kernel_choice
from .loader import decode_document, load_text
from .normalize import NORMALIZER_VERSION, Word, WordStream, has_words, normalize
from .lmx2_params import BOUNDARY_RULES, LMX2_RULE, Lmx2Params
from .params import BOUNDARY_RULE, FINGERPRINT_ID, SNAP_MODES, ChunkerParams
from .rules import params_from_mapping, parse_assignments, parse_rule_assignments, rule_of
from .pipeline import Pipeline, chunk
from .presets import LMX2_PRESETS, PRESETS, RULE_PRESETS, preset
from .report import locality_verdict, render_report
from .tokens import TokenCounter, register_counter, unregister_counter

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
