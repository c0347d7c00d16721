"""Eval file for XLA103: data-dependent stops in evaluation and decoding loops."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from transformers import AutoModelForSeq2SeqLM

device = torch_xla.device()


def greedy_decode(model, prompt, max_len, eos_id):
    tokens = prompt.to(device)
    for step in range(max_len):
        logits = model(tokens)
        next_tok = logits[:, -1].argmax(-1)
        tokens = torch.cat([tokens, next_tok[:, None]], dim=1)
        if (next_tok == eos_id).all():  # error: XLA103
            break
        # Trap: the loop's own counter.
        if step == max_len - 1:
            print("reached max_len")
    return tokens


def evaluate(model, loader, tokenizer):
    model.eval()
    for batch in pl.MpDeviceLoader(loader, device):
        out = model.generate(batch["input_ids"], max_new_tokens=32)  # error: XLA103
        done = out[:, -1] == tokenizer.eos_token_id
        while not done.all():  # error: XLA103
            out = model(out)
            done = out[:, -1] == tokenizer.eos_token_id
    # Trap: once, after the loop, on the host.
    text = tokenizer.batch_decode(out.cpu().tolist())
    return text


def stop_finished(model, prompt, eos_id, lengths):
    tokens = prompt.to(device)
    for _ in range(16):
        tokens = model(tokens)
        torch_xla.sync()
        hits = (tokens[:, -1] == eos_id).nonzero(as_tuple=True)[0]  # error: XLA104
        for row in hits:  # error: XLA103
            lengths[row] = 0
        # Trap: a tuple of static-shaped pieces.
        for piece in torch.split(tokens, 1, dim=0):
            model(piece)


def translate(batch):
    model = AutoModelForSeq2SeqLM.from_pretrained("m").to(device)
    # generate() of a model on the XLA device decodes token by token, even once.
    return model.generate(**batch)  # error: XLA103


def summarize(batch):
    # A model class imported from its own transformers submodule is a module too.
    from transformers.models.bart import BartForConditionalGeneration
    model = BartForConditionalGeneration.from_pretrained("m")
    model = model.to(device)
    return model.generate(batch.to(device), num_beams=5)  # error: XLA103


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4)
        self.head = torch.nn.Linear(4, 10)

    def answer(self, ids, greedy=True, max_new_tokens=8, eos_id=1):
        if greedy:
            return self._greedy(ids, max_new_tokens, eos_id)
        return ids

    def _greedy(self, ids, max_new_tokens, eos_id):
        tok = ids
        for _ in range(max_new_tokens):
            tok = self.head(self.emb(tok)).argmax(dim=-1)
            if (tok == eos_id).all():  # error: XLA103
                break
        return tok


def evaluate_answers(questions):
    model = Decoder().to(device)
    for q in questions:
        out = model.answer(torch.tensor(q, device=device))
        torch_xla.sync()
        yield out


class FixedDecoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4)
        self.head = torch.nn.Linear(4, 10)

    def generate(self, ids, max_new_tokens=8):
        out = torch.zeros(ids.shape[0], max_new_tokens, dtype=torch.long, device=ids.device)
        tok = ids[:, -1]
        for i in range(max_new_tokens):
            tok = self.head(self.emb(tok)).argmax(dim=-1)
            out[:, i] = tok
        return out


def evaluate_fixed(questions):
    model = FixedDecoder().to(device)
    for q in questions:
        out = model.generate(torch.tensor(q, device=device))  # trap: its own fixed-length decode
        torch_xla.sync()
        yield out
