"""Eval file for XLA503: a save after an assertion that the run is not on XLA.

``assert not use_tpu, "use xm.save on TPU"`` stops the XLA run before the
``torch.save`` that follows it in the same block; without the assertion the save
pickles the XLA tensors.
"""
import torch
import torch_xla


def main(args, model):
    use_tpu = args.use_tpu
    device = torch_xla.device() if use_tpu else torch.device("cpu")
    model = model.to(device)
    if args.save_model:
        assert not use_tpu, "Saving the model on TPU should use xm.save"
        torch.save({"state_dict": model.state_dict()}, args.save_model)
    if args.export:
        torch.save(model.state_dict(), args.export)  # error: XLA503
