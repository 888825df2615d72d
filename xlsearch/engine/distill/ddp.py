"""Multi-process training (``torchrun``): process-group setup, rank helpers, barriers.

The same ``xlsearch distill`` command runs under ``torchrun --nproc_per_node N``; each rank
takes its slice of every global batch; rank 0 alone builds caches, evaluates and saves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass
class Dist:
    """This process's place in the job (world 1 when not under torchrun)."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        return self.rank == 0

    @property
    def active(self) -> bool:
        return self.world > 1

    def barrier(self) -> None:
        if self.active:
            import torch.distributed as dist

            dist.barrier()

    def broadcast_flag(self, flag: bool) -> bool:
        """Rank 0's value of ``flag`` on every rank (e.g. "stop now")."""
        if not self.active:
            return flag
        import torch
        import torch.distributed as dist

        t = torch.tensor([1 if flag else 0], dtype=torch.int64)
        dist.broadcast(t, 0)
        return bool(t.item())

    def broadcast_int(self, value: int) -> int:
        """Rank 0's ``value`` on every rank (e.g. the step count fitted to a time budget)."""
        if not self.active:
            return value
        import torch
        import torch.distributed as dist

        t = torch.tensor([value], dtype=torch.int64)
        dist.broadcast(t, 0)
        return int(t.item())


def setup(device: str) -> Dist:
    """Join the process group when launched by torchrun (gloo on CPU, nccl on CUDA)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return Dist()
    import torch.distributed as dist

    if not dist.is_initialized():
        backend = "nccl" if device.startswith("cuda") else "gloo"
        dist.init_process_group(backend=backend)
    return Dist(dist.get_rank(), dist.get_world_size(), int(os.environ.get("LOCAL_RANK", "0")))


def teardown(d: Dist) -> None:
    if d.active:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()
