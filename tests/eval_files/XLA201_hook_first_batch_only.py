"""Eval file for XLA201: in a Lightning step hook, a block behind ``if batch_idx == 0``
(also ``and``-ed with another test) runs for the first batch of each epoch only: a value
read there is not a per-step read. A test of another hook argument
(``optimizer_idx == 0`` of a GAN's two optimizers) holds on every step."""
import lightning.pytorch as L
import numpy as np
import soundfile
import torch
import torch.nn.functional as F


class Vocoder(L.LightningModule):
    def __init__(self, generator, discriminator):
        super().__init__()
        self.generator, self.discriminator = generator, discriminator

    def training_step(self, batch, batch_idx, optimizer_idx):
        mel, wav = batch
        fake = self.generator(mel)
        if optimizer_idx == 0:
            loss = F.l1_loss(fake, wav)
            print(loss.item())  # error: XLA201
            return loss
        return F.relu(1 - self.discriminator(wav)).mean() + \
            F.relu(1 + self.discriminator(fake.detach())).mean()

    def validation_step(self, batch, batch_idx):
        mel, wav = batch
        fake = self.generator(mel)
        if batch_idx == 0 and self.current_epoch % 10 == 0:
            audio = fake[0].cpu().numpy()
            soundfile.write(f"sample_{self.current_epoch}.wav", np.clip(audio, -1, 1), 22050)
            print("peak", fake.abs().max().item())  # trap: first batch of the epoch only
        return F.l1_loss(fake, wav)

    def configure_optimizers(self):
        return [torch.optim.AdamW(self.generator.parameters()),
                torch.optim.AdamW(self.discriminator.parameters())]


def fit(module, loader):
    L.Trainer(accelerator="tpu", devices=8).fit(module, loader)
