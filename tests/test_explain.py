"""Tests of ``python -m perf_validation explain`` and ``flake8-xla --runtime``.

Unmarked tests are fast and never import torch: they read probe documents recorded
from real runs (``tests/perf_fixtures/explain/*.json``, written by ``record.py`` there)
and the PT_XLA_DEBUG text format.  Tests marked ``xla`` run scripts under torch_xla.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flake8_xla import cli as flake8_xla_cli
from flake8_xla import runtime
from perf_validation import cli as pv_cli
from perf_validation import explain, probe, report
from perf_validation.compare import evaluate_pair
from perf_validation.explain import (
    Event,
    FindingState,
    join,
    shape_change,
    statement_spans,
)
from perf_validation.runner import ScriptRun
from perf_validation.xla_debug import parse_debug_log, read_new_blocks

ROOT = Path(__file__).resolve().parent.parent
RECORDED = Path(__file__).resolve().parent / "perf_fixtures" / "explain"
FIXTURES = Path(__file__).resolve().parent / "perf_fixtures"
HAS_TORCH_XLA = importlib.util.find_spec("torch_xla") is not None
needs_torch_xla = pytest.mark.skipif(not HAS_TORCH_XLA, reason="needs torch_xla (validate extra)")
SCRIPTS = {
    "xla101_flagged": ROOT / "checks" / "XLA101" / "flagged.py",
    "xla101_fixed": ROOT / "checks" / "XLA101" / "fixed.py",
    "xla201_flagged": ROOT / "checks" / "XLA201" / "flagged.py",
    "xla301_flagged": ROOT / "checks" / "XLA301" / "flagged.py",
    "hf_bert_finetune": ROOT / "examples" / "hf_bert_finetune.py",
}
FAKE_SITE = os.path.join(os.sep, "venv", "lib", "python3", "site-packages")


# -- helpers ----------------------------------------------------------------------------
def recorded(name: str) -> tuple[dict[str, Any], Path]:
    """A recorded probe document with the script's real path put back."""
    script = SCRIPTS[name]
    text = (RECORDED / f"{name}.json").read_text()
    text = text.replace('"<SCRIPT>"', json.dumps(str(script)))
    text = text.replace("<SITE>/", FAKE_SITE.replace("\\", "\\\\") + "/")
    return json.loads(text), script


def explained(name: str) -> explain.Explanation:
    document, script = recorded(name)
    run = ScriptRun(script=str(script), outcome="ok", exit_code=0, wall_s=10.0, probe=document)
    return explain.explain_run(script, run, {"pjrt_device": "CPU"})


DEBUG_TEXT = b"""
Compilation Analysis: ================================================================================
Compilation Analysis: Compilation Cause
Compilation Analysis:   most likely user code trying to access tensor value before torch_xla.sync
Compilation Analysis: Graph Info: 
Compilation Analysis:   Graph Hash: 4e1c41a342843d5140d618ef8692b5fc
Compilation Analysis:   Number of Graph Inputs: 6
Compilation Analysis:   Number of Graph Outputs: 1
Compilation Analysis: Python Frame Triggered Execution: 
Compilation Analysis:   main (/p/train.py:39)
Compilation Analysis:   <module> (/p/train.py:46)
Compilation Analysis:   ..........
Compilation Analysis: --------------------------------------------------------------------------------
Compilation Analysis: ================================================================================

Computation hash: 75b2de70ee57fec23e8cdb36e210ae80

Post Compilation Analysis: ================================================================================
Post Compilation Analysis: Graph input size: 0.000010 GB
Post Compilation Analysis: Graph output size: 0.000000 GB
Post Compilation Analysis: --------------------------------------------------------------------------------
Post Compilation Analysis: ================================================================================

Execution Analysis: ================================================================================
Execution Analysis: Execution Cause
Execution Analysis:   user torch_xla.sync
Execution Analysis: Graph Info: 
Execution Analysis:   Graph Hash: cdbacb68075413300c46d415563de4da
Execution Analysis:   Number of Graph Inputs: 7
Execution Analysis:   Number of Graph Outputs: 13
Execution Analysis: Python Frame Triggered Execution: 
Execution Analysis:   sync (/v/site-packages/torch_xla/torch_xla.py:87)
Execution Analysis:   main (/p/train.py:40)
Execution Analysis: --------------------------------------------------------------------------------
Execution Analysis: ================================================================================
"""


