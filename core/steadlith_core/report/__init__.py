"""What the results look like to people and programs: the comparison report in Markdown
and HTML (`comparison`, with the lab's part in `lab` and its retrieval figures in
`lab_retrieval`), a retrieval run's page (`retrieval`), the scatter of churn against
recall or size that the sweep's page and the lab draw (`scatter`), the visual language shared with
the inspector (`style`), the Jinja2 environment and templates of every HTML page the
core writes (`pages`, `templates/`), and the JSON and JSON Lines exports with atomic
writes (`export`).
"""
