"""Whole projects: which modules are XLA code, and calls followed across modules.

Users run flake8 at the root of a repository, or an editor lints one file of it; both
must give the same answer. This package gives each checked file its project:

- :mod:`~flake8_xla.project.roots`: the project root (the nearest folder above the
  file holding ``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git``) and the
  folders that are not project code;
- :mod:`~flake8_xla.project.xlause`: whether a module shows XLA use (syntax only);
- :mod:`~flake8_xla.project.summary`: the per-module summary (imports, top-level names,
  the names it uses, XLA use);
- :mod:`~flake8_xla.project.cache`: the on-disk cache of the summaries
  (``.flake8_xla_cache/``), shared by flake8 workers and editor runs;
- :mod:`~flake8_xla.project.index`: module resolution and the XLA-code decision of
  ``--xla-target=auto``;
- :mod:`~flake8_xla.project.link`: the cross-module link of the value analysis (the
  only part that needs astroid): qualified names of project modules resolve to their
  definitions, calls into them return their values, parameters take the values that
  call sites in other modules pass, and the step questions see through calls into
  other modules.

Nothing here imports or executes the checked code, and nothing outside the project root
is read. ``--xla-target=file`` turns all of it off.
"""


def reset() -> None:
    """Forget everything this process learnt about projects (the indexes, the roots found,
    the shared astroid trees and step-region results): for tests, and for a long-lived
    process after files changed. The disk cache is kept (it checks itself)."""
    import sys

    from flake8_xla.project import index, roots

    index.reset()
    roots._root_of_dir.cache_clear()
    link = sys.modules.get("flake8_xla.project.link")
    if link is not None:
        link._TREES.clear()
        link._TREE_REL.clear()
        link._STEP_CALLS.clear()
