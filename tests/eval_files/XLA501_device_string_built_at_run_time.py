"""Eval file for XLA501: a CUDA device string built at run time (``"cuda:{}".format(rank)``,
``"cuda:" + str(rank)``, ``"cuda:%d" % rank``) names a GPU as surely as the f-string; a
built string of another device, or a ``device_type`` choice, does not."""
import torch
import torch_xla


def setup(rank, model):
    device = torch.device("cuda:{}".format(rank))  # error: XLA501
    model = model.to(device)
    return model


def place(rank, batch):
    return batch.to("cuda:" + str(rank))  # error: XLA501


def place_old(rank, batch):
    return batch.to(torch.device("cuda:%d" % rank))  # error: XLA501


def place_xla(rank, batch):
    name = "xla:{}".format(rank)  # trap
    return batch.to(torch_xla.device()), name


def label(rank):
    return "rank %d of cuda:%d" % (rank, rank)  # trap


def setup_local(local_rank, model):
    dev = "cuda:%d" % local_rank  # error: XLA501
    return model.to(dev)
