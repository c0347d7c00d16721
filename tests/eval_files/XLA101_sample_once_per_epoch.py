"""Eval file for XLA101: an epoch loop that calls the method holding the loop over the
data, then a method that tokenizes one fixed prompt for a sample, runs that tokenization
once per epoch: the epoch loop is not a step loop. The per-batch tokenization inside the
data loop is reported."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer


class LMTrainer:
    def __init__(self, model, tokenizer, optimizer, texts, device):
        self.model = model
        self.tokenizer = tokenizer
        self.optimizer = optimizer
        self.texts = texts
        self.device = device

    def train_epoch(self):
        self.model.train()
        for texts in DataLoader(self.texts, batch_size=8, drop_last=True):  # error: XLA302
            batch = self.tokenizer(texts, padding=True,  # error: XLA101
                                   return_tensors="pt").to(self.device)
            loss = self.model(**batch, labels=batch["input_ids"]).loss
            loss.backward()
            xm.optimizer_step(self.optimizer, barrier=True)
            self.optimizer.zero_grad()

    @torch.no_grad()
    def sample(self, prompt):
        enc = self.tokenizer(prompt, return_tensors="pt")
        logits = self.model(**enc.to(self.device)).logits
        return logits.argmax(-1).cpu()


def main(texts):
    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    model = AutoModelForCausalLM.from_pretrained("gpt2").to(torch_xla.device())
    optimizer = torch.optim.AdamW(model.parameters())
    trainer = LMTrainer(model, tokenizer, optimizer, texts, torch_xla.device())
    for epoch in range(4):
        trainer.train_epoch()
        print("sample:", trainer.sample("The meaning of life is"))
