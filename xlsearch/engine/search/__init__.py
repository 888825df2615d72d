"""Search: semantic, lexical and hybrid search, STS, bitext mining with margin scores."""

DEFAULT_THRESHOLD = 1.06
"""The margin a mined pair needs by default (``xlsearch mine``, the Mine screen): on real
unaligned text, pairs at ≥ 1.06 are almost all translations (docs/benchmarks.md)."""