# -- the PT_XLA_DEBUG analysis ----------------------------------------------------------
def test_parse_debug_log() -> None:
    compile_block, execute_block = parse_debug_log(DEBUG_TEXT)
    assert compile_block.kind == "compile" and execute_block.kind == "execute"
    assert compile_block.cause.startswith("most likely user code trying to access")
    assert compile_block.graph_hash == "4e1c41a342843d5140d618ef8692b5fc"
    assert (compile_block.inputs, compile_block.outputs) == (6, 1)
    assert compile_block.frames == [("main", "/p/train.py", 39), ("<module>", "/p/train.py", 46)]
    assert compile_block.frames_cut and not execute_block.frames_cut
    assert compile_block.computation_hash == "75b2de70ee57fec23e8cdb36e210ae80"
    assert compile_block.sizes_gb["Graph input size"] == 1e-05
    assert execute_block.cause == "user torch_xla.sync"
    assert DEBUG_TEXT[execute_block.offset:].startswith(b"Execution Analysis: ====")
    assert explain.short_path(execute_block.frames[0][1]) == "torch_xla/torch_xla.py"


def test_read_new_blocks_is_incremental_and_skips_a_cut_block(tmp_path: Path) -> None:
    path = tmp_path / "debug.txt"
    cut = DEBUG_TEXT.rindex(b"Execution Analysis: ----")
    path.write_bytes(DEBUG_TEXT[:cut])  # torch_xla is still writing the second block
    blocks, position = read_new_blocks(str(path), 0, final=False)
    assert [b.kind for b in blocks] == ["compile"]
    path.write_bytes(DEBUG_TEXT)
    more, end = read_new_blocks(str(path), position, final=False)
    assert [b.kind for b in more] == ["execute"] and end == len(DEBUG_TEXT)
    assert more[0].offset == parse_debug_log(DEBUG_TEXT)[1].offset
    assert read_new_blocks(str(tmp_path / "missing.txt"), 0, final=True) == ([], 0)


def test_parse_debug_log_ignores_other_output() -> None:
    assert parse_debug_log(b"hello\nExecution Analysis:   stray line\n") == []


# -- shape changes and statement spans --------------------------------------------------
def test_shape_change_names_the_input_and_its_earlier_shapes() -> None:
    earlier = [{"input_ids": [[8, 29], "int64"], "labels": [[8], "int64"]},
               {"input_ids": [[8, 37], "int64"], "labels": [[8], "int64"]}]
    text, batch_only = shape_change({"input_ids": [[8, 41], "int64"],
                                     "labels": [[8], "int64"]}, earlier)
    assert text == "input_ids [8, 41] (before: [8, 37], [8, 29])"
    assert not batch_only
    text, batch_only = shape_change({"input_ids": [[4, 29], "int64"]}, earlier[:1])
    assert text == "input_ids [4, 29] (before: [8, 29])" and batch_only
    text, _ = shape_change({"x": [[2], "float32"]}, [{"x": [[2], "bfloat16"]}])
    assert text == "x float32[2] (before: bfloat16[2])"
    assert shape_change({"input_ids": [[8, 37], "int64"]}, earlier) == (None, False)
    many = [{"x": [[n], "f"]} for n in range(6)]
    assert shape_change({"x": [[9], "f"]}, many)[0] == "x [9] (before: [5], [4], [3], …)"


def test_statement_spans() -> None:
    source = "for x in y:\n    a = f(\n        x,\n    )\n    if a:\n        pass\n"
    spans = statement_spans(source)
    assert spans[1] == (1, 1) and spans[2] == spans[3] == spans[4] == (2, 4)
    assert spans[5] == (5, 5)
    assert statement_spans("def (:\n") == {}


