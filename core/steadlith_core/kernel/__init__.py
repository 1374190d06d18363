"""The text kernel: the compiled extension `_kernel` (from `_kernel.c`) and its numpy
twins. `select` chooses between them at run time and is the only module the stages
call; `bytescan` (the UTF-8 scan, hashing words with `xxh3`), `rabin` (rolling fingerprints) and `segment` (tttd-v1's
boundary selection) are the numpy paths it falls back to, `extension` whether the
extension loads (without numpy, for `--version`), `polynomial` the GF(2) arithmetic
that parameter checks use (without numpy), `threads` runs the numpy paths on several
threads, and `allocator` tunes glibc's malloc for the command. Nothing here knows about
chunks, comparisons or files.
"""
