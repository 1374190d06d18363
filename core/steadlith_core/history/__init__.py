"""Chunking across git history and many files: reading revisions (`repository`,
`revisions`, `pathglob`), the churn audit of a file's commits (`audit`) and its table and
HTML rendering (`audit_report`), and batch chunking of files, globs and revisions to
JSON Lines (`batch`).
"""
