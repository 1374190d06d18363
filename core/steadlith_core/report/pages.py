"""The one Jinja2 environment of every HTML page the core writes: the comparison report
(comparison.py, with the lab's section from lab.py and its retrieval figures from
lab_retrieval.py), the lab alone, the audit (history/audit_report.py), the sweep
(sweep/format.py; its scatter from scatter.py) and a retrieval run (retrieval.py).

The templates are files beside this module (`templates/`, shipped as package data):
`page.html.j2` is the layout every page extends (the Content-Security-Policy, the inline
style, no script) and `macros.html.j2` holds what several pages repeat. The comparison
report is one template per section (`comparison/*.html.j2`), included in order by
`comparison.html.j2`.

Autoescape is on, and every value a template prints is escaped as `html.escape(quote=
True)` escapes it (`&quot;`, `&#x27;`, where markupsafe would write `&#34;`, `&#39;`): one
escaping for every page and for the core's other HTML, so the same data gives the same
bytes. Markup a macro or this module builds (`Markup`) is printed as it is. `StrictUndefined` makes a misspelt name an error instead of an empty string.
"""

from __future__ import annotations

import html
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from ..errors import visible


def _escaped(value: Any) -> Any:
    """What a `{{ }}` prints: markup as it is, anything else escaped as html.escape does
    (StrictUndefined raises here, on str())."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value), quote=True))


def plural(count: int, noun: str) -> str:
    """'1 chunk', '2 chunks'."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


ENV = Environment(
    loader=PackageLoader("steadlith_core.report", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    finalize=_escaped,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    auto_reload=False,
)
ENV.globals.update(n=plural, fmt=format, visible=visible)


def render(template: str, **context: Any) -> str:
    """The page or fragment `template` rendered with `context`, as a str."""
    return ENV.get_template(template).render(**context)