# -- attribution and the join on recorded runs ------------------------------------------
def test_recorded_xla101_recompilations_are_explained_by_the_padding_finding() -> None:
    result = explained("xla101_flagged")
    compiles = [e for e in result.events if e.kind == "compile"]
    assert len(compiles) == 4  # steps = 4, a new padded length each step
    assert compiles[0].role == "warm-up" and compiles[0].shape_change is None
    for event in compiles[1:]:
        assert event.role == "recompile" and event.cause == "user barrier"
        assert event.user_line == 66 and event.explained_by == "XLA101"
        assert event.shape_change.startswith("input_ids [4, ")
        assert event.graph_hash and event.graph_hash != compiles[0].graph_hash
    assert "before: [4, 4], [4, 3]" in compiles[2].shape_change
    (finding,) = result.findings
    assert (finding.code, finding.line, finding.runtime) == ("XLA101", 58, "confirmed")
    assert finding.cost()["recompilations"] == 3
    assert [e.step for e in compiles] == [0, 1, 2, 3]
    assert all(e.role == "step" for e in result.events if e.kind == "execute")


def test_recorded_xla201_host_reads_are_explained_by_line() -> None:
    result = explained("xla201_flagged")
    (finding,) = result.findings
    assert finding.code == "XLA201" and finding.runtime == "confirmed"
    reads = [e for e in result.events if e.explained_by == "XLA201"]
    assert len(reads) == 7  # 1 compilation, 3 executions, 3 transfers at line 39
    assert {e.user_line for e in reads} == {39} and {e.cause for e in reads} == {"host read"}
    assert {e.func for e in reads} == {"item"}
    assert sorted({e.step for e in reads}) == [0, 1, 2]
    barrier = [e for e in result.events if e.cause == "user barrier"]
    assert {e.user_line for e in barrier} == {40} and not any(e.explained_by for e in barrier)
    assert finding.hits == 3
    assert result.unexplained() == []


def test_recorded_xla301_one_graph_for_all_steps() -> None:
    result = explained("xla301_flagged")
    (finding,) = result.findings
    assert finding.code == "XLA301" and finding.runtime == "confirmed"
    compile_event = next(e for e in result.events if e.kind == "compile")
    assert compile_event.spans_forwards == 3 and compile_event.explained_by == "XLA301"
    assert compile_event.step == 0 and result.barriers() == 0


def test_recorded_xla101_fixed_has_nothing_unexplained_after_warm_up() -> None:
    result = explained("xla101_fixed")
    assert result.findings == []
    late = [e for e in result.events if e.kind == "compile" and e.step > 1]
    assert late == []
    assert [g for g in result.unexplained() if not g["once"]] == []


def test_recorded_hf_padding_confirmed_and_library_read_unexplained() -> None:
    result = explained("hf_bert_finetune")
    padding = next(f for f in result.findings if f.code == "XLA101")
    assert padding.runtime == "confirmed"
    recompiles = [e for e in padding.events if e.role == "recompile"]
    assert recompiles and all("input_ids [8, " in e.shape_change for e in recompiles)
    library = [e for e in result.events if e.cause == "read inside a library"]
    assert library and {e.library_frame for e in library} == {"transformers/masking_utils.py:354"}
    assert {e.user_line for e in library} == {74}  # outputs = model(**batch)
    groups = [g for g in result.unexplained() if g["cause"] == "read inside a library"]
    (group,) = groups
    assert group["counts"]["execute"] >= 3 and group["counts"]["transfer"] >= 3
    assert group["text"].startswith(f"{group['counts']['execute']} executions, ")
    assert "transformers/masking_utils.py:354" in group["text"]
    assert "reached from hf_bert_finetune.py:74; read inside a library; no static rule sees this" \
        in group["text"]
    barrier = [e for e in result.events if e.cause == "parallel-loader barrier"]
    assert barrier and all(e.kind in ("compile", "execute") for e in barrier)


