"""Loss terms added to the paper's MSE: in-batch InfoNCE and the similarity-structure term."""

from __future__ import annotations

from typing import Any

__all__ = ["info_nce", "sim_kd_loss"]


def sim_kd_loss(s_src: Any, s_tgt: Any, t_src: Any, t_tgt: Any) -> Any:
    """Mean squared difference between the student's in-batch cosine matrices (translations
    × sources and translations × translations) and the teacher's for the same rows."""
    import torch

    f = torch.nn.functional
    a, b = f.normalize(s_src, dim=-1), f.normalize(s_tgt, dim=-1)
    ta, tb = f.normalize(t_src, dim=-1), f.normalize(t_tgt, dim=-1)
    return (f.mse_loss(b @ a.T, tb @ ta.T) + f.mse_loss(b @ b.T, tb @ tb.T)) / 2


def info_nce(a: Any, b: Any, keys: list[str], scale: float) -> Any:
    """In-batch InfoNCE between rows of ``a`` and ``b`` (row i of each is a pair), both
    directions; rows whose ``keys`` are equal (the same source sentence) are not negatives."""
    import torch

    f = torch.nn.functional
    logits = scale * f.normalize(a, dim=-1) @ f.normalize(b, dim=-1).T
    ids: dict[str, int] = {}
    key = torch.tensor([ids.setdefault(k, len(ids)) for k in keys], device=a.device)
    same = key[:, None] == key[None, :]
    same.fill_diagonal_(False)
    logits = logits.masked_fill(same, float("-inf"))
    labels = torch.arange(len(keys), device=a.device)
    return (f.cross_entropy(logits, labels) + f.cross_entropy(logits.T, labels)) / 2
