"""The inspector's widgets: they display core results and hold no chunking rule."""
