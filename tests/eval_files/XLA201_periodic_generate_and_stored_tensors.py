"""Eval file for XLA201: a branch taken every N steps that generates a sample with
``model.generate()`` reads its result once per generation; a tensor stored on the model
(``model.lm_head.weight``) copied out right after an explicit barrier runs no graph; a
``.item()`` of the step's loss there is still reported (a blocking read). The generation
itself stays XLA103's: its stopping test reads the device once per token."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from transformers import AutoModelForCausalLM, AutoTokenizer


def train(name, loader, sample_every, log_every, writer):
    device = torch_xla.device()
    tokenizer = AutoTokenizer.from_pretrained(name)
    model = AutoModelForCausalLM.from_pretrained(name).to(device)
    optimizer = torch.optim.AdamW(model.parameters())
    prompt = tokenizer("Once upon a time", return_tensors="pt").to(device)
    for step, batch in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = model(**batch).loss
        loss.backward()
        xm.optimizer_step(optimizer)
        optimizer.zero_grad()
        if step % sample_every == 0:
            with torch.no_grad():
                out = model.generate(**prompt, max_new_tokens=32, do_sample=False)  # error: XLA103
            print(tokenizer.decode(out[0], skip_special_tokens=True))
        if step % log_every == 0:
            torch_xla.sync()
            writer.add_histogram("lm_head", model.lm_head.weight.detach().cpu(), step)
            print(f"loss {loss.item():.4f}")  # error: XLA201




def evaluate(name, loader, predict_with_generate):
    # A branch of an evaluation loop that generates for every batch: per step (XLA103).
    from accelerate import Accelerator

    accelerator = Accelerator()
    model, loader = accelerator.prepare(AutoModelForCausalLM.from_pretrained(name), loader)
    preds = []
    for batch in loader:
        with torch.no_grad():
            loss = model(**batch).loss
            if predict_with_generate:
                tokens = accelerator.unwrap_model(model).generate(  # error: XLA103
                    batch["input_ids"], max_length=64)
                preds.append(tokens)
    return preds, loss


class Prober:
    def fit(self, model, optimizer, batches):
        device = torch_xla.device()
        for x in batches:
            model(x.to(device)).sum().backward()
            optimizer.step()
            torch_xla.sync()
            # (written after the barrier: a new value, which the read computes)
            self.stats = model(x.to(device)).mean(0)
            print(self.stats.cpu())  # error: XLA201
