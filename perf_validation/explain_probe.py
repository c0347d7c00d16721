"""The probe's ``--explain`` mode: where each graph compilation, execution and
device-to-host transfer comes from.

Run inside the probed process (see :mod:`perf_validation.probe`).  It combines

- torch_xla's own graph analysis (``PT_XLA_DEBUG_LEVEL=2`` written to
  ``PT_XLA_DEBUG_FILE``, parsed by :mod:`perf_validation.xla_debug`): one block per
  compilation and per execution, with its cause, graph hash, number of graph inputs
  and outputs and the Python frames.  ``PT_XLA_DEBUG_MAX_FRAME`` is raised so that the
  frames reach the user's script, and the probe's own frames are dropped when read;
- checkpoints: the size of that file and torch_xla's counters (``ExecuteComputation``,
  ``UncachedCompile``, ``TransferFromDeviceTime`` samples) at every step barrier and
  around every torch call that ran a graph or copied data to the host, seen through a
  :class:`torch.overrides.TorchFunctionMode` (device-to-host transfers are not part of
  the PT_XLA_DEBUG analysis);
- the tensors handed to every outermost ``nn.Module`` call (a global forward pre-hook,
  :func:`torch.nn.modules.module.register_module_forward_pre_hook`): names, shapes,
  dtypes: the "inputs of the step" a recompilation is explained by;
- host-to-device uploads (``Tensor.to`` onto the XLA device), used when the script
  calls no module;
- which lines of the script ran, and how often (:func:`sys.settrace`, in the
  script's own frames only), to tell a static finding that ran and cost nothing
  from one that never ran.

Nothing here changes what the script computes.  torch and torch_xla are imported
only in :meth:`ExplainHooks.install`.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["DEBUG_ENV", "MAX_FRAMES", "ExplainHooks", "debug_environment"]

#: Frames torch_xla keeps per analysis block in explain mode (PT_XLA_DEBUG_MAX_FRAME).
MAX_FRAMES = 256
#: Frames kept per event in the probe's JSON (innermost first, the probe's own dropped).
KEPT_FRAMES = 24
#: At most this many records of each sort are kept.
MAX_RECORDS = 100_000
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_RUNPY = os.path.abspath(getattr(sys.modules.get("runpy"), "__file__", "") or "runpy.py")
#: Environment variables set before torch_xla is imported.
DEBUG_ENV = ("PT_XLA_DEBUG_LEVEL", "PT_XLA_DEBUG_FILE", "PT_XLA_DEBUG_MAX_FRAME")
#: Tensor methods that only read metadata: never a transfer, not worth a check.
_METADATA = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "stride", "storage_offset",
    "is_contiguous", "is_floating_point", "is_complex", "element_size", "get_device",
    "__len__", "__get__", "__hash__", "data_ptr", "__setstate__", "_is_view",
    "requires_grad_", "register_hook", "retain_grad", "__instancecheck__",
})
#: Calls that read a value to the host: checked before and after.
_READS = frozenset({
    "item", "tolist", "cpu", "numpy", "to", "__bool__", "__int__", "__float__",
    "__index__", "__complex__", "__format__", "__repr__", "__str__", "__array__",
    "equal", "allclose", "is_nonzero", "_local_scalar_dense", "__reduce_ex__",
    "__deepcopy__", "copy_", "__iter__", "__contains__",
})


def debug_environment(debug_file: str) -> dict[str, str]:
    """The PT_XLA_DEBUG settings of explain mode (set before torch_xla is imported).

    Args:
        debug_file: the file torch_xla appends its analysis blocks to.
    """
    return {"PT_XLA_DEBUG_LEVEL": "2", "PT_XLA_DEBUG_FILE": debug_file,
            "PT_XLA_DEBUG_MAX_FRAME": str(MAX_FRAMES)}


def is_probe_frame(filename: str) -> bool:
    """True for frames of perf_validation itself and of runpy (the probe's machinery)."""
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE_DIR + os.sep) or path == _RUNPY or \
        os.path.basename(path) == "runpy.py" or filename == "<frozen runpy>"


def stack(start: FrameType | None, limit: int = KEPT_FRAMES) -> list[list[Any]]:
    """``[function, file, line]`` for the frames from *start* outwards, innermost first,
    without the probe's own frames, at most *limit*."""
    out: list[list[Any]] = []
    frame = start
    while frame is not None and len(out) < limit:
        code = frame.f_code
        if not is_probe_frame(code.co_filename):
            out.append([code.co_name, code.co_filename, frame.f_lineno])
        frame = frame.f_back
    return out


def _describe(value: Any) -> list[Any] | None:
    """``[shape, dtype]`` of a tensor, None for anything else."""
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is None or dtype is None or not hasattr(value, "is_xla"):
        return None
    try:
        return [[int(d) for d in shape], str(dtype).replace("torch.", "")]
    except (TypeError, ValueError):
        return None


