"""Eval file for XLA201: the result of a callable attribute that the framework sets up
(``self.loss``, from a registry in the base class) is a tensor in every method when one
method shows it (``loss = self.loss(...)`` then ``loss.backward()``), so reading it per
validation batch copies a lazy tensor. A callable attribute whose result no method uses
as a tensor stays unknown."""
import torch
import torch_xla.core.xla_model as xm
from argus import Model


class ClassifierModel(Model):
    def train_step(self, batch, state) -> dict:
        self.train()
        self.optimizer.zero_grad()
        input, target = self.prepare_batch(batch, self.device)
        prediction = self.nn_module(input)
        loss = self.loss(prediction, target)
        loss.backward()
        xm.optimizer_step(self.optimizer)
        return {"prediction": prediction.detach(), "target": target,
                "loss": loss.item()}  # error: XLA201

    def val_step(self, batch, state) -> dict:
        self.eval()
        with torch.no_grad():
            input, target = self.prepare_batch(batch, self.device)
            prediction = self.nn_module(input)
            loss = self.loss(prediction, target)
            score = self.scorer(prediction, target)
            return {"prediction": prediction, "target": target,
                    "loss": loss.item(),  # error: XLA201
                    "score": score.item()}  # trap: nothing shows what the scorer returns
