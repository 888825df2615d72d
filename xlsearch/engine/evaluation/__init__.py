"""Evaluation: the literature's measures (MSE, translation accuracy, STS, mining F1, bias)."""
