"""Adapters that put the steadlith chunker into other frameworks' pipelines.

Each module imports its framework at import time, so it is imported only by those who
use it: `steadlith_core.integrations.langchain` needs the `langchain` extra
(langchain-text-splitters), `steadlith_core.integrations.llama_index` the `llama-index`
extra (llama-index-core). The core never imports this package.
"""
