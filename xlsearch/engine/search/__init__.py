"""Search: semantic, lexical and hybrid search, STS, bitext mining with margin scores."""
