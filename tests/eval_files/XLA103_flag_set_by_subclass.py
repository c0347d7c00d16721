"""Eval file for XLA103: a base loss whose checks run under a constructor flag, built only
through subclasses. A subclass whose ``__init__`` runs ``super().__init__(validate=False)``
(or ``Base.__init__(self, check=False)``) is a construction with the flag off; one that
passes True, or a subclass with no ``__init__`` of its own (built with the base's own
default), leaves the checks on the step."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch import nn


class RankingLoss(nn.Module):
    def __init__(self, margin=0.2, validate=True):
        super().__init__()
        self.margin = margin
        self.validate = validate

    def forward(self, scores, labels):
        if self.validate:
            assert not torch.isnan(scores).any(), "NaN scores"
        return nn.functional.relu(self.margin - scores * labels).mean()


class FastRankingLoss(RankingLoss):
    def __init__(self, margin=0.2):
        super().__init__(margin=margin, validate=False)


class PairLoss(nn.Module):
    def __init__(self, check=True):
        super().__init__()
        self.check = check

    def forward(self, a, b):
        if self.check:
            assert torch.isfinite(a).all()  # error: XLA103
        return (a - b).pow(2).mean()


class FastPairLoss(PairLoss):
    def __init__(self):
        PairLoss.__init__(self, check=False)


class CheckedPairLoss(PairLoss):
    def __init__(self):
        super().__init__(check=True)


class HingeLoss(nn.Module):
    def __init__(self, validate=True):
        super().__init__()
        self.validate = validate

    def forward(self, scores, labels):
        if self.validate:
            assert not torch.isnan(scores).any()  # error: XLA103
        return nn.functional.relu(1 - scores * labels).mean()


class PlainHingeLoss(HingeLoss):
    pass


class MarginLoss(nn.Module):
    def __init__(self, validate=True):
        super().__init__()
        self.validate = validate

    def forward(self, scores, labels):
        if self.validate:
            assert not torch.isnan(scores).any()  # error: XLA103
        return nn.functional.relu(0.5 - scores * labels).mean()


class DebugChecks:
    def enable_checks(self):
        self.validate = True


class FastMarginLoss(DebugChecks, MarginLoss):
    """Off by default, but a mixin of its turns the checks back on."""

    def __init__(self):
        super().__init__(validate=False)


def train(model, loader, optimizer, debug=False):
    device = torch_xla.device()
    ranking = FastRankingLoss(margin=0.3)
    pairs = [FastPairLoss(), CheckedPairLoss()]
    hinge = PlainHingeLoss(validate=False)
    margin = FastMarginLoss()
    if debug:
        margin.enable_checks()
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        out = model(x)
        loss = ranking(out, y) + hinge(out, y) + margin(out, y) + sum(p(out, y) for p in pairs)
        loss.backward()
        optimizer.step()
