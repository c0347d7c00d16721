"""Eval file for XLA201: decoding token ids of the XLA device in the training step."""
import torch
import torch_xla

device = torch_xla.device()


class Trainer:
    def __init__(self, model, tokenizer, vae):
        self.model = model
        self.tokenizer = tokenizer
        self.vae = vae

    def train(self, loader, optimizer):
        for step, batch in enumerate(loader):
            ids = batch["input_ids"].to(device)
            out = self.model(ids)
            out.loss.backward()
            optimizer.step()
            torch_xla.sync()
            if step % 50 == 0:
                print(self.tokenizer.decode(ids[0]))  # error: XLA201
                preds = out.logits.argmax(-1)
                print(self.tokenizer.batch_decode(preds))  # error: XLA201
                # Trap: a VAE's decode computes on the device, it reads nothing back.
                image = self.vae.decode(out.logits)
                print(image.shape)

    def sample(self, prompts, generate):
        # Trap: decoding what each generation produced is the sampling loop's purpose.
        for prompt in prompts:
            y = generate(self.model, prompt.to(device))
            print(self.tokenizer.decode(y))


def greedy(model, tokenizer, prompt_ids, max_new_tokens=64):
    ids = prompt_ids.to(device)
    with torch.no_grad():
        for _ in range(max_new_tokens):
            # every new token reads all the tokens so far back to the host
            print(tokenizer.decode(ids[0]))  # error: XLA201
            logits = model(ids)
            ids = torch.cat([ids, logits[:, -1:].argmax(-1)], dim=-1)
    return ids


def answer_all(model, tokenizer, prompts, generate):
    # Trap: one decode per prompt, after its generation, in a loop over the prompts.
    for i in range(len(prompts)):
        ids = generate(model, prompts[i].to(device))
        print(tokenizer.decode(ids[0]))


def stream(model, tokenizer, prompt_ids, max_new_tokens=64):
    ids = prompt_ids.to(device)
    for _ in range(max_new_tokens):
        nxt = model(ids)[:, -1:].argmax(-1)
        ids = torch.cat([ids, nxt], dim=1)
        print(tokenizer.decode(nxt[0]), end="")  # error: XLA201
        print(tokenizer.decode(ids[0]))  # error: XLA201
    return ids


STOP = ("\nUser:", "</s>")


def chat(model, tokenizer, prompt_ids, max_new_tokens=64):
    ids = prompt_ids.to(device)
    out = model(ids)
    generated = []
    for _ in range(max_new_tokens):
        nxt = out[:, -1:].argmax(-1)
        generated.append(nxt)
        # the tokens collected so far, read back for a stop string every new token
        text = tokenizer.decode(torch.cat(generated, dim=-1)[0])  # error: XLA201
        if any(s in text for s in STOP):
            break
        out = model(nxt)
        torch_xla.sync()
    return tokenizer.decode(torch.cat(generated, dim=-1)[0])


def sample_many(model, tokenizer, prompt_ids, num_samples=4, max_new_tokens=32):
    ids = prompt_ids.to(device)
    out = model(ids)
    for _ in range(num_samples):
        generated = []
        logits = out[:, -1]
        for _ in range(max_new_tokens):
            nxt = torch.multinomial(logits.softmax(-1), 1)
            generated.append(nxt)
            logits = model(nxt)[:, -1]
            torch_xla.sync()
        # Trap: once per finished sample, the inner loop's result.
        print(tokenizer.decode(torch.cat(generated, dim=-1)[0]))
        out = model(ids)


def stream_proposals(model, tokenizer, prompt_ids, steps=16, k=4):
    ids = prompt_ids.to(device)
    tokens = []  # one list for the whole generation
    for _ in range(steps):
        logits = model(ids)[:, -k:]
        for i in range(k):
            nxt = logits[:, i].argmax(-1, keepdim=True)
            tokens.append(nxt)
            ids = torch.cat([ids, nxt], dim=1)
        torch_xla.sync()
        print(tokenizer.decode(torch.cat(tokens, dim=-1)[0]))  # error: XLA201
    return ids
