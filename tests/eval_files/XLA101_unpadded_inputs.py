"""Eval file for XLA101: inputs tokenized one by one in the step loop, without padding."""
import torch
import torch_xla
from transformers import AutoModelForSequenceClassification, AutoTokenizer

MAX_LEN = 128


def left_pad(ids, pad_id):
    filler = torch.full((1, MAX_LEN - ids.shape[1]), pad_id, dtype=ids.dtype,
                        device=ids.device)
    return torch.cat([filler, ids], dim=1)


def evaluate(texts):
    device = torch_xla.device()
    tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to(device)
    preds = []
    for text in texts:
        inputs = tokenizer(text, return_tensors="pt").to(device)  # error: XLA101
        preds.append(model(**inputs).logits.argmax(-1))
        torch_xla.sync()
    # Traps: padded to a fixed length; padded again before the forward pass; tokenized
    # once, before the loop.
    for text in texts:
        inputs = tokenizer(text, padding="max_length", max_length=MAX_LEN, truncation=True,
                           return_tensors="pt").to(device)
        preds.append(model(**inputs).logits.argmax(-1))
        torch_xla.sync()
    for text in texts:
        ids = tokenizer(text, return_tensors="pt")["input_ids"].to(device)
        preds.append(model(input_ids=left_pad(ids, tokenizer.pad_token_id)).logits.argmax(-1))
        torch_xla.sync()
    batch = tokenizer(texts[0], return_tensors="pt").to(device)
    for _ in range(3):
        preds.append(model(**batch).logits.argmax(-1))
        torch_xla.sync()
    return preds


def score(texts, references, metric):
    device = torch_xla.device()
    tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to(device)
    for text, reference in zip(texts, references):
        inputs = tokenizer(text, return_tensors="pt")  # error: XLA101
        inputs = {k: v.to(device) for k, v in inputs.items()}
        pred = model(**inputs).logits.argmax(-1)
        torch_xla.sync()
        # Trap: a reference tokenized for the metric stays on the host.
        target = tokenizer(reference, return_tensors="pt")["input_ids"]
        metric.add(pred, target)


def generate(prompts, chats, cfg):
    device = torch_xla.device()
    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    model = AutoModelForSequenceClassification.from_pretrained("gpt2").to(device)
    scorer = AutoModelForSequenceClassification.from_pretrained("gpt2")  # stays on the CPU
    outs = []
    for prompt, chat in zip(prompts, chats):
        a = tokenizer(prompt, padding=False, return_tensors="pt").to(device)  # error: XLA101
        b = tokenizer(prompt, pad_to_multiple_of=64, return_tensors="pt").to(device)  # error: XLA101
        c = tokenizer.apply_chat_template(chat, return_tensors="pt").to(device)  # error: XLA101
        out = model(**a).logits + model(**b).logits + model(input_ids=c).logits
        # The generated output padded for a gather is not the prompt padded.
        outs.append(torch.nn.functional.pad(out, (0, 8)))
        torch_xla.sync()
        # Traps: padded again with a tensor method's filler; tokens for a CPU scorer.
        ids = tokenizer(prompt, return_tensors="pt")["input_ids"].to(device)
        ids = torch.cat([ids.new_full((1, MAX_LEN - ids.shape[1]), 0), ids], dim=1)
        outs.append(model(input_ids=ids).logits)
        torch_xla.sync()
        cpu_inputs = tokenizer(prompt, return_tensors="pt").to("cpu")
        outs.append(scorer(**cpu_inputs).logits)
    return outs
