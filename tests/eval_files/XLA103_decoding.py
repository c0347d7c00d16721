"""Eval file for XLA103: data-dependent stops in evaluation and decoding loops."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl

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
