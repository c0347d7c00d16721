"""Eval file for XLA610 (debug metrics and profiler)."""
# flake8-xla: --xla-migrate=torchtpu
import torch
import torch_xla.debug.metrics as met  # error: XLA600
import torch_xla.debug.profiler as xp  # error: XLA600


def report():
    server = xp.start_server(9012)  # error: XLA610
    print(met.short_metrics_report())  # error: XLA610
    compiles = met.metric_data("CompileTime")  # error: XLA610
    # Trap: torch.profiler is the counterpart.
    with torch.profiler.profile() as prof:
        pass
    return server, compiles, prof
