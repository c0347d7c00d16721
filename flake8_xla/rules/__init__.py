"""The rule registry: every rule class, in code order."""

from __future__ import annotations

from flake8_xla.rules.amp import CudaAmpOnXla, NonSyncfreeOptimizerWithScaler
from flake8_xla.rules.base import Rule
from flake8_xla.rules.devices import HardcodedCudaDevice
from flake8_xla.rules.distributed import (
    DistributedAmpWithoutAllReduce,
    MissingMpFn,
    SamplerWithoutReplicaInfo,
    SpawnEntryPoint,
    TorchSaveXla,
    TrainerXlaSettings,
    UnreducedOptimizerStep,
)
from flake8_xla.rules.migration import MIGRATION_RULES
from flake8_xla.rules.shapes import (
    DataDependentControlFlow,
    DynamicPadding,
    DynamicShapeOp,
    RaggedLastBatch,
)
from flake8_xla.rules.steps import MissingStepBarrier, PlainDataLoaderInStep
from flake8_xla.rules.syncs import HostSync
from flake8_xla.rules.versions import DeprecatedXlaApi, RemovedXlaApi

ALL_RULES: tuple[type[Rule], ...] = (
    DynamicPadding,
    RaggedLastBatch,
    DataDependentControlFlow,
    DynamicShapeOp,
    HostSync,
    MissingStepBarrier,
    PlainDataLoaderInStep,
    CudaAmpOnXla,
    NonSyncfreeOptimizerWithScaler,
    DistributedAmpWithoutAllReduce,
    HardcodedCudaDevice,
    UnreducedOptimizerStep,
    TorchSaveXla,
    SamplerWithoutReplicaInfo,
    SpawnEntryPoint,
    TrainerXlaSettings,
    RemovedXlaApi,
    DeprecatedXlaApi,
    MissingMpFn,
    *MIGRATION_RULES,  # XLA6xx: off unless --xla-migrate=torchtpu
)
RULES_BY_CODE: dict[str, type[Rule]] = {r.code: r for r in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Rule"]
