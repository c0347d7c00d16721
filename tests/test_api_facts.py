"""The API facts: the generator, the data files, the rules that read them, the version range.

``flake8_xla/data/xla_api.json`` comes from ``scripts/api_facts.py`` (the torch_xla wheels
of 2.1 ... 2.9, read with ast). These tests check that

* the generator reads re-exports, star imports, conditional and ``__main__``-only
  names, and every deprecation mechanism torch_xla used, and writes the same bytes
  twice (on small synthetic wheels, so no download is needed);
* the 2.9 column of the data file is what the generator reads from the installed
  torch_xla's sources (ast only), and, in the ``xla`` lane, what ``import`` +
  ``getattr`` of the installed torch_xla finds;
* XLA507 reports a one-line call of every public function and class of the main
  modules exactly when 2.9 lacks the name, and nothing that 2.5 has at 2.5;
* ``--xla-version`` accepts 2.0 ... 2.9 and rejects anything else with exit status 2.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from flake8_xla.context import Options
from flake8_xla.engine import lint_source
from flake8_xla.facts import check_version, torchtpu_api, xla_api

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "flake8_xla" / "data" / "xla_api.json"

#: The modules of the "Done when" list of issue 14.
MAIN_MODULES = ("torch_xla.core.xla_model", "torch_xla.runtime", "torch_xla.amp",
                "torch_xla.distributed.parallel_loader",
                "torch_xla.distributed.xla_multiprocessing")


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("api_facts", ROOT / "scripts" / "api_facts.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["api_facts"] = module
    spec.loader.exec_module(module)
    return module


GEN = _generator()


# ----------------------------------------------------------------- synthetic wheels
def _wheel(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in sorted(files.items()):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            zf.writestr(info, textwrap.dedent(text))
    return path


DEPRECATION_PY = """\
    def deprecated(module, new, extra_msg=None):
        return new
    def register_deprecated(module, new):
        setattr(module, new.__name__, deprecated(module, new))
