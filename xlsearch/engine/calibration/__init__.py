"""Calibration of semantic fills: fit, store and apply a model's fill calibration (below
both ``tm``, which applies it, and ``distill``, which fits it for a new student)."""
