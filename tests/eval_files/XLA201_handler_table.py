"""Eval file for XLA201: a reporter dispatches each step's metrics through a table of its
own bound methods (``self.handlers[name](step, metrics)``); the handlers that format or
read the lazy values are host syncs in the step, one that only counts steps is not."""
import json

import torch
import torch_xla
import torch_xla.core.xla_model as xm


class Reporter:
    def __init__(self, backends):
        self.backends = backends
        self.handlers = {"stdout": self._to_stdout, "jsonl": self._to_jsonl,
                         "count": self._count}
        self.fh = open("metrics.jsonl", "a")
        self.seen = 0

    def report(self, step, metrics):
        for name in self.backends:
            self.handlers[name](step, metrics)

    def _to_stdout(self, step, metrics):
        print(step, " ".join(f"{k}={v:.4f}" for k, v in metrics.items()))  # error: XLA201

    def _to_jsonl(self, step, metrics):
        row = {k: v.item() for k, v in metrics.items()}  # error: XLA201
        self.fh.write(json.dumps({"step": step, **row}) + "\n")

    def _count(self, step, metrics):
        self.seen = step + len(metrics)


def train(model, loader, opt):
    device = torch_xla.device()
    reporter = Reporter(("stdout", "jsonl", "count"))
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
        reporter.report(step, {"loss": loss})
