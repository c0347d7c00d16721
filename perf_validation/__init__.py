"""Measured graph-compilation reports for flagged vs fixed PyTorch/XLA scripts.

``python -m perf_validation FLAGGED.py FIXED.py`` or ``python -m perf_validation checks/``
runs each script in its own subprocess under :mod:`perf_validation.probe`, reads
torch_xla.debug.metrics (graph compilations, cache hits, graph executions,
device-to-host transfers, step barriers, CPU fallback ops), verifies the claims of
each ``case.toml`` and writes report.md, report.json and report.png.

Importing this package does not import torch or torch_xla.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
