"""Eval file for XLA501: a branch that imports a CUDA-only package is not the XLA path.

``if trt_file is not None: from torch2trt import TRTModule; ... x.cuda()``: TensorRT
(and PyCUDA, CuPy, DALI) cannot be installed on an XLA host, so that branch never
runs there. A ``.cuda()`` outside such a branch is reported.
"""
import torch
import torch_xla


def evaluate(model, loader, trt_file=None):
    device = torch_xla.device()
    if trt_file is not None:
        from torch2trt import TRTModule

        model_trt = TRTModule()
        model_trt.load_state_dict(torch.load(trt_file))
        model(torch.ones(1, 3, 224, 224).cuda())
        model = model_trt
    outs = []
    for x in loader:
        outs.append(model(x.to(device)))
        torch_xla.sync()
    warm = torch.zeros(1).cuda()  # error: XLA501
    return outs, warm
