"""Models: finding folders and cards, the catalog, loading and encoding, the trainable model."""
