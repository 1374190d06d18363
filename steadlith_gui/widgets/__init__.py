"""What the user sees: the document panes (with their painter, gutter, highlighter and
column), the link and overview maps, the churn panel, the chunk table and its Qt item
models, the docks' views, dialogs and forms; the light and dark palettes and how names
are shown. Widgets draw what they are given and hold no state of their own beyond it.
"""
