"""The built-in demo documents (written for this project; see resources/demo/)."""

from __future__ import annotations

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent / "resources" / "demo"

EXAMPLES: dict[str, tuple[str, str]] = {
    "prose": ("chunking-guide-v1.md", "chunking-guide-v2.md"),
    "python": ("tiny_index_v1.py", "tiny_index_v2.py"),
}
EXAMPLE_TITLES = {
    "prose": "Prose: a guide to chunking, two revisions",
    "python": "Python: a small index module, two revisions",
}


def demo_paths(name: str = "prose") -> tuple[Path, Path]:
    a, b = EXAMPLES[name]
    return DEMO_DIR / a, DEMO_DIR / b
