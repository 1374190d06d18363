"""Reading an HTML page the core wrote the way a browser would (imported as `html_tables`,
like cli_helpers): every element closed in order, and each table's caption and rows as
the text of their cells."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base", "source", "track"}
# SVG shapes the templates write as <x .../>: html.parser reports them as start-end tags
SELF_CLOSED = {"line", "rect", "circle", "polygon", "polyline", "path"}


class Page(HTMLParser):
    """`tables`: [{"caption": str, "rows": [[cell text, ...], ...]}]; `errors`: tags
    closed out of order or never closed."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tables: list[dict] = []
        self._cell: list[str] | None = None
        self._caption: list[str] | None = None
        self._row: list[str] | None = None
        self.feed(text)
        self.close()
        if self.stack:
            self.errors.append(f"never closed: {self.stack}")

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag == "table":
            self.tables.append({"caption": "", "rows": []})
        elif tag == "caption":
            self._caption = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag == "caption" and self._caption is not None:
            self.tables[-1]["caption"] = "".join(self._caption).strip()
            self._caption = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1]["rows"].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._caption is not None:
            self._caption.append(data)

    def table(self, caption_start: str) -> list[list[str]]:
        """The rows (header first) of the table whose caption starts so."""
        return next(t["rows"] for t in self.tables if t["caption"].startswith(caption_start))
