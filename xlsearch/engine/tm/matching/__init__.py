"""Matching one segment against the memory: candidates, CAT fuzzy %, context, repairs,
fragments and the lookup that ranks them (``lookup``)."""
