"""Eval file for XLA101: one example per ``__getitem__`` tokenized with
``padding="longest"`` and no collate function of the module padding it again to a fixed
length: each batch (here one example) has its own length, a new graph per length."""
import torch_xla
from torch.utils.data import DataLoader, Dataset
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")


class Prompts(Dataset):
    def __init__(self, texts):
        self.texts = texts

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        enc = tokenizer(self.texts[i], padding="longest", truncation=True,  # error: XLA101
                        max_length=512, return_tensors="pt")
        return {k: v[0] for k, v in enc.items()}


def finetune(model, texts, optimizer):
    device = torch_xla.device()
    for batch in DataLoader(Prompts(texts), batch_size=1, drop_last=True):
        loss = model(**{k: v.to(device) for k, v in batch.items()}).loss
        loss.backward()
        optimizer.step()
        torch_xla.sync()
