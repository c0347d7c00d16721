"""The rule registry: every rule class, in code order."""

from __future__ import annotations

from flake8_xla.rules.amp import CudaAmpOnXla, NonSyncfreeOptimizerWithScaler
from flake8_xla.rules.base import Rule
from flake8_xla.rules.devices import HardcodedCudaDevice
from flake8_xla.rules.shapes import DynamicPadding
from flake8_xla.rules.steps import MissingStepBarrier
from flake8_xla.rules.syncs import HostSync

ALL_RULES: tuple[type[Rule], ...] = (
    DynamicPadding,
    HostSync,
    MissingStepBarrier,
    CudaAmpOnXla,
    NonSyncfreeOptimizerWithScaler,
    HardcodedCudaDevice,
)
RULES_BY_CODE: dict[str, type[Rule]] = {r.code: r for r in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Rule"]
