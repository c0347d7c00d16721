"""Eval file for XLA201: a Hugging Face Trainer subclass that overrides the logging hook
``_maybe_log_save_evaluate`` (called after every optimizer step) reads the running loss
``tr_loss`` on the host without the ``xm.mark_step()`` that transformers' own version
runs first; one that logs host values only, or leaves the loss to the base class, does
not."""
import torch_xla  # noqa: F401
from transformers import Trainer


class LoggingTrainer(Trainer):
    def _maybe_log_save_evaluate(self, tr_loss, model, trial, epoch, ignore_keys_for_eval):
        if self.control.should_log:
            logs = {"loss": tr_loss.item() / max(self.state.global_step, 1)}  # error: XLA201
            tr_loss -= tr_loss
            self.log(logs)


class StepLoggingTrainer(Trainer):
    def _maybe_log_save_evaluate(self, tr_loss, model, trial, epoch, ignore_keys_for_eval):
        if self.control.should_log:
            self.log({"step": self.state.global_step, "epoch": epoch})  # trap: host values
        super()._maybe_log_save_evaluate(tr_loss, model, trial, epoch, ignore_keys_for_eval)
