"""``python -m flake8_xla``: the ``flake8-xla`` command."""

from flake8_xla.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
