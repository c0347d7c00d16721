"""``python -m perf_validation``: see :mod:`perf_validation.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
