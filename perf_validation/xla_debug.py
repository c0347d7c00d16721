"""Reading torch_xla's PT_XLA_DEBUG graph analysis.

With ``PT_XLA_DEBUG_LEVEL=2`` and ``PT_XLA_DEBUG_FILE=PATH``, torch_xla appends one
block to PATH for every graph compilation ("Compilation Analysis") and every graph
execution ("Execution Analysis"), written by ``DebugUtil::analyze_graph_execution_python_frame``
in torch_xla/csrc/debug_util.cpp.  torch_xla has no Python API that returns these
blocks (``torch_xla._XLAC`` only offers ``_get_graph_hash`` for tensors one holds),
so this module parses the text.  A block looks like this (torch_xla 2.9)::

    Execution Analysis: ================================================================================
    Execution Analysis: Execution Cause
    Execution Analysis:   most likely user code trying to access tensor value before torch_xla.sync
    Execution Analysis: Graph Info:
    Execution Analysis:   Graph Hash: 4e1c41a342843d5140d618ef8692b5fc
    Execution Analysis:   Number of Graph Inputs: 6
    Execution Analysis:   Number of Graph Outputs: 1
    Execution Analysis: Python Frame Triggered Execution:
    Execution Analysis:   main (/path/train.py:39)
    Execution Analysis:   <module> (/path/train.py:46)
    Execution Analysis: --------------------------------------------------------------------------------
    Execution Analysis: ================================================================================

Frames are innermost first and capped at ``PT_XLA_DEBUG_MAX_FRAME`` (default 8; a
cut list ends with a line of dots).  The cause texts of torch_xla 2.9 are listed in
:data:`CAUSES`.

This module never imports torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CAUSES", "DebugBlock", "parse_debug_log", "read_debug_log", "read_new_blocks"]

#: Cause texts written by torch_xla 2.9 (strings of _XLAC.so), for reference and tests.
CAUSES: tuple[str, ...] = (
    "user torch_xla.sync",
    "torch_xla.sync in parallel loader at step end",
    "most likely user code trying to access tensor value before torch_xla.sync",
    "torch_xla.compile",
    "torch_xla.compile clear the pending graph prior calling the target function",
    "dynamo is compiling a FX graph to HLO",
    "dynamo is executing a compiled program",
    "torch_xla.sync when dynamo processing input graphs",
    "torch_xla.sync when exiting a profiler StepTrace region",
)
_KINDS = {"Compilation Analysis": "compile", "Execution Analysis": "execute"}
_PREFIX_RE = re.compile(r"^(Compilation Analysis|Execution Analysis|Post Compilation Analysis): ?(.*)$")
_FRAME_RE = re.compile(r"^(?P<func>.*?) \((?P<file>.+):(?P<line>\d+)\)$")
_HASH_RE = re.compile(r"^Graph Hash: *([0-9A-Fa-f]+)$")
_INPUTS_RE = re.compile(r"^Number of Graph Inputs: *(\d+)$")
_OUTPUTS_RE = re.compile(r"^Number of Graph Outputs: *(\d+)$")
_SIZE_RE = re.compile(r"^(Graph input size|Graph output size|Aliased Input size|"
                      r"Intermediate tensor size|Compiled program size): *([0-9.]+) *GB$")
#: At most this many blocks are read (a run of millions of steps writes gigabytes).
MAX_BLOCKS = 200_000
#: The two closing lines of a block.
_BLOCK_END_RE = re.compile(rb"Analysis: -{10,}\r?\n[A-Za-z ]*Analysis: ={10,}\r?\n")


@dataclass
class DebugBlock:
    """One analysis block of the PT_XLA_DEBUG file.

    Attributes:
        kind: ``"compile"`` or ``"execute"``.
        offset: byte offset in the file where the block starts (orders the block
            against the probe's checkpoints, which record the file size).
        cause: torch_xla's cause text (see :data:`CAUSES`), "" when missing.
        graph_hash: the graph hash (hex), "" when missing.
        inputs: number of graph inputs (device data), or None.
        outputs: number of graph outputs, or None.
        frames: Python frames ``(function, file, line)``, innermost first.
        frames_cut: True when torch_xla cut the frame list (PT_XLA_DEBUG_MAX_FRAME).
        computation_hash: the compiled computation's hash (compile blocks), or "".
        sizes_gb: "Post Compilation Analysis" sizes in GB (compile blocks).
    """

    kind: str
    offset: int
    cause: str = ""
    graph_hash: str = ""
    inputs: int | None = None
    outputs: int | None = None
    frames: list[tuple[str, str, int]] = field(default_factory=list)
    frames_cut: bool = False
    computation_hash: str = ""
    sizes_gb: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (frames as ``[function, file, line]`` lists)."""
        return {"kind": self.kind, "offset": self.offset, "cause": self.cause,
                "graph_hash": self.graph_hash, "inputs": self.inputs, "outputs": self.outputs,
                "frames": [list(f) for f in self.frames], "frames_cut": self.frames_cut,
                "computation_hash": self.computation_hash, "sizes_gb": dict(self.sizes_gb)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DebugBlock:
        """The inverse of :meth:`to_dict`.

        Raises:
            KeyError, TypeError, ValueError: ``data`` is not such a dict.
        """
        return cls(kind=str(data["kind"]), offset=int(data["offset"]),
                   cause=str(data.get("cause") or ""),
                   graph_hash=str(data.get("graph_hash") or ""),
                   inputs=data.get("inputs"), outputs=data.get("outputs"),
                   frames=[(str(f), str(p), int(n)) for f, p, n in data.get("frames") or []],
                   frames_cut=bool(data.get("frames_cut")),
                   computation_hash=str(data.get("computation_hash") or ""),
                   sizes_gb=dict(data.get("sizes_gb") or {}))


def parse_debug_log(data: bytes, max_blocks: int = MAX_BLOCKS,
                    base: int = 0) -> list[DebugBlock]:
    """Parse the bytes of a PT_XLA_DEBUG file into blocks, in file order.

    Lines that belong to no block (other torch_xla output) are skipped; a block cut
    off at the end of the file (the process was killed while writing) is kept with
    what it has.

    Args:
        data: the file's content (or a part of it that starts at a block boundary).
        max_blocks: stop after this many blocks.
        base: the file offset of ``data[0]`` (added to every block's offset).

    Returns:
        The blocks, each with its byte offset.
    """
    blocks: list[DebugBlock] = []
    current: DebugBlock | None = None
    section = ""
    rules = 0
    offset = base
    last_compile: DebugBlock | None = None
    for raw in data.splitlines(keepends=True):
        start = offset
        offset += len(raw)
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if line.startswith("Computation hash:"):
            if last_compile is not None and not last_compile.computation_hash:
                last_compile.computation_hash = line.split(":", 1)[1].strip()
            continue
        match = _PREFIX_RE.match(line)
        if match is None:
            continue
        prefix, body = match.group(1), match.group(2)
        if prefix == "Post Compilation Analysis":
            size = _SIZE_RE.match(body.strip())
            if size and last_compile is not None:
                last_compile.sizes_gb[size.group(1)] = float(size.group(2))
            continue
        kind = _KINDS[prefix]
        text = body.strip()
        if current is None or current.kind != kind:
            if not text.startswith("="):
                continue  # a stray line outside a block
            if len(blocks) >= max_blocks:
                break
            current = DebugBlock(kind=kind, offset=start)
            blocks.append(current)
            if kind == "compile":
                last_compile = current
            section, rules = "", 0
            continue
        if text.startswith("="):
            rules += 1
            if rules >= 1 and section == "end":
                current = None
            continue
        if text.startswith("-" * 10):
            section = "end"
            continue
        if text in ("Compilation Cause", "Execution Cause"):
            section = "cause"
            continue
        if text.startswith("Graph Info"):
            section = "graph"
            continue
        if text.startswith("Python Frame Triggered Execution"):
            section = "frames"
            continue
        if section == "cause":
            current.cause = f"{current.cause} {text}".strip() if current.cause else text
        elif section == "graph":
            for regex, attr in ((_HASH_RE, "graph_hash"), (_INPUTS_RE, "inputs"),
                                (_OUTPUTS_RE, "outputs")):
                found = regex.match(text)
                if found:
                    value = found.group(1)
                    setattr(current, attr, value if attr == "graph_hash" else int(value))
        elif section == "frames":
            frame = _FRAME_RE.match(text)
            if frame:
                current.frames.append((frame.group("func"), frame.group("file"),
                                       int(frame.group("line"))))
            elif text.startswith(".."):
                current.frames_cut = True
    return blocks


def read_debug_log(path: str, max_blocks: int = MAX_BLOCKS) -> list[DebugBlock]:
    """The blocks of the PT_XLA_DEBUG file at *path*; empty when it does not exist.

    Raises:
        OSError: the file exists but cannot be read.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return []
    return parse_debug_log(data, max_blocks)


def read_new_blocks(path: str, start: int, final: bool,
                    max_blocks: int = MAX_BLOCKS) -> tuple[list[DebugBlock], int]:
    """The blocks written to *path* from byte *start* on, for reading a file that
    torch_xla is still writing.

    Args:
        path: the PT_XLA_DEBUG file.
        start: where the previous call stopped (0 at first).
        final: read to the end, even a block cut off by a killed process; otherwise
            stop after the last complete block.
        max_blocks: stop after this many blocks.

    Returns:
        ``(blocks, next_start)``.

    Raises:
        OSError: the file exists but cannot be read.
    """
    try:
        with open(path, "rb") as fh:
            fh.seek(start)
            data = fh.read()
    except FileNotFoundError:
        return [], start
    if not final:
        ends = list(_BLOCK_END_RE.finditer(data))
        if not ends:
            return [], start
        data = data[:ends[-1].end()]
    return parse_debug_log(data, max_blocks, base=start), start + len(data)
