"""Eval file for XLA104: a loss helper that collects per-image boolean masks (made in the
helper itself, or by an assignment method that calls back into it) and indexes the flat
predictions with their concatenation. The masks' values are found through the cycle of
calls between the two methods: a value computed while a parameter's call sites were
still being read is not kept as final, so the mask stays a boolean tensor."""
import torch
import torch_xla


class Head(torch.nn.Module):
    def forward(self, feats, labels):
        outputs = torch.cat(feats, 1)
        return self.get_losses(outputs, labels)

    def get_losses(self, outputs, labels):
        masks = []
        for i in range(outputs.shape[0]):
            if labels[i] == 0:
                mask = outputs.new_zeros(outputs.shape[1]).bool()
            else:
                mask, outputs = self.assign(outputs, labels[i])
            masks.append(mask)
        fg = torch.cat(masks, 0)
        return outputs.view(-1)[fg]  # error: XLA104

    def assign(self, outputs, label):
        picked = outputs > label
        return picked, self.get_losses(outputs, label)
