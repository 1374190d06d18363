"""Text to chunks: normalisation (`normalize`), token counting (`tokens`), the two rules'
parameters (`params` for tttd-v1, `lmx2_params`), their presets and the mapping of user
input onto them (`presets`, `rules`), the result types (`chunks`, `diagnostics`), the
canonical text and per-word arrays they are hashed from (`canonical`), the boundary class
of every cut (`boundaries`), lmx2-v1's stages (`lmx2`), chunk identity (`identity`),
document loading (`loader`) and the `Pipeline` that runs them in order. Built on the
kernel; imports nothing above it.
"""
