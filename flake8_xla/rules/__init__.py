"""The rule registry: every rule class, in code order.

``ALL_RULES`` are the rules the engine runs on a parsed file. ``FILE_RULES`` are
about the file itself (XLA001: it could not be read or parsed); they are
reported before any rule runs, and never by the engine. ``LISTED_RULES`` is both,
in code order: what ``--list-rules``, the docs and SARIF list.
"""

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
from flake8_xla.rules.files import UnreadableFile
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
)
FILE_RULES: tuple[type[Rule], ...] = (UnreadableFile,)
LISTED_RULES: tuple[type[Rule], ...] = (*FILE_RULES, *ALL_RULES)
RULES_BY_CODE: dict[str, type[Rule]] = {r.code: r for r in LISTED_RULES}

__all__ = ["ALL_RULES", "FILE_RULES", "LISTED_RULES", "RULES_BY_CODE", "Rule"]
