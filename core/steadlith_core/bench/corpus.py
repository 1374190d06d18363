"""The documents `steadlith bench` runs on by default: real Markdown, the checkout's own
or the core's shipped notes, repeated to 1 MB and 10 MB."""

from __future__ import annotations

from pathlib import Path

from .memory import repeated_to


def _checkout_root() -> "Path | None":
    """The repository checkout this package runs from, when it is one (docs/ and README.md
    beside core/)."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / "README.md").is_file() and (root / "docs").is_dir() else None


def markdown_corpus() -> tuple[str, str]:
    """(text, what it is): the repository's own Markdown (docs/**/*.md, README.md,
    CHANGELOG.md) when this runs from a checkout, else the core's shipped
    data/tool-library.md. Real writing with headings, lists, tables and code, not
    generated prose."""
    root = _checkout_root()
    if root is not None:
        paths = sorted((root / "docs").rglob("*.md")) + [p for p in (root / "README.md", root / "CHANGELOG.md")
                                                          if p.is_file()]
        text = "\n\n".join(p.read_text(encoding="utf-8") for p in paths)
        return text, f"the checkout's Markdown ({len(paths)} files: docs/**/*.md, README.md, CHANGELOG.md)"
    from importlib import resources

    text = resources.files("steadlith_core").joinpath("data/tool-library.md").read_text(encoding="utf-8")
    return text, "steadlith_core/data/tool-library.md"


def default_documents() -> tuple[str, str, dict[str, str]]:
    """(1 MB text, its name, {"1 MB": ..., "10 MB": ...}): markdown_corpus repeated."""
    corpus, what = markdown_corpus()
    texts = {"1 MB": repeated_to(corpus, 1_000_000), "10 MB": repeated_to(corpus, 10_000_000)}
    return texts["1 MB"], f"{what}, repeated to 1 MB and 10 MB", texts
