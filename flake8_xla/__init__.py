"""flake8-xla: find PyTorch/XLA performance hazards before the job reaches a TPU."""

__version__ = "0.1.0"
