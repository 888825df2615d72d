"""xlsearch: offline cross-lingual sentence search over a local multilingual corpus."""

from __future__ import annotations

__version__ = "0.1.0"
