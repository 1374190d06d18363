"""steadlith_core: the Qt-free content-defined chunker of Steadlith (rules tttd-v1 and lmx2-v1).

    >>> from steadlith_core import chunk, ChunkerParams
    >>> result = chunk("Some text to index.", ChunkerParams(min_tokens=1, max_tokens=64))
    >>> [c.kind for c in result.chunks]
    ['end']

The names below are loaded when first used (PEP 562): `import steadlith_core` itself
imports nothing but the version, so a program (or `steadlith --version`) that needs one
module does not pay for numpy, pygit2 and the reports. `from steadlith_core import chunk`
works as with eager imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

# module (relative to this package) -> the public names it defines
_FACE: dict[str, tuple[str, ...]] = {
    "errors": ("ComparisonError", "ExportError", "FileError", "LoadError", "ParameterError", "SteadlithError",
               "TokenCountError"),
    "chunking.chunks": ("Chunk", "Chunking"),
    "chunking.diagnostics": ("Diagnostics", "Lmx2Diagnostics"),
    "chunking.identity": ("IDENTITY_SCHEMA_VERSION", "chunk_hash"),
    "chunking.lmx2_params": ("BOUNDARY_RULES", "LMX2_RULE", "Lmx2Params"),
    "chunking.loader": ("decode_document", "load_text"),
    "chunking.normalize": ("NORMALIZER_VERSION", "Word", "WordStream", "has_words", "normalize"),
    "chunking.params": ("BOUNDARY_RULE", "FINGERPRINT_ID", "SNAP_MODES", "ChunkerParams"),
    "chunking.pipeline": ("Pipeline", "chunk"),
    "chunking.presets": ("LMX2_PRESETS", "PRESETS", "RULE_PRESETS", "preset"),
    "chunking.rules": ("params_from_mapping", "parse_assignments", "parse_rule_assignments", "rule_of"),
    "chunking.tokens": ("TokenCounter", "register_counter", "unregister_counter"),
    "comparison.analysis": ("Analysis", "compare_rules"),
    "comparison.baseline": ("BASELINE_STRATEGY", "FixedChunking", "FixedTokenParams", "chunk_fixed"),
    "comparison.churn": ("BaselineChurn", "Comparison", "compare"),
    "comparison.measurement": ("ChurnSummary", "LocalityViolation", "PhaseShiftRegion"),
    "comparison.diff": ("DiffOp", "diff_sequences", "word_diff"),
    "report.comparison": ("locality_verdict", "render_report"),
    "report.export": ("chunking_to_json", "chunks_jsonl", "comparison_json", "rules_comparison_json", "to_json_text",
                      "write_text_atomic"),
}
_WHERE = {name: module for module, names in _FACE.items() for name in names}

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


def __getattr__(name: str) -> Any:
    # KERNEL is read at each access: kernel.use() may switch it after import
    if name == "KERNEL":
        return importlib.import_module(".kernel.select", __name__).active()
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # once loaded, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and IDEs read: the same names, imported eagerly
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
    from .comparison.churn import BaselineChurn, Comparison, compare
    from .comparison.diff import DiffOp, diff_sequences, word_diff
    from .comparison.measurement import ChurnSummary, LocalityViolation, PhaseShiftRegion
    from .report.comparison import locality_verdict, render_report
    from .report.export import (
        chunking_to_json,
        chunks_jsonl,
        comparison_json,
        rules_comparison_json,
        to_json_text,
        write_text_atomic,
    )
