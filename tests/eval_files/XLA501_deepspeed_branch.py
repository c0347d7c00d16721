"""Eval file for XLA501: a branch taken only under DeepSpeed (``if trainer.deepspeed:``,
``args.use_deepspeed``) is a GPU path: DeepSpeed runs on CUDA, ROCm, XPU, HPU and NPU
devices, never on an XLA device."""
import torch
import torch_xla


def save(trainer, output_dir):
    if trainer.deepspeed:
        torch.cuda.synchronize()  # trap: DeepSpeed only
        trainer.save_model(output_dir)
        return
    torch.cuda.synchronize()  # error: XLA501


def device_for(args):
    if not args.use_deepspeed:
        return torch_xla.device()
    return torch.device("cuda")  # trap: DeepSpeed only
