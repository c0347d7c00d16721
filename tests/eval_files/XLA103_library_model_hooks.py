"""Eval file for XLA103 and XLA104: a subclass of a transformers model that overrides a
private method its library forward calls once per step.

``_merge_features`` is never called in the project: transformers' own ``forward`` calls
it with the step's tensors, so its body runs per step like a forward of the project's
own. ``0.0 in mask`` reads the tensor (``Tensor.__contains__``); a key looked up in a
dict does not. Set-up hooks (``_init_weights``) run once and are not read as steps; ``not`` of a
lazy reduction takes the tensor's truth where it is stored.
"""
import torch
import torch_xla
from transformers import LlavaForConditionalGeneration


class XLALlava(LlavaForConditionalGeneration):
    def _merge_features(self, features, input_ids, mask):
        left_padding = not torch.sum(input_ids[:, -1] == 0)  # error: XLA103
        rows, cols = torch.where(mask)  # error: XLA104
        if left_padding:
            features = features.flip(1)
        return features[rows, cols]

    def _init_weights(self, module):
        if torch.sum(module.weight) > 0:
            module.weight.data.zero_()


class Gate(torch.nn.Module):
    def __init__(self, impl="eager"):
        super().__init__()
        self.impl = impl

    def forward(self, x, mask):
        if 0.0 in mask:  # error: XLA103
            x = x * mask
        if -1 not in mask:  # error: XLA103
            x = x + 1
        if self.impl == "flash_attention_2":
            if 0.0 in mask:
                return x
        out = {"hidden": x}
        if "hidden" in out:
            x = out["hidden"]
        return x


def train(loader):
    device = torch_xla.device()
    model = XLALlava(None).to(device)
    gate = Gate().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        loss = model(**batch).loss + gate(batch["x"], batch["mask"]).sum()
        loss.backward()
        opt.step()
        torch_xla.sync()