"""

WHEEL_21 = {
    "torch_xla/__init__.py": """\
        import os
        from .version import __version__
        from .torch_xla import *
        if os.getenv("XLA_EAGER") == "1":
            from .experimental import eager_mode
    """,
    "torch_xla/version.py": "__version__ = '2.1.0'\n",
    "torch_xla/torch_xla.py": """\
        import torch
        def device():
            return torch.device("xla")
        def _private():
            pass
    """,
    "torch_xla/runtime.py": """\
        def world_size():
            return 1
        def xla_device():
            pass
    """,
    "torch_xla/core/__init__.py": "",
    "torch_xla/core/xla_model.py": '''\
        """xla_model."""
        from typing import Optional
        import torch_xla.runtime
        from torch_xla.experimental.deprecation import deprecated
        from . import xla_model as this_module
        def mark_step():
            pass
        def old_helper():
            pass
        def parse_device(name):
            warnings.warn("the devkind argument is deprecated") if name else None
        xrt_world_size = deprecated(this_module, torch_xla.runtime.world_size,
                                    "xrt_world_size() will be removed in release 2.2.")
        try:
            from fastlib import speedup
        except ImportError:
            speedup = None
        try:
            from torch_xla.runtime import world_size as fast_world_size
        except ImportError:
            fast_world_size = None
        if __name__ == "__main__":
            main_only = 1
        del old_helper
    ''',
    "torch_xla/experimental/__init__.py": "",
    "torch_xla/experimental/deprecation.py": DEPRECATION_PY,
    "torch_xla/experimental/pjrt.py": """\
        from torch_xla import runtime
        from torch_xla.experimental.deprecation import register_deprecated
        from . import pjrt as this_module
        aliases = [runtime.world_size, runtime.xla_device]
        for alias in aliases:
            register_deprecated(this_module, alias)
    """,
    "torch_xla/amp/__init__.py": "from .grad_scaler import GradScaler\n",
    "torch_xla/amp/grad_scaler.py": "class GradScaler:\n    pass\n",
    "torch_xla/_internal/__init__.py": "def hidden():\n    pass\n",
    "torch_xla-2.1.0.dist-info/METADATA": "Name: torch_xla\nVersion: 2.1.0\n",
}

WHEEL_22 = {
    **{k: v for k, v in WHEEL_21.items() if not k.startswith(("torch_xla/amp/grad_scaler",
                                                              "torch_xla/experimental/pjrt"))},
    "torch_xla/torch_xla.py": """\
        import torch
        __all__ = ["device", "sync"]
        def device():
            return torch.device("xla")
        def sync():
            pass
        helper = 1
    """,
    "torch_xla/amp/__init__.py": "from .autocast_mode import autocast\n",
    "torch_xla/amp/autocast_mode.py": "class autocast:\n    pass\n",
    "torch_xla/runtime.py": "def world_size():\n    return 1\n",
    "torch_xla/core/xla_model.py": """\
        import warnings
        from typing_extensions import deprecated
        @deprecated("Use torch_xla.sync instead")
        def mark_step():
            pass
        def compile(f):
            warnings.warn("xm.compile is deprecated. Use `torch_xla.compile` instead.")
            return f
    """,
    "torch_xla/experimental/xla_sharding.py": """\
        import warnings
        warnings.warn("Importing from torch_xla.experimental.xla_sharding is deprecated. "
                      "Please use `torch_xla.distributed.spmd` instead.", DeprecationWarning)
        from torch_xla.core.xla_model import *
    """,
    "torch_xla-2.2.0.dist-info/METADATA": "Name: torch_xla\nVersion: 2.2.0\n",
}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, dict]:
    folder = tmp_path_factory.mktemp("wheels")
    wheels = [GEN.Wheel("torch_xla", "2.1.0", _wheel(folder / "torch_xla-2.1.0-cp310-x.whl",
                                                     WHEEL_21)),
              GEN.Wheel("torch_xla", "2.2.0", _wheel(folder / "torch_xla-2.2.0-cp310-x.whl",
                                                     WHEEL_22))]
    text = GEN.build_xla(wheels)
    return wheels, json.loads(text)


def test_generator_output_is_reproducible(synthetic: tuple[list, dict]) -> None:
    wheels, data = synthetic
    first = GEN.build_xla(wheels)
    assert GEN.build_xla(wheels) == first  # byte for byte, no clock, sorted keys
    assert json.loads(first) == data
    assert data["releases"] == ["2.1", "2.2"]
    for w in wheels:
        entry = data["wheels"][GEN.minor(w.version)]
        assert entry["sha256"] == hashlib.sha256(w.path.read_bytes()).hexdigest()
        assert entry["file"] == w.path.name and entry["version"] == w.version
    assert first.index('"wheels"') < first.index('"names"')  # the header comes first


def test_generator_reads_bindings_like_import(synthetic: tuple[list, dict]) -> None:
    names = synthetic[1]["names"]
    # star re-export from torch_xla/torch_xla.py, restricted by __all__ in 2.2
    assert names["torch_xla.device"]["releases"] == ["2.1", "2.2"]
    assert names["torch_xla.sync"]["releases"] == ["2.2"]
    assert "torch_xla.helper" not in names and "torch_xla._private" not in names
    # an imported module (torch) is not an API name of torch_xla
    assert "torch_xla.torch" not in names
    # bound only when an environment variable is set; never when imported: not there
    assert "torch_xla.eager_mode" not in names
    assert "torch_xla.core.xla_model.main_only" not in names
    # del removes; try/except keeps the name; imports from outside are not API
    assert "torch_xla.core.xla_model.old_helper" not in names
    assert names["torch_xla.core.xla_model.fast_world_size"]["kind"] == "function"
    assert "torch_xla.core.xla_model.speedup" not in names  # bound, but not torch_xla's
    assert "torch_xla.core.xla_model.Optional" not in names
    assert "torch_xla._internal" not in names  # private modules are out of scope
    # re-exports resolve to what they are
    assert names["torch_xla.amp.GradScaler"]["kind"] == "class"
    assert names["torch_xla.core.xla_model.xrt_world_size"]["kind"] == "function"


def test_generator_reads_every_deprecation_mechanism(synthetic: tuple[list, dict]) -> None:
    names = synthetic[1]["names"]
    helper = names["torch_xla.core.xla_model.xrt_world_size"]
    assert helper["deprecated"]["release"] == "2.1"
    assert helper["deprecated"]["replacement"] == "torch_xla.runtime.world_size"
    assert "will be removed in release 2.2" in helper["deprecated"]["message"]
    assert helper["removed"] == "2.2"
    decorator = names["torch_xla.core.xla_model.mark_step"]
    assert decorator["deprecated"]["release"] == "2.2"
    assert decorator["deprecated"]["replacement"] == "torch_xla.sync"
    assert "removed" not in decorator
    on_call = names["torch_xla.core.xla_model.compile"]
    assert on_call["deprecated"]["replacement"] == "torch_xla.compile"
    # a warning about an argument, inside a branch, deprecates nothing
    assert "deprecated" not in names["torch_xla.core.xla_model.parse_device"]
    registered = names["torch_xla.experimental.pjrt.xla_device"]
    assert registered["deprecated"]["replacement"] == "torch_xla.runtime.xla_device"
    assert registered["removed"] == "2.2"
    module = names["torch_xla.experimental.xla_sharding"]
    assert module["kind"] == "module"
    assert module["deprecated"]["replacement"] == "torch_xla.distributed.spmd"
    # removed without any notice: the replacement a checks/ script runs
    scaler = names["torch_xla.amp.GradScaler"]
    assert scaler["removed"] == "2.2" and "deprecated" not in scaler
    assert scaler["replacement"]["name"] == "torch.amp.GradScaler('xla')"


def test_newest_patch_per_minor() -> None:
    got = GEN.newest_patch_per_minor(["2.9.0", "2.8.1", "2.8.0", "2.6.1", "2.6.0", "2.1.0",
                                      "2.0.0", "2.10.0rc1", "1.13.0"])
    assert got == ["2.1.0", "2.6.1", "2.8.1", "2.9.0"]


# ------------------------------------------------------------------- the data files
def test_data_file_header() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert data["releases"] == [f"2.{m}" for m in range(1, 10)]
    for release in data["releases"]:
        wheel = data["wheels"][release]
        assert wheel["file"].startswith(f"torch_xla-{wheel['version']}-")
        assert wheel["version"].startswith(release + ".")
        assert re.fullmatch(r"[0-9a-f]{64}", wheel["sha256"])
    assert DATA.read_text(encoding="utf-8") == GEN.dumps(data)  # the generator's layout
    tpu = torchtpu_api()
    assert tpu["version"] == "0.2.0" and re.fullmatch(r"[0-9a-f]{64}", tpu["wheel"]["sha256"])


def test_facts_the_issue_names() -> None:
    """The false alarm and the misses of issue 14, as the wheels say."""
    api = xla_api()
    nine, five = (2, 9), (2, 5)
    assert api.names["torch_xla.core.xla_model.get_local_ordinal"].present(nine)
    for gone in ("torch_xla.runtime.xla_device", "torch_xla.core.xla_model.parse_xla_device",
                 "torch_xla.core.xla_model.xrt_world_size", "torch_xla.core.xla_model.get_ordinal",
                 "torch_xla.amp.GradScaler"):
        assert api.names[gone].present(five) and not api.names[gone].present(nine), gone
    mark_step = api.names["torch_xla.core.xla_model.mark_step"]
    assert mark_step.deprecated_in == (2, 8) and mark_step.replacement == "torch_xla.sync"


def _installed_torch_xla() -> Path | None:
    spec = importlib.util.find_spec("torch_xla")  # locates, does not import
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent


def _bound(model: object, qualname: str, kind: str) -> bool:
    if kind == "module":
        return qualname in model.modules  # type: ignore[attr-defined]
    module, _, name = qualname.rpartition(".")
    return module in model.modules and name in model.namespace(module)  # type: ignore[attr-defined]


def test_newest_column_is_the_installed_sources() -> None:
    """What the generator reads from the installed torch_xla (ast only) is the 2.9 column."""
    root = _installed_torch_xla()
    if root is None:
        pytest.skip("torch_xla is not installed (pip install -e '.[validate]')")
    import importlib.metadata

    installed = GEN.minor(importlib.metadata.version("torch_xla"))
    data = json.loads(DATA.read_text(encoding="utf-8"))
    if installed not in data["releases"]:
        pytest.skip(f"installed torch_xla {installed} is not a release of the data file")
    model = GEN.ReleaseModel(GEN.tree_sources(root, "torch_xla"), "torch_xla")
    wrong = [q for q, e in data["names"].items()
             if (installed in e["releases"]) != _bound(model, q, e["kind"])]
    assert wrong == [], wrong[:20]


CHECK_INSTALLED = r"""
import importlib, json, sys, warnings
warnings.simplefilter("ignore")
names = json.load(open(sys.argv[1]))["names"]
modules = {q for q, e in names.items() if e["kind"] == "module"}
out = {}
for q, e in sorted(names.items()):
    if e["kind"] == "module":
        try:
            importlib.import_module(q)
            out[q] = True
        except ImportError:
            out[q] = False
        continue
    mod, _, name = q.rpartition(".")
    while mod not in modules:
        mod, _, head = mod.rpartition(".")
        name = head + "." + name
    try:
        obj = importlib.import_module(mod)
    except ImportError:
        out[q] = False
        continue
    ok = True
    for part in name.split("."):
        if not hasattr(obj, part):
            ok = False
            break
        obj = getattr(obj, part)
    out[q] = ok