# -- the join rules on synthetic events -------------------------------------------------
def _finding(code: str, line: int) -> FindingState:
    return FindingState(code=code, line=line, col=0, message=f"{code} test")


def _event(kind: str = "compile", **fields: Any) -> Event:
    fields.setdefault("step", 1)
    fields.setdefault("cause", "user barrier")
    fields.setdefault("trigger", "barrier")
    return Event(kind=kind, **fields)


def test_join_batch_only_change_prefers_the_ragged_last_batch() -> None:
    findings = [_finding("XLA101", 10), _finding("XLA102", 20)]
    event = _event(role="recompile", shape_change="x [3, 8] (before: [4, 8])", batch_only=True)
    join([event], findings, {10: 1, 20: 1}, {})
    assert event.explained_by == "XLA102" and event.explained_line == 20
    other = _event(role="recompile", shape_change="x [4, 9] (before: [4, 8])")
    join([other], findings, {10: 1, 20: 1}, {})
    assert other.explained_by == "XLA101"


def test_join_runtime_states_and_statement_lines() -> None:
    source = "x = 1\nprint(\n    y.item(),\n)\nz = 2\n"
    spans = statement_spans(source)
    read = _event("transfer", trigger="read", cause="host read", user_line=3)
    findings = [_finding("XLA201", 2), _finding("XLA103", 5), _finding("XLA501", 1)]
    join([read], findings, {1: 1, 2: 4}, spans)
    assert read.explained_by == "XLA201"  # the frame's line 3 is inside the print statement
    assert [f.runtime for f in findings] == ["confirmed", "not-run", "not-triggered"]
    join([], [unknown := _finding("XLA201", 2)], None, spans)
    assert unknown.runtime == "not-run" and unknown.hits is None


def test_join_dynamic_shape_op_explains_the_recompile_of_its_step() -> None:
    findings = [_finding("XLA104", 7)]
    op = _event("execute", trigger="read", cause="host read", user_line=7, step=2)
    recompile = _event(role="recompile", step=2)
    join([op, recompile], findings, {7: 3}, {})
    assert op.explained_by == recompile.explained_by == "XLA104"


def test_join_graph_growth_and_library_reads() -> None:
    grown = _event(role="recompile", grows=True)
    scaler = _event("execute", trigger="read", cause="read inside a library", user_line=40,
                    frames=[["step", f"{FAKE_SITE}/torch/amp/grad_scaler.py", 462]])
    findings = [_finding("XLA301", 5), _finding("XLA402", 30)]
    join([grown, scaler], findings, {5: 1, 30: 1}, {})
    assert grown.explained_by == "XLA301" and scaler.explained_by == "XLA402"


def test_library_frame_skips_the_tensor_machinery() -> None:
    frames = [["__format__", f"{FAKE_SITE}/torch/_tensor.py", 1100],
              ["main", "/p/train.py", 12]]
    assert explain._library_frame(frames)[2] == 12
    frames = [["forward", f"{FAKE_SITE}/transformers/masking_utils.py", 354]] + frames
    assert explain.short_path(explain._library_frame(frames)[1]) == "transformers/masking_utils.py"


# -- the report files -------------------------------------------------------------------
def test_explain_report_files(tmp_path: Path) -> None:
    result = explained("hf_bert_finetune")
    warnings = explain.write_explain(tmp_path, result)
    assert warnings == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(explain.EXPLAIN_FILES)
    assert (tmp_path / "explain.png").read_bytes().startswith(b"\x89PNG")
    document = json.loads((tmp_path / "explain.json").read_text())
    assert document["schema_version"] == 1 and len(document["script_sha256"]) == 64
    for finding in document["findings"]:
        assert {"code", "line", "runtime"} <= set(finding)
    for event in document["events"]:
        assert {"kind", "step", "user_line", "library_frame", "explained_by",
                "shape_change", "cause", "graph_hash"} <= set(event)
    assert {e["kind"] for e in document["events"]} == {"compile", "execute", "transfer"}
    assert document["run"]["step_barriers"] == result.barriers()
    markdown = (tmp_path / "explain.md").read_text()
    for heading in ("## Confirmed at run time", "## Unexplained costs, largest first",
                    "## Findings that cost nothing in this run", "## Per step"):
        assert heading in markdown
    assert "**XLA101** dynamic-padding, hf_bert_finetune.py:66: " in markdown
    assert "transformers/masking_utils.py:354" in markdown


