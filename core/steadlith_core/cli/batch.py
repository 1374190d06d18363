"""`steadlith chunk` over many documents: what it prints and its exit status.

JSON Lines go to stdout as the pool delivers them, in input order; each failed document
is one error line on stderr and the others go on. Exit status 0 when every document was
chunked, 1 when the batch is incomplete: some document failed, or a directory of a walked
tree could not be read (each named on stderr); 2 for a usage error. A symbolic link
leading out of a walked directory is skipped, with a line on stderr, unless
--follow-links (a deliberate choice, not a failure: the status stays 0).
"""

from __future__ import annotations

import sys
from typing import Sequence

from ..chunking.chunks import AnyParams
from ..errors import ParameterError, visible
from ..history.batch import chunk_batch, expand_inputs
from .progress import progress_bar

EXIT_SOME_FAILED = 1


def run_batch(args: Sequence[str], params: AnyParams, fmt: str, jobs: int | None, follow_links: bool = False) -> int:
    if fmt == "json":
        raise ParameterError("--format", "json describes one file; for several, use jsonl (every chunk with its "
                                         "path) or text (one line a file)")
    notices: list[str] = []
    docs, failed = expand_inputs(args, follow_links, notices)
    for notice in notices:
        print(f"steadlith: {visible(notice)}", file=sys.stderr)
    for outcome in failed:
        _report_failure(outcome.error or "")
    chunked = words = tokens = chunks = 0
    with progress_bar("chunking", "files") as progress:
        for outcome in chunk_batch(docs, params, jobs, progress):
            if outcome.error is not None:
                failed.append(outcome)
                _report_failure(outcome.error)
                continue
            chunked += 1
            words, tokens, chunks = words + outcome.words, tokens + outcome.tokens, chunks + outcome.chunks
            if fmt == "jsonl":
                sys.stdout.write(outcome.jsonl)
            else:
                print(f"{visible(outcome.document.name)}: {outcome.words} words, {outcome.chunks} chunks, "
                      f"{outcome.tokens} tokens")
    if fmt == "text":
        print(f"{chunked} files chunked: {words} words, {chunks} chunks, {tokens} tokens, params {params.params_hash}"
              + (f"; {len(failed)} failed" if failed else ""))
    elif failed:
        print(f"steadlith: {len(failed)} of {len(failed) + chunked} documents failed, {chunked} chunked",
              file=sys.stderr)
    return EXIT_SOME_FAILED if failed else 0


def _report_failure(message: str) -> None:
    print(f"steadlith: error: {visible(message)}", file=sys.stderr)
