"""The Textual UI: thin screens over the engine, which runs in thread workers."""
