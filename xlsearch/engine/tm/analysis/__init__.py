"""Analysis of a document against the memory, one pass of named stages (``analyze``), and
pre-translation with its result (``pretranslate``)."""
