"""Eval file for XLA201: neuronx-distributed's pipeline-parallel model returns the loss of
``run_train``/``run_eval`` on the CPU (``NxDPPModel(return_loss_on_cpu=True)``, the
default), so reading it in the step copies a host tensor; the batches of the XLA loader
stay lazy."""
import neuronx_distributed as nxd
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def train(loader, get_model, args, optimizer):
    config = nxd.neuronx_distributed_config(tensor_parallel_size=8, pipeline_parallel_size=4,
                                            pipeline_config={"num_microbatches": 8})
    model = nxd.initialize_parallel_model(config, get_model, args)
    model.train()
    device = torch_xla.device()
    for batch in pl.MpDeviceLoader(loader, device):
        loss = model.run_train(input_ids=batch["input_ids"], labels=batch["labels"])
        optimizer.step()
        print(f"loss {loss.detach().item():.4f}")  # trap
        tokens = batch["labels"].ne(-100).sum().item()  # error: XLA201
        print(tokens)


def evaluate(loader, model):
    device = torch_xla.device()
    total = 0.0
    for batch in pl.MpDeviceLoader(loader, device):
        total += model.run_eval(input_ids=batch["input_ids"], labels=batch["labels"]).item()  # trap
    return total
