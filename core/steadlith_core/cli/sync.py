"""`steadlith sync NEW --store PATH`: bring a vector store (Qdrant's local mode, extra
`qdrant`) to NEW's chunks, embedding only what the embedding cache lacks (history.sync).
One summary line on standard output: embedded, reused, deleted, upserted."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

from .progress import progress_bar


def add_parser(sub: argparse._SubParsersAction, add_params_options: Callable, params_of: Callable) -> None:
    p = sub.add_parser(
        "sync", help="make a vector store (Qdrant local mode, in-process) hold NEW's chunks with their vectors: "
                     "deletes and upserts by stable id, embedding only chunks not in the embedding cache")
    p.add_argument("new", metavar="NEW", help="what the store should hold: a file, a directory, a quoted glob, "
                                              "PATH@REV or REPO@REV:GLOB (as `steadlith plan` takes them)")
    p.add_argument("--store", required=True, metavar="PATH",
                   help="the store's folder (created when missing; it records its embedding model and parameters)")
    p.add_argument("--embedder", default="minilm", metavar="NAME",
                   help="minilm (all-MiniLM-L6-v2, offline; extra dense; the default) or MODULE:ATTRIBUTE, an "
                        "Embedder or a callable returning one (steadlith_core.retrieval.embedders)")
    p.add_argument("--cache", metavar="DIR",
                   help="the embedding cache's folder (default STEADLITH_EMBEDDING_CACHE, else "
                        "~/.cache/steadlith/embeddings, the one `retrieval --retriever dense` uses)")
    given = p.add_mutually_exclusive_group()
    given.add_argument("--plan", metavar="PLAN.jsonl",
                       help="apply this plan (`steadlith plan OLD NEW` output) and nothing else: refused unless it "
                            "is a plan of NEW and the store is at OLD or between OLD and NEW")
    given.add_argument("--from", dest="old", metavar="OLD",
                       help="the same with the plan from OLD to NEW made here")
    add_params_options(p, ("text", "json"))
    p.set_defaults(func=lambda args: cmd_sync(args, params_of))


def cmd_sync(args: argparse.Namespace, params_of: Callable) -> int:
    from ..history.sync import sync
    from ..history.vector_store import check_store_path, qdrant
    from ..retrieval.dense import default_cache_dir
    from ..retrieval.embedder_names import embedder_named

    params = params_of(args)
    qdrant()  # a missing extra, or a store path that cannot be one, is said before a model is loaded
    check_store_path(args.store)
    embedder = embedder_named(args.embedder)
    with progress_bar("sync", "chunks") as bar:
        result = sync(args.new, args.store, embedder, params, args.cache or default_cache_dir(),
                      plan_path=args.plan, from_arg=args.old, progress=bar)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    else:
        print(result.summary())
    return 0
