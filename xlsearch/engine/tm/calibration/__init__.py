"""Calibration of semantic fills on the user's own memory (``memory``) and the fill policy
of an analysis (``fill_policy``); the model's own fill calibration is ``engine.calibration``."""