def test_explain_markdown_timeout_hint() -> None:
    document, script = recorded("xla201_flagged")
    run = ScriptRun(script=str(script), outcome="timeout", exit_code=None, wall_s=30.0,
                    probe=document)
    markdown = explain.render_explain_markdown(explain.explain_run(script, run, {}))
    assert "**timeout**" in markdown and "fewer steps (`--steps`)" in markdown


def test_explain_without_probe_data_reports_not_run(tmp_path: Path) -> None:
    script = SCRIPTS["xla201_flagged"]
    run = ScriptRun(script=str(script), outcome="error", exit_code=1, wall_s=1.0, probe=None,
                    traceback_tail=["ImportError: no torch_xla"])
    result = explain.explain_run(script, run, {})
    assert result.events == [] and [f.runtime for f in result.findings] == ["not-run"]
    assert "the probe recorded no explain data" in result.notes[0]
    explain.write_explain(tmp_path, result)
    assert "ImportError: no torch_xla" in (tmp_path / "explain.md").read_text()


def test_explain_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert pv_cli.main(["explain", str(tmp_path / "missing.py")]) == 2
    assert "no such script" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        pv_cli.main(["explain", "--help"])
    assert exc.value.code == 0
    assert "read inside a library" in capsys.readouterr().out


# -- flake8-xla --runtime ---------------------------------------------------------------
def _explain_json(tmp_path: Path, name: str) -> Path:
    explain.write_explain(tmp_path, explained(name))
    return tmp_path / "explain.json"


