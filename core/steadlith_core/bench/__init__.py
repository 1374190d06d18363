"""Benchmarks and the documents they run on: `steadlith bench` (`chunking`), its git
replay (`git`), the lab's and the sweep's timings (`lab`, `sweep`), and the example and
generated texts (`examples`) that the benchmarks, the demos and the tests share.
"""
