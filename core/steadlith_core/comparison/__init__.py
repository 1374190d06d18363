"""Two chunkings of two texts compared: the word diff (`diff`), chunk statuses, alignment
and churn (`churn`), the fixed-size baseline (`baseline`), the cached analysis the
clients share (`analysis`) and other libraries' chunkers measured the same way
(`external`). Named `comparison`, not `compare`: the package's public `compare` function
would hide a subpackage of that name.
"""