print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def installed_has() -> dict[str, bool]:
    """``import`` + ``getattr`` of every name of the data file in the installed torch_xla."""
    pytest.importorskip("torch_xla.version")
    env = {**os.environ, "PJRT_DEVICE": "CPU", "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", CHECK_INSTALLED, str(DATA)], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line, proc.stderr[-3000:]
    return json.loads(line[len("RESULT "):])


@pytest.mark.xla
def test_data_file_matches_installed_torch_xla(installed_has: dict[str, bool]) -> None:
    """Every name the file gives the installed release resolves; every other one does not."""
    import importlib.metadata

    installed = GEN.minor(importlib.metadata.version("torch_xla"))
    names = json.loads(DATA.read_text(encoding="utf-8"))["names"]
    if installed not in json.loads(DATA.read_text(encoding="utf-8"))["releases"]:
        pytest.skip(f"installed torch_xla {installed} is not in the data file")
    says = {q: installed in e["releases"] for q, e in names.items()}
    wrong = sorted(q for q in names if says[q] != installed_has[q])
    assert wrong == [], [(q, "file says", says[q], "installed", installed_has[q])
                         for q in wrong[:20]]
    removed = [q for q, e in names.items() if e.get("removed")]
    assert removed and not any(installed_has[q] for q in removed)


