"""Eval file for XLA102: a loader built under ``if args.do_predict:`` and rebound under a
later ``if args.do_predict:`` (``accelerator.prepare``, whose even batches complete the
last one) reaches the prediction loop only prepared: whenever the first body ran, so did
the second. A test whose names change in between keeps both loaders."""
import torch
import torch_xla
from accelerate import Accelerator
from torch.utils.data import DataLoader


def predict(model, predict_set, eval_set, args):
    accelerator = Accelerator()
    if args.do_predict:
        predict_loader = DataLoader(predict_set, batch_size=args.batch_size)
    if args.do_eval:
        eval_loader = DataLoader(eval_set, batch_size=args.batch_size)  # error: XLA102
    model = accelerator.prepare(model)
    if args.do_predict:
        predict_loader = accelerator.prepare(predict_loader)
    args.do_eval = args.eval_every > 0
    if args.do_eval:
        eval_loader = accelerator.prepare(eval_loader)
    if args.do_predict:
        with torch.no_grad():
            for batch in predict_loader:
                out = model(**batch)
                accelerator.gather(out.logits)
    with torch.no_grad():
        for batch in eval_loader:
            model(**batch)
            torch_xla.sync()
