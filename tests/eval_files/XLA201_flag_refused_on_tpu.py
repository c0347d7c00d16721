"""Eval file for XLA201: a flag that the script refuses on the TPU.

``if use_tpu: ... if args.mlperf_logging: raise NotImplementedError(...)``: every run
on the TPU that goes on has the flag off, so the copies under ``if args.mlperf_logging:``
in the evaluation loop never run there; the copy outside that branch is reported.
"""
import argparse

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--use-tpu", action="store_true")
    parser.add_argument("--mlperf-logging", action="store_true")
    args = parser.parse_args()
    use_tpu = args.use_tpu
    device = torch.device("cpu")
    if use_tpu:
        import torch_xla

        device = torch_xla.device()
        if args.mlperf_logging:
            raise NotImplementedError("This codepath is not tested.")
    model = torch.nn.Linear(8, 1).to(device)
    scores, seen = [], []
    for x, t in [(torch.randn(4, 8), torch.randn(4, 1))] * 10:
        z = model(x.to(device))
        if args.mlperf_logging:
            scores.append(z.detach().cpu().numpy())
        seen.append(z.detach().cpu())  # error: XLA201
        if use_tpu:
            torch_xla.sync()
    return scores, seen


if __name__ == "__main__":
    main()
