"""Eval file for XLA104: slices bounded by one value read from the device in the step are
one hazard (one read, one fix), reported at the first slice of each loop."""
import torch
import torch_xla


class Joiner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)

    def forward(self, inputs, outputs, atts):
        lens = atts.sum(dim=1)
        joined = []
        for i in range(inputs.size(0)):
            n = lens[i].item()  # error: XLA201
            emb = torch.cat([inputs[i][:n], outputs[i], inputs[i][n:]])  # error: XLA104
            att = torch.cat([atts[i][:n], atts[i][n:]])
            joined.append(self.proj(emb) * att.sum())
        for i in range(inputs.size(0)):
            m = int(lens[i])  # error: XLA201
            joined.append(inputs[i][:m].sum() + outputs[i][:m].sum())  # error: XLA104
        return torch.stack(joined)


model = Joiner().to(torch_xla.device())
