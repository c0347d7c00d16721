"""XLA201: no host sync in copies of CPU tensors made by host-side helpers in a step loop.

A window function (``torch.hann_window``) without ``device=`` is a CPU tensor like any
torch factory (and reads a length given as a tensor on the host); a helper given CPU tensors that appends its results to a list returns
CPU tensors, so ``.cpu()`` of them copies nothing from the device."""
import json

import torch
import torch_xla

device = torch_xla.device()
model = torch.nn.Linear(16, 16).to(device)


class Spectral:
    def __init__(self, n_fft=64):
        self.window = torch.hann_window(n_fft)

    def inverse(self, magnitude, phase):
        return torch.istft(torch.polar(magnitude, phase), n_fft=self.window.numel(),
                           window=self.window.to(magnitude.device))


class Decoder:
    def __init__(self, anchors):
        self.anchors = anchors

    def rescale(self, boxes, scores):
        boxes = boxes.permute(0, 2, 1)
        boxes[:, :, :2] = boxes[:, :, :2] * self.anchors[:, :, 2:]
        return boxes, torch.softmax(scores.permute(0, 2, 1), dim=-1)

    def decode_batch(self, boxes_in, scores_in):
        boxes, probs = self.rescale(boxes_in, scores_in)
        out = []
        for box, prob in zip(boxes.split(1, 0), probs.split(1, 0)):
            out.append(self.decode_single(box.squeeze(0), prob.squeeze(0)))
        return out

    def decode_single(self, boxes_in, scores_in, max_num=200):
        boxes_out, scores_out = [], []
        for i, score in enumerate(scores_in.split(1, 1)):
            score = score.squeeze(1)
            mask = score > 0.05
            boxes, score = boxes_in[mask, :], score[mask]
            order = score.sort(dim=0)[1][-max_num:]
            picked = []
            while order.numel() > 0:
                picked.append(order[-1].item())
                order = order[:-1]
            boxes_out.append(boxes[picked, :])
            scores_out.append(score[picked])
        if not boxes_out:
            return [torch.tensor([]) for _ in range(2)]
        boxes_out, scores_out = torch.cat(boxes_out, dim=0), torch.cat(scores_out, dim=0)
        best = scores_out.sort(dim=0)[1][-max_num:]
        return boxes_out[best, :], scores_out[best]


def evaluate(loader, decoder, config):
    spectral = Spectral(config["n_fft"])
    found = []
    for x, phase in loader:
        with torch.no_grad():
            out = model(x.to(device))
        early = out.mean().item()  # error: XLA201
        # (a window's length is a size: a tensor given as one is read on the host)
        taper = torch.hann_window((out > 0).sum())  # error: XLA201
        torch_xla.sync()
        scores = out.cpu().float()
        wav = spectral.inverse(scores.abs(), phase)
        found.append(wav.numpy())
        for idx in range(scores.shape[0]):
            one = scores[idx].reshape(1, 4, 4)
            result = decoder.decode_batch(one, one)[0]
            boxes, best = [r.cpu().numpy() for r in result]
            found.append((boxes, best, early, taper))
    return found


if __name__ == "__main__":
    data = [(torch.randn(4, 16), torch.randn(4, 16)) for _ in range(8)]
    with open("config.json") as f:
        evaluate(data, Decoder(torch.rand(1, 4, 8)), json.load(f))
