"""Developer tools that drive the whole window: the GUI benchmark
(`python -m steadlith_gui.tools.bench`), which times a parameter change, typing and long
lines on generated documents.
"""
