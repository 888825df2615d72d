"""Dev-split evaluation during distillation: MSE×100 and translation accuracy both ways."""

from __future__ import annotations

from typing import Any

import numpy as np

from xlsearch.engine.evaluation.metrics import mse_x100, translation_accuracy


def embed(model: Any, texts: list[str], *, device: str, batch_size: int = 256) -> np.ndarray:
    """Student embeddings (L2-normalised float32) in eval mode; restores train mode."""
    import torch

    was_training = model.training
    model.eval()
    out = []
    try:
        with torch.no_grad():
            for i in range(0, len(texts), batch_size):
                feats = model.tokenize(texts[i : i + batch_size])
                feats = {k: v.to(device) for k, v in feats.items()}
                e = model(feats).float()
                out.append(torch.nn.functional.normalize(e, dim=-1).cpu().numpy())
    finally:
        model.train(was_training)
    return np.concatenate(out) if out else np.zeros((0, model.dim), np.float32)


def evaluate_dev(
    model: Any, dev: list[Any], teacher_vecs: list[np.ndarray], *, device: str, max_pairs: int
) -> dict[str, Any]:
    """Per-language and mean dev metrics: ``dev_acc`` (mean of both directions), ``dev_mse``
    (MSE×100 of student(translation) vs teacher(source), the sentence-transformers
    convention) and ``per_lang`` {lang: {acc_src2tgt, acc_tgt2src, mse}}."""
    per: dict[str, dict[str, float]] = {}
    accs, mses = [], []
    bs = 1024 if getattr(model, "kind", "") == "static" else 64
    for g, tv in zip(dev, teacher_vecs, strict=True):
        n = min(len(g.src), max_pairs)
        if n == 0:
            continue
        s = embed(model, g.src[:n], device=device, batch_size=bs)
        t = embed(model, g.tgt[:n], device=device, batch_size=bs)
        a, b = translation_accuracy(s, t)
        mse = mse_x100(t, tv[:n])
        key = g.lang if g.lang not in per else f"{g.lang}#{g.file}.{g.column}"
        per[key] = {"acc_src2tgt": a, "acc_tgt2src": b, "mse": mse}
        accs.append((a + b) / 2)
        mses.append(mse)
    return {
        "dev_acc": float(np.mean(accs)) if accs else 0.0,
        "dev_mse": float(np.mean(mses)) if mses else 0.0,
        "per_lang": per,
    }
