"""Eval file for XLA201: a neuronx-distributed pipeline model built with
``return_loss_on_cpu=False`` returns the loss on the XLA device, a lazy tensor that a
read in the step executes."""
import neuronx_distributed as nxd
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def train(loader, get_model, args, optimizer):
    config = nxd.neuronx_distributed_config(
        tensor_parallel_size=8, pipeline_parallel_size=4,
        pipeline_config={"num_microbatches": 8, "return_loss_on_cpu": False})
    model = nxd.initialize_parallel_model(config, get_model, args)
    model.train()
    device = torch_xla.device()
    for batch in pl.MpDeviceLoader(loader, device):
        loss = model.run_train(input_ids=batch["input_ids"], labels=batch["labels"])
        optimizer.step()
        print(f"loss {loss.detach().item():.4f}")  # error: XLA201
