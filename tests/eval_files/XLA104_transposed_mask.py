"""Eval file for XLA104: a boolean mask keeps its dtype through ``.T`` (a transposed view),
so indexing with it is still a boolean-mask assignment of data-dependent size."""
import torch
import torch_xla


def lengths_to_mask(lengths, device):
    lengths = torch.tensor(lengths, device=device)
    return torch.arange(64, device=device).expand(len(lengths), 64) < lengths.unsqueeze(1)


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.out = torch.nn.Linear(32, 8)

    def forward(self, z, lengths):
        mask = lengths_to_mask(lengths, z.device)
        output = self.out(z)  # [frames, batch, feats]
        output[~mask.T] = 0  # error: XLA104
        scale = mask.float().T  # (a float view: no mask)
        return output * scale[..., None]


decoder = Decoder().to(torch_xla.device())
