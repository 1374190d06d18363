"""The window's parts, one job each: loading and swapping documents, editing, presenting
a result, navigation, saving and exports, workspaces, watching files on disk, the recent
files menu, the theme, external chunkers and opening revisions; and the persisted
settings they read and write. Controllers turn Qt events into session calls and session
events into widget updates; the rules they apply live in `model` and `steadlith_core`.
"""
