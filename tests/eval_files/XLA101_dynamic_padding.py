"""Eval file for XLA101 (dynamic padding). Lines marked `# error: CODE` must be reported."""
import torch_xla
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader
from transformers import (
    AutoTokenizer,
    DataCollatorForSeq2Seq,
    DataCollatorForTokenClassification,
    DataCollatorWithPadding as DCWP,
)
from transformers.utils import PaddingStrategy

device = torch_xla.device()


def encode(tokenizer, texts, use_tpu, args):
    a = tokenizer(texts, padding=True, return_tensors="pt")  # error: XLA101
    b = tokenizer(texts, padding="longest", max_length=128)  # error: XLA101
    c = tokenizer.batch_encode_plus(texts, padding=PaddingStrategy.LONGEST)  # error: XLA101
    d = tokenizer.pad(texts, padding="longest")  # error: XLA101
    e = tokenizer.encode_plus(texts[0], padding=True)  # error: XLA101
    # pad()'s default padding=True pads to the longest: max_length= alone is ignored
    tok = AutoTokenizer.from_pretrained("bert-base-uncased")
    e2 = tok.pad(texts, max_length=128, return_tensors="pt")  # error: XLA101
    # Traps: static or absent padding.
    f = tokenizer(texts, padding="max_length", max_length=128, truncation=True)
    g = tokenizer(texts, padding=False)
    h = tokenizer(texts, truncation=True)
    # The XLA branch picks a static strategy.
    strategy = "max_length" if use_tpu else "longest"
    i = tokenizer(texts, padding=strategy, max_length=64)
    j = tokenizer(texts, padding="max_length" if args.pad_to_max_length else False)
    # No XLA branch: the default path pads dynamically.
    mode = "max_length" if args.pad_to_max_length else "longest"
    k = tokenizer(texts, padding=mode)  # error: XLA101
    return a, b, c, d, e, e2, f, g, h, i, j, k


def collators(tokenizer, model, fp16):
    c1 = DCWP(tokenizer)  # error: XLA101
    c2 = DataCollatorForSeq2Seq(tokenizer, model=model)  # error: XLA101
    c3 = DataCollatorForTokenClassification(tokenizer, pad_to_multiple_of=8 if fp16 else None)  # error: XLA101
    # Traps: bounded shapes.
    c4 = DCWP(tokenizer, padding="max_length", max_length=128)
    c5 = DCWP(tokenizer, pad_to_multiple_of=64)
    c6 = DataCollatorForSeq2Seq(tokenizer, model=model, padding="max_length", max_length=256)
    return c1, c2, c3, c4, c5, c6


def collate_batch(samples):
    return pad_sequence(samples, batch_first=True)  # error: XLA101


def build_loader(dataset):
    def my_fn(samples):
        return pad_sequence(samples, batch_first=True)  # error: XLA101

    return DataLoader(dataset, batch_size=8, collate_fn=my_fn)


def merge_samples(samples):
    # pad_sequence outside a collate function: not reported.
    return pad_sequence(samples)


class Conv:
    def layer(self, torch):
        # padding= of a convolution is not tokenizer padding.
        return torch.nn.Conv2d(3, 8, 3, padding=True)


class Predictor:
    def __init__(self, name):
        self.tokenizer = AutoTokenizer.from_pretrained(name)
        self.window = 16

    def encode(self, texts):
        # The attribute is the tokenizer (not a method of it).
        dynamic = self.tokenizer(texts, padding=True, return_tensors="pt")  # error: XLA101
        fixed = self.tokenizer(texts, padding="max_length", max_length=64, return_tensors="pt")
        return dynamic, fixed