# ------------------------------------------------------------- XLA507 over the file
def _main_api(version_set: tuple[tuple[int, int], ...]) -> list[tuple[str, str]]:
    out = []
    for qualname, facts in sorted(xla_api().names.items()):
        module, _, name = qualname.rpartition(".")
        if module in MAIN_MODULES and facts.kind in ("function", "class") and \
                any(v in facts.releases for v in version_set):
            out.append((module, name))
    return out


def _xla507_lines(module: str, name: str, version: tuple[int, int]) -> set[int]:
    src = f"import torch_xla\nimport {module} as m\nm.{name}()\n"
    return {f.line for f in lint_source(src, "t.py", Options(version=version))
            if f.code == "XLA507"}


def test_xla507_on_every_main_api_at_29() -> None:
    """A one-line call of each function/class of the main modules that 2.5 or 2.9 has
    gets XLA507 exactly when 2.9 lacks the name (per the data file)."""
    cases = _main_api(((2, 5), (2, 9)))
    assert len(cases) > 60
    wrong = []
    for module, name in cases:
        gone = (2, 9) not in xla_api().names[f"{module}.{name}"].releases
        if _xla507_lines(module, name, (2, 9)) != ({3} if gone else set()):
            wrong.append(f"{module}.{name}")
    assert wrong == []
    assert any((2, 9) not in xla_api().names[f"{m}.{n}"].releases for m, n in cases)


@pytest.mark.xla
def test_xla507_exactly_when_installed_lacks_the_name(installed_has: dict[str, bool]) -> None:
    """The same calls, judged by the installed torch_xla: XLA507 iff getattr fails."""
    wrong = []
    for module, name in _main_api(((2, 5), (2, 9))):
        has = installed_has[f"{module}.{name}"]
        if _xla507_lines(module, name, (2, 9)) != (set() if has else {3}):
            wrong.append(f"{module}.{name}")
    assert wrong == []


def test_nothing_25_has_is_reported_at_25() -> None:
    """With --xla-version=2.5, no name that 2.5 has gets XLA507 (any module, any spelling)."""
    api = xla_api()
    wrong = []
    for qualname, facts in sorted(api.names.items()):
        if not facts.present((2, 5)):
            continue
        if facts.kind == "module":
            src = f"import {qualname}\n"
        else:
            module, _, name = qualname.rpartition(".")
            src = f"import {module} as m\nfrom {module} import {name}\nm.{name}\n"
        if any(f.code == "XLA507" for f in lint_source(src, "t.py", Options(version=(2, 5)))):
            wrong.append(qualname)
    assert wrong == []


