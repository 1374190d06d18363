"""What the results look like to people and programs: the comparison report in Markdown
and HTML (`comparison`, with the lab's part in `lab`), the visual language shared with
the inspector (`style`), the Jinja2 environment and templates of every HTML page the
core writes (`pages`, `templates/`), and the JSON and JSON Lines exports with atomic
writes (`export`).
"""