class ExplainHooks:
    """Hooks of one explained run, and what they recorded.

    Args:
        script: absolute path of the script (its frames are the "user" frames).
        debug_file: the PT_XLA_DEBUG file torch_xla writes to.
    """

    def __init__(self, script: str, debug_file: str) -> None:
        self.script = script
        self.debug_file = debug_file
        self.barriers: list[dict[str, Any]] = []
        self.reads: list[dict[str, Any]] = []
        self.forwards: list[dict[str, Any]] = []
        self.uploads: list[dict[str, Any]] = []
        self.lines: dict[int, int] = {}
        self.notes: list[str] = []
        self.seq = 0
        self.forward_count = 0
        self.barrier_count = 0
        self._in_barrier = 0
        self._xlac: Any = None
        self._torch: Any = None
        self._mode: Any = None
        self._local = threading.local()
        self._transfers_seen = 0
        self._signatures: dict[type, inspect.Signature | None] = {}
        self._lock = threading.Lock()
        #: Forked children (DataLoader workers) inherit the hooks; they record nothing
        #: and never touch torch_xla's runtime, which a fork does not carry over.
        self._pid = os.getpid()

    # -- readings -------------------------------------------------------------------------
    def offset(self) -> int:
        """The current size of the PT_XLA_DEBUG file in bytes (0 before it exists)."""
        try:
            return os.stat(self.debug_file).st_size
        except OSError:
            return 0

    def _counter(self, name: str) -> int:
        value = self._xlac._xla_counter_value(name)
        return int(value) if value is not None else 0

    def _transfers(self) -> int:
        data = self._xlac._xla_metric_data("TransferFromDeviceTime")
        return int(data[0]) if data else 0

    def _graph_size(self) -> int | None:
        data = self._xlac._xla_metric_data("TensorsGraphSize")
        if not data or not data[2]:
            return None
        return int(data[2][-1][1])

    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq

    # -- barriers (called by Probe.wrap_barrier around the outermost call) -----------------
    def barrier_start(self, frame: FrameType | None) -> dict[str, Any]:
        """Checkpoint before a step barrier; returns the record :meth:`barrier_end` fills."""
        self._in_barrier += 1
        return {"seq": self._next_seq(), "index": self.barrier_count,
                "start": self.offset(), "frames": stack(frame),
                "forwards": self.forward_count,
                "executions_before": self._counter("ExecuteComputation"),
                "compiles_before": self._counter("UncachedCompile")}

    def barrier_end(self, record: dict[str, Any]) -> None:
        """Checkpoint after a step barrier."""
        self._in_barrier = max(0, self._in_barrier - 1)
        record["end"] = self.offset()
        record["executions"] = self._counter("ExecuteComputation") - record.pop("executions_before")
        record["compiles"] = self._counter("UncachedCompile") - record.pop("compiles_before")
        record["graph_nodes"] = self._graph_size()
        self._transfers_seen = self._transfers()
        self.barrier_count += 1
        if len(self.barriers) < MAX_RECORDS:
            self.barriers.append(record)

    # -- torch calls ------------------------------------------------------------------------
    def on_call(self, func: Callable[..., Any], args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> Any:
        """Run one torch call and record it when it ran a graph or copied to the host."""
        name = getattr(func, "__name__", "")
        if name in _METADATA or os.getpid() != self._pid:
            return func(*args, **kwargs)
        counter = self._counter
        read = name in _READS
        start = self.offset() if read else None
        executions, compiles = counter("ExecuteComputation"), counter("UncachedCompile")
        if read:
            self._transfers_seen = self._transfers()
        result = func(*args, **kwargs)
        ran = counter("ExecuteComputation") - executions
        compiled = counter("UncachedCompile") - compiles
        transfers = 0
        if read or ran or not getattr(result, "is_xla", True):
            now = self._transfers()
            transfers, self._transfers_seen = now - self._transfers_seen, now
        if name == "to" and getattr(result, "is_xla", False) and args \
                and not getattr(args[0], "is_xla", True):
            self._upload(args[0])
        if ran or compiled or transfers:
            record = {"seq": self._next_seq(), "func": name, "step": self.barrier_count,
                      "start": start, "end": self.offset(), "executions": ran,
                      "compiles": compiled, "transfers": transfers,
                      "in_barrier": self._in_barrier > 0, "forwards": self.forward_count,
                      "frames": stack(sys._getframe(1)),
                      "graph_nodes": self._graph_size() if ran else None}
            if len(self.reads) < MAX_RECORDS:
                self.reads.append(record)
        return result

    def _upload(self, tensor: Any) -> None:
        described = _describe(tensor)
        if described is None or len(self.uploads) >= MAX_RECORDS:
            return
        frames = stack(sys._getframe(2), limit=KEPT_FRAMES)
        line = next((f[2] for f in frames if os.path.abspath(f[1]) == self.script), None)
        self.uploads.append({"seq": self._next_seq(), "step": self.barrier_count,
                             "line": line, "shape": described[0], "dtype": described[1]})

    # -- module calls -----------------------------------------------------------------------
    def _signature(self, module: Any) -> inspect.Signature | None:
        cls = type(module)
        if cls not in self._signatures:
            try:
                self._signatures[cls] = inspect.signature(module.forward)
            except (TypeError, ValueError):
                self._signatures[cls] = None
        return self._signatures[cls]

    def _inputs(self, module: Any, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> dict[str, list[Any]]:
        named: dict[str, Any] = {}
        signature = self._signature(module)
        bound = None
        if signature is not None:
            try:
                bound = signature.bind_partial(*args, **kwargs)
            except TypeError:
                bound = None
        if bound is not None:
            for key, value in bound.arguments.items():
                kind = signature.parameters[key].kind if signature else None
                if kind is inspect.Parameter.VAR_POSITIONAL:
                    for i, item in enumerate(value):
                        named[f"{key}[{i}]"] = item
                elif kind is inspect.Parameter.VAR_KEYWORD:
                    named.update(value)
                else:
                    named[key] = value
        else:
            named.update({f"arg{i}": v for i, v in enumerate(args)})
            named.update(kwargs)
        out: dict[str, list[Any]] = {}
        for key, value in named.items():
            described = _describe(value)
            if described is not None:
                out[key] = described
        return out

    def pre_forward(self, module: Any, args: tuple[Any, ...]) -> None:
        """Global forward pre-hook: record the inputs of each outermost module call."""
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        if depth or threading.current_thread() is not threading.main_thread() or \
                os.getpid() != self._pid:
            return
        # Global pre-hooks get no kwargs; Module._call_impl's inner() holds them.
        caller = sys._getframe(1)
        kwargs = caller.f_locals.get("kwargs") if caller.f_code.co_name == "inner" else None
        self.forward_count += 1
        if len(self.forwards) >= MAX_RECORDS:
            return
        try:
            inputs = self._inputs(module, args, kwargs if isinstance(kwargs, dict) else {})
        except Exception as exc:  # noqa: BLE001 - never break the script
            inputs = {}
            if not self.notes:
                self.notes.append(f"could not read a module's inputs: {exc}")
        frames = stack(caller, limit=KEPT_FRAMES)
        line = next((f[2] for f in frames if os.path.abspath(f[1]) == self.script), None)
        self.forwards.append({"seq": self._next_seq(), "step": self.barrier_count,
                              "index": self.forward_count, "module": type(module).__name__,
                              "line": line, "inputs": inputs})

    def post_forward(self, module: Any, args: tuple[Any, ...], output: Any) -> None:
        """Global forward hook (always called): leave the module call."""
        self._local.depth = max(0, getattr(self._local, "depth", 1) - 1)

    # -- line coverage ----------------------------------------------------------------------
    def _trace_calls(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != self.script or os.getpid() != self._pid:
            return None
        return self._trace_lines

    def _trace_lines(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            line = frame.f_lineno
            self.lines[line] = self.lines.get(line, 0) + 1
        return self._trace_lines

    # -- set-up -----------------------------------------------------------------------------
    def install(self) -> None:
        """Install the torch function mode, the module hooks and the line tracer.

        Call after torch_xla is imported and before the script runs.

        Raises:
            ImportError: torch cannot be imported.
        """
        import torch
        import torch_xla
        from torch.overrides import TorchFunctionMode

        self._torch = torch
        self._xlac = torch_xla._XLAC
        hooks = self

        class _Watch(TorchFunctionMode):
            """Sees every torch call of the main thread (the probe's ``--explain``)."""

            def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                                   kwargs: dict[str, Any] | None = None) -> Any:
                return hooks.on_call(func, args, kwargs or {})

        self._mode = _Watch()
        self._mode.__enter__()
        modules = torch.nn.modules.module
        modules.register_module_forward_pre_hook(self.pre_forward)
        modules.register_module_forward_hook(self.post_forward, always_call=True)
        sys.settrace(self._trace_calls)

    def uninstall(self) -> None:
        """Stop the line tracer (the other hooks stay: the interpreter is about to exit)."""
        sys.settrace(None)

    def data(self, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        """The ``explain`` part of the probe's JSON.

        Args:
            blocks: the parsed PT_XLA_DEBUG blocks (:meth:`DebugBlock.to_dict`).
        """
        with self._lock:
            return {
                "version": 1,
                "debug_file_bytes": self.offset(),
                "max_frames": MAX_FRAMES,
                "blocks": blocks,
                "barriers": list(self.barriers),
                "reads": list(self.reads),
                "forwards": list(self.forwards),
                "uploads": list(self.uploads),
                "forward_count": self.forward_count,
                "lines": {str(k): v for k, v in sorted(self.lines.items())},
                "notes": list(self.notes),
            }
