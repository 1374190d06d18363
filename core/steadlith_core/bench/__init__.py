"""Benchmarks and the documents they run on: `steadlith bench` (`chunking`, with its peer
chunkers in `peers`, its chunk-size rates in `sizes` and its peak memory in `memory`),
what every benchmark measures with (`measure`: the load average, fresh text objects),
its default Markdown (`corpus`), its git replay (`git`), the lab's and the sweep's
timings (`lab`, `sweep`), and the example and generated texts (`examples`) that the
benchmarks, the demos and the tests share.
"""