def test_removed_api_message_names_the_replacement() -> None:
    src = ("import torch_xla.core.xla_model as xm\nimport torch_xla.runtime as xr\n"
           "a = xm.xrt_world_size()\nb = xr.xla_device()\nc = xm.get_local_ordinal()\n")
    found = {f.line: f.message for f in lint_source(src, "t.py", Options(version=(2, 9)))}
    assert "xm.xrt_world_size no longer exists in torch_xla 2.7+" in found[3]
    assert "use xr.world_size()" in found[3]
    assert "xr.xla_device no longer exists in torch_xla 2.8+" in found[4]
    assert 5 not in found  # the false alarm of issue 14
    at27 = {f.line for f in lint_source(src, "t.py", Options(version=(2, 7)))
            if f.code == "XLA507"}
    assert at27 == {3}


# ------------------------------------------------------------------ --xla-version
@pytest.mark.parametrize("text", [f"2.{m}" for m in range(10)] + ["2.9.0+cpu"])
def test_accepted_versions(text: str) -> None:
    version = check_version(text)
    assert xla_api().facts_version(version) in xla_api().releases


@pytest.mark.parametrize("text", ["3.0", "2.10", "1.13", "0.9"])
def test_rejected_versions(text: str) -> None:
    with pytest.raises(ValueError, match=r"not a release flake8-xla knows: use 2\.0 \.\.\. 2\.9"):
        check_version(text)


@pytest.mark.parametrize("command", [["-m", "flake8", "--select=XLA"], ["-m", "flake8_xla"]])
def test_unknown_version_is_a_usage_error(command: list[str], tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("import torch_xla\n", encoding="utf-8")
    for bad in ("3.0", "2.10"):
        proc = subprocess.run([sys.executable, *command, f"--xla-version={bad}", "t.py"],
                              cwd=tmp_path, capture_output=True, text=True, check=False)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr and "use 2.0 ... 2.9" in proc.stderr
    proc = subprocess.run([sys.executable, *command, "--xla-version=2.0", "t.py"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_version_20_reads_the_21_facts() -> None:
    src = "import torch_xla.core.xla_model as xm\nxm.xrt_world_size()\nxm.mark_step()\n"
    assert lint_source(src, "t.py", Options(version=(2, 0))) == \
        lint_source(src, "t.py", Options(version=(2, 1))) == []


def test_no_rule_types_a_version() -> None:
    """Version facts live in the data file: no rule (nor the context) spells a torch_xla
    release as a literal ``(2, minor)`` tuple, in a comparison or a table."""
    import ast

    def literal_version(node: ast.AST) -> bool:
        return isinstance(node, ast.Tuple) and len(node.elts) == 2 and all(
            isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts) and \
            node.elts[0].value == 2  # type: ignore[attr-defined]

    files = [*sorted((ROOT / "flake8_xla" / "rules").glob("*.py")),
             ROOT / "flake8_xla" / "context.py"]
    typed = [f"{p.name}:{node.lineno}" for p in files
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if literal_version(node)]
    assert typed == []


def _run_generator(*args: str) -> int:
    old, sys.stdout = sys.stdout, io.StringIO()
    try:
        return GEN.main(list(args))
    finally:
        sys.stdout = old


def test_check_mode(tmp_path: Path, synthetic: tuple[list, dict]) -> None:
    """``--check`` regenerates and compares: 0 reproduced, 1 differs, 2 a wheel is missing."""
    wheels, _ = synthetic
    cache = str(wheels[0].path.parent)
    out = tmp_path / "data"
    common = ["--cache", cache, "--offline", "--xla-versions", "2.1.0,2.2.0",
              "--out-dir", str(out)]
    assert _run_generator(*common, "--only", "xla") == 0  # writes
    assert _run_generator(*common, "--only", "xla", "--check") == 0
    path = out / "xla_api.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"2.2"', '"2.3"', 1),
                    encoding="utf-8")
    assert _run_generator(*common, "--only", "xla", "--check") == 1
    # no torch-tpu wheel in this cache and --offline: a clear error, status 2
    assert _run_generator(*common, "--check") == 2
