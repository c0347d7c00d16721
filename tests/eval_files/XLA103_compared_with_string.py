"""Eval file for XLA103: a batch field compared with a string constant is a string (the
default collate keeps a dataset's text fields as a list of str), never a lazy tensor,
whatever the loader moved to the device; a tensor field compared with a number is."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def evaluate(model, loader, tokenizer):
    device = torch_xla.device()
    model.eval()
    outputs = []
    with torch.no_grad():
        for batch in pl.MpDeviceLoader(loader, device):
            logits = model(batch["input_ids"], batch["attention_mask"])
            for i in range(len(batch["tweet"])):
                if batch["sentiment"][i] == "neutral" or "positive" != batch["sentiment"][i]:
                    outputs.append(batch["tweet"][i])
                    continue
                if batch["label"][i] == 1:  # error: XLA103
                    outputs.append(logits[i])
    return outputs
