"""How the inspector shows things, apart from what it analyses: the view options a
workspace saves (syntax colour, scrolling, theme, editability, the chunk table's
filter) and the display both panes share (wrapping and zoom, not saved). The session
holds one of each and announces their changes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from steadlith_core.vocabulary import STATUSES

THEME_CHOICES = ("system", "light", "dark")
#: What the chunk table's filters can be set to ("" is "any"); the table offers exactly these.
FILTER_VERSIONS = ("", "A", "B")
FILTER_STATUSES = ("", "changed", *STATUSES)


@dataclass
class ViewOptions:
    """The view part of a workspace."""

    syntax_colour: bool = True
    sync_scroll: bool = True
    theme: str = "system"
    edit_a: bool = False
    edit_b: bool = True
    legend: bool = True
    chunk_filter: dict = field(default_factory=lambda: {"text": "", "version": "", "status": ""})

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "chunk_filter": dict(self.chunk_filter)}

    def merged(self, view: Mapping[str, Any]) -> "ViewOptions":
        """These options with a workspace's on top; a value of the wrong type is ignored."""
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = view.get(f.name)
            if f.name == "theme":
                if value in THEME_CHOICES:
                    changes["theme"] = value
            elif f.name == "chunk_filter":
                if isinstance(value, dict):
                    changes[f.name] = {k: (value[k] if _filter_value_ok(k, value.get(k)) else old)
                                       for k, old in self.chunk_filter.items()}
            elif isinstance(value, bool):
                changes[f.name] = value
        return dataclasses.replace(self, **changes)


def _filter_value_ok(key: str, value: Any) -> bool:
    """A chunk filter value the table can show: free text, or one of its choices."""
    if not isinstance(value, str):
        return False
    return key == "text" or value in {"version": FILTER_VERSIONS, "status": FILTER_STATUSES}.get(key, ())


@dataclass(frozen=True)
class Display:
    """How the panes show text, the same in both so lines stay comparable: wrapping and the
    zoom step (font points over the default). Not part of a workspace: it is about the
    screen, not the analysis."""

    wrap: bool = True
    zoom: int = 0


ZOOM_RANGE = (-6, 16)

