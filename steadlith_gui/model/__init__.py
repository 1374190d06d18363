"""The inspector's state and display logic, in plain Python: the session (both sides,
parameters, the last result and whether it applies), the view model (what a pane, the
link map and the table show, in Qt positions), the docks' state (history, sweep, lab),
the workspace file format and the built-in examples. Nothing here imports Qt (an
import-linter contract forbids it), so all of it is tested without a QApplication.
"""
