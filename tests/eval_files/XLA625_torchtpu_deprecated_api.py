"""Eval file for XLA625 (torch.tpu APIs that torch-tpu deprecates)."""
# flake8-xla: --xla-migrate=torchtpu
import torch

ranks = torch.tpu.topology_aware_mesh((4, 2))  # error: XLA625
# Trap: the replacement.
better = torch.tpu.distributed.topology_aware_mesh((4, 2))
