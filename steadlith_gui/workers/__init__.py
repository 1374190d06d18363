"""Work off the GUI thread: the document loader and analyzer (one generation number per
request, stale results dropped), the docks' progress jobs, the export jobs that render and
write files, and the collector that keeps Python's cyclic garbage collection in the GUI
thread. Results come back to the GUI thread as Qt signals.
"""
