"""Vector indexes over the store: FAISS wrapper, vector cache, build/open/repair."""

from __future__ import annotations