def _flake8_xla(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``flake8-xla ARGS`` in-process, from the project root (the tests chdir there)."""
    status = flake8_xla_cli.main(["--isolated", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_runtime_marks_confirmed_findings_in_text_and_sarif(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    evidence = _explain_json(tmp_path, "xla101_flagged")
    status, text, _ = _flake8_xla(capsys, "--runtime", str(evidence), "checks/XLA101/flagged.py",
                                  "checks/XLA201/flagged.py")
    assert status == 1
    lines = text.splitlines()
    padding = next(line for line in lines if "XLA101" in line)
    assert padding.endswith("[confirmed at run time: 3 recompilations, steps 1-3]")
    assert runtime.CONFIRMED_TEXT not in next(line for line in lines if "XLA201" in line)
    status, sarif, _ = _flake8_xla(capsys, "--runtime", str(evidence), "--format", "sarif",
                                   "checks/XLA101/flagged.py")
    (result,) = json.loads(sarif)["runs"][0]["results"]
    assert result["properties"]["runtime"]["state"] == "confirmed"
    assert result["properties"]["runtime"]["compilations"] == 3
    assert result["message"]["text"].endswith("steps 1-3]")
    status, document, _ = _flake8_xla(capsys, "--runtime", str(evidence), "--format", "json",
                                      "checks/XLA101/flagged.py")
    assert json.loads(document)[0]["runtime"]["state"] == "confirmed"


def test_runtime_file_errors_and_stale_scripts(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    status, _, err = _flake8_xla(capsys, "--runtime", str(tmp_path / "none.json"),
                                 "checks/XLA101/flagged.py")
    assert status == 2 and "no such file" in err
    (tmp_path / "bad.json").write_text("[1, 2]")
    status, _, err = _flake8_xla(capsys, "--runtime", str(tmp_path / "bad.json"),
                                 "checks/XLA101/flagged.py")
    assert status == 2 and "is not an explain.json" in err
    evidence = json.loads(_explain_json(tmp_path, "xla101_flagged").read_text())
    evidence["script_sha256"] = "0" * 64  # the script changed since
    (tmp_path / "old.json").write_text(json.dumps(evidence))
    status, text, err = _flake8_xla(capsys, "--runtime", str(tmp_path / "old.json"),
                                    "checks/XLA101/flagged.py")
    assert status == 1 and runtime.CONFIRMED_TEXT not in text and "changed since" in err


def test_mark_results_appends_once() -> None:
    evidence = runtime.RuntimeEvidence()
    key = (os.path.realpath("a.py"), 3, "XLA201")
    evidence.states[key] = {"runtime": "confirmed", "cost": {"compilations": 1,
                                                              "executions": 8, "steps": [0]}}
    results = [("a.py", [("XLA201", 3, 1, "host sync", "x"), ("XLA101", 4, 1, "pad", "y")], {})]
    assert runtime.mark_results(results, evidence) == 1
    assert runtime.mark_results(results, evidence) == 0
    texts = [r[3] for r in results[0][1]]
    assert texts == ["host sync [confirmed at run time: 1 compilation, 8 executions, step 0]",
                     "pad"]


# -- the pair report --------------------------------------------------------------------
def _run(outcome: str = "ok", read: bool | None = True, **probe_fields: Any) -> ScriptRun:
    document = {"status": "ok" if outcome == "ok" else "running", "counters": {"MarkStep": 3},
                "metrics": {}, "steps": [], "step_barriers": 3, "fallback_ops": [],
                "read_xla_check_steps": read, **probe_fields}
    return ScriptRun(script="s.py", outcome=outcome, exit_code=0 if outcome == "ok" else None,
                     wall_s=3.0, probe=document)


def _pair(runs: dict[str, ScriptRun], steps: int | None = 8) -> Any:
    from perf_validation.cases import Case

    case = Case(name="pair", flagged=Path("f.py"), fixed=Path("x.py"))
    return evaluate_pair(case, runs, steps, 60)


def test_pair_report_steps_line_and_no_claims() -> None:
    result = _pair({"flagged": _run(read=False), "fixed": _run()})
    assert report._steps_line(result) == (
        "- steps: XLA_CHECK_STEPS=8 was set, but the flagged script never read it (own step "
        "count; see the step barriers)")
    both = _pair({"flagged": _run(), "fixed": _run()})
    assert report._steps_line(both) == "- steps: 8 (XLA_CHECK_STEPS, read by both scripts)"
    markdown = report.render_markdown([both], 0, {})
    assert "no claims (every script ran)" in markdown and "every claim holds" not in markdown
    assert "3 step barriers" in markdown
    assert report.render_png([both]).startswith(b"\x89PNG")


def test_pair_report_timeout_keeps_figures_and_hints() -> None:
    timed_out = _run("timeout", counters={"MarkStep": 2, "UncachedCompile": 2},
                     steps=[{"step": 1, "UncachedCompile": 1}, {"step": 2, "UncachedCompile": 2}])
    result = _pair({"flagged": timed_out, "fixed": _run()})
    assert result.status == "timeout"
    markdown = report.render_markdown([result], 2, {})
    assert "The flagged script timed out: it was stopped after 60 s" in markdown
    assert "Give --steps 4, or more time with --timeout 120" in markdown
    assert "figures saved at the last barrier" in markdown
    assert "| graph compilations (UncachedCompile) | 2 |" in markdown
    assert report.per_step(timed_out, "UncachedCompile") == (["1", "2"], [1, 1])


def test_per_step_without_barriers_is_one_exit_bucket() -> None:
    run = _run(counters={"UncachedCompile": 1}, steps=[], step_barriers=0)
    assert report.per_step(run, "UncachedCompile") == (["exit"], [1])


def test_probe_watches_reads_of_the_step_variable(tmp_path: Path) -> None:
    state = probe.Probe("s.py", str(tmp_path / "o.json"))
    original = type(os.environ)
    try:
        state.watch_steps_variable()
        os.environ.get("HOME")
        assert not state.read_steps_variable
        os.environ.get("XLA_CHECK_STEPS", "8")
        assert state.read_steps_variable
    finally:
        os.environ.__class__ = original


# -- end to end, under torch_xla --------------------------------------------------------
def run_explain(script: Path, out: Path, *args: str, timeout: float = 400
                ) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, "-m", "perf_validation", "explain", str(script),
                           "--out", str(out), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def _explain_document(out: Path) -> dict[str, Any]:
    assert sorted(p.name for p in out.iterdir()) == sorted(explain.EXPLAIN_FILES)
    return json.loads((out / "explain.json").read_text())


@pytest.mark.xla
@needs_torch_xla
def test_xla_explain_xla101_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    proc = run_explain(SCRIPTS["xla101_flagged"], tmp_path, "--steps", "8")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = _explain_document(tmp_path)
    compiles = [e for e in document["events"] if e["kind"] == "compile"]
    assert len(compiles) >= 7
    explained_changes = [e for e in compiles if e["user_line"] and e["shape_change"]
                         and e["explained_by"] == "XLA101"]
    assert len(explained_changes) >= 6
    assert {(f["code"], f["runtime"]) for f in document["findings"]} == {("XLA101", "confirmed")}
    assert "confirmed  XLA101 flagged.py:58" in proc.stdout
    monkeypatch.chdir(ROOT)
    status, text, _ = _flake8_xla(capsys, "--runtime", str(tmp_path / "explain.json"),
                                  "checks/XLA101/flagged.py")
    assert status == 1 and "[confirmed at run time: 7 recompilations" in text


@pytest.mark.xla
@needs_torch_xla
def test_xla_explain_xla201_flagged(tmp_path: Path) -> None:
    proc = run_explain(SCRIPTS["xla201_flagged"], tmp_path, "--steps", "8")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = _explain_document(tmp_path)
    (finding,) = document["findings"]
    assert finding["code"] == "XLA201" and finding["runtime"] == "confirmed"
    explained_events = [e for e in document["events"] if e["explained_by"] == "XLA201"]
    assert len(explained_events) >= 7
    assert {e["kind"] for e in explained_events} == {"compile", "execute", "transfer"}


@pytest.mark.xla
@needs_torch_xla
def test_xla_explain_xla101_fixed(tmp_path: Path) -> None:
    proc = run_explain(SCRIPTS["xla101_fixed"], tmp_path, "--steps", "8")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = _explain_document(tmp_path)
    late = [e for e in document["events"] if e["kind"] == "compile" and e["step"] > 1
            and e["explained_by"] is None]
    assert late == []
    assert document["run"]["step_barriers"] == 8


@pytest.mark.xla
@needs_torch_xla
def test_xla_explain_hf_bert_finetune(tmp_path: Path) -> None:
    proc = run_explain(SCRIPTS["hf_bert_finetune"], tmp_path, "--steps", "4")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = _explain_document(tmp_path)
    padding = next(f for f in document["findings"] if f["code"] == "XLA101")
    assert padding["runtime"] == "confirmed" and padding["cost"]["recompilations"] >= 3
    library = [g for g in document["unexplained"] if g["cause"] == "read inside a library"]
    assert library and library[0]["library_frame"] == "transformers/masking_utils.py:354"
    assert "no static rule sees this" in proc.stdout
    assert "transformers/masking_utils.py:354" in (tmp_path / "explain.md").read_text()


@pytest.mark.xla
@needs_torch_xla
def test_xla_pair_timeout_keeps_partial_figures(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    out = tmp_path / "report"
    proc = subprocess.run([sys.executable, "-m", "perf_validation",
                           str(FIXTURES / "slow_steps.py"), str(FIXTURES / "recompile_fixed.py"),
                           "--steps", "3", "--timeout", "20", "--out", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "or more time with --timeout 40" in proc.stdout
    pair = json.loads((out / "report.json").read_text())["pairs"][0]
    assert pair["status"] == "timeout" and pair["flagged"]["outcome"] == "timeout"
    assert pair["figures"]["flagged"]["UncachedCompile"] == 3  # saved at the last barrier
    assert pair["flagged"]["probe"]["status"] == "running"
