"""Exports: translation units as TMX 1.4, XLIFF 1.2/2.0 or TSV."""
