"""Eval file for XLA201: methods a Hugging Face ``Trainer`` calls once per batch, under
their current names and under the private names of transformers before 3.1."""
import torch
import torch_xla
from transformers import Trainer


class SmoothedTrainer(Trainer):
    def _training_step(self, model, inputs, optimizer):
        # transformers 3.0: the step hook was ``_training_step``
        loss = model(**inputs)[0]
        loss.backward()
        return loss.item()  # error: XLA201

    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(**inputs)
        loss = outputs[0]
        print(loss)  # error: XLA201
        return (loss, outputs) if return_outputs else loss

    def summary(self, model, inputs):
        # Trap: not a hook; nothing says it runs per batch.
        return model(**inputs)[0].item()
