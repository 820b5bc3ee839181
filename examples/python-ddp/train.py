"""Fashion-MNIST CNN with PyTorch DDP: a plain training script in the style of the DDP
workshop's (seeds 001/002/004), written to be measured by scalestudy without changes.

Launch it like any DDP script (torchrun, srun, or scalestudy, which sets RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT for every rank):

    torchrun --nproc_per_node 2 train.py --epochs 3 --batch_size 64

It prints one line per epoch on rank 0,
    Epoch [2/3] | Loss 0.6312 | Val Acc 71.20% | Time 3.41 s | Throughput 1502.3 img/s
and one line per epoch on every rank,
    [rank 1] epoch 2 step time 42.17 ms
which the study examples/python-ddp/patterns.yaml reads. With --record it also writes its
run database through python/scalestudy_record.py (examples/python-ddp/recorded.yaml).
Gloo on CPU, NCCL on GPUs. Data: Debian's dataset-fashion-mnist (IDX files, gzip).
"""

import argparse
import contextlib
import gzip
import os
import statistics
import struct
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def parse_args():
    parser = argparse.ArgumentParser(description="Fashion-MNIST DDP training")
    parser.add_argument("--data_dir", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=64, help="per rank")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--steps_per_epoch", type=int, default=0, help="0: the whole epoch")
    parser.add_argument("--val_samples", type=int, default=2000)
    parser.add_argument("--warmup_steps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", action="store_true",
                        help="write the run database with scalestudy_record")
    return parser.parse_args()


def read_idx(path):
    """An IDX file (optionally gzip'd) as a uint8 tensor of its shape."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    _, dtype, ndim = struct.unpack(">HBB", data[:4])
    if dtype != 0x08:
        raise ValueError("%s: not an unsigned-byte IDX file" % path)
    shape = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return torch.frombuffer(bytearray(data[4 + 4 * ndim:]), dtype=torch.uint8).reshape(shape)


def load_split(data_dir, prefix, limit=0):
    images = read_idx(os.path.join(data_dir, prefix + "-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, prefix + "-labels-idx1-ubyte.gz"))
    if limit:
        images, labels = images[:limit], labels[:limit]
    images = (images.float().unsqueeze(1) / 255.0 - 0.2860) / 0.3530
    return TensorDataset(images, labels.long())


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 7 * 7, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def open_recorder(args, device, backend):
    """scalestudy_record.Run when --record is given (the module lives in python/)."""
    if not args.record:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "python"))
    import scalestudy_record
    return scalestudy_record.Run(workload="python-ddp", config=vars(args),
                                 device=str(device), backend=backend)


class UntimedStep:
    """The step of a run without --record: phases are not timed."""
    loss = None

    def phase(self, name):
        return contextlib.nullcontext()


@contextlib.contextmanager
def training_step(recorder, epoch, samples, warmup):
    if recorder is None:
        yield UntimedStep()
        return
    with recorder.step(epoch, samples, warmup) as step:
        yield step


def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(2, device=device)
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct[0] += (model(x).argmax(1) == y).sum()
            correct[1] += len(y)
    if dist.is_initialized():
        dist.all_reduce(correct)
    model.train()
    return (correct[0] / correct[1]).item()


def train(args, recorder, model, optimizer, train_loader, val_loader, sampler, device, rank):
    world_size = dist.get_world_size() if dist.is_initialized() else 1
    steps = args.steps_per_epoch or len(train_loader)
    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        losses, step_times, samples, measured_s = [], [], 0, 0.0
        epoch_start = time.perf_counter()
        batches = iter(train_loader)
        for i in range(steps):
            warmup = epoch == 1 and i < args.warmup_steps
            step_start = time.perf_counter()
            with training_step(recorder, epoch, args.batch_size, warmup) as step:
                with step.phase("data"):
                    try:
                        x, y = next(batches)
                    except StopIteration:
                        batches = iter(train_loader)
                        x, y = next(batches)
                    x, y = x.to(device), y.to(device)
                with step.phase("forward"):
                    loss = F.cross_entropy(model(x), y)
                with step.phase("backward"):
                    optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                with step.phase("optimizer"):
                    optimizer.step()
                step.loss = loss.item()
            elapsed = time.perf_counter() - step_start
            losses.append(step.loss)
            if not warmup:
                step_times.append(elapsed * 1000)
                samples += len(y)
                measured_s += elapsed
        epoch_s = time.perf_counter() - epoch_start
        totals = torch.tensor([float(samples), sum(losses) / len(losses)], device=device)
        slowest = torch.tensor([measured_s], device=device)
        if dist.is_initialized():
            dist.all_reduce(totals)
            dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        throughput = totals[0].item() / max(slowest.item(), 1e-9)
        train_loss = totals[1].item() / world_size
        val_acc = evaluate(model, val_loader, device)
        print("[rank %d] epoch %d step time %.2f ms" % (rank, epoch, statistics.median(step_times)),
              flush=True)
        if rank == 0:
            print("Epoch [%d/%d] | Loss %.4f | Val Acc %.2f%% | Time %.2f s | Throughput %.1f img/s"
                  % (epoch, args.epochs, train_loss, val_acc * 100, epoch_s, throughput), flush=True)
        if recorder:
            recorder.epoch(epoch, lr=args.lr, train_loss=train_loss, val_acc=val_acc,
                           samples_per_s=throughput, epoch_s=epoch_s)
    return val_acc


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    use_cuda = torch.cuda.is_available()
    backend = "nccl" if use_cuda else "gloo"
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    else:
        torch.set_num_threads(1)
    if distributed:
        dist.init_process_group(backend)  # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
    rank = dist.get_rank() if distributed else 0

    train_set = load_split(args.data_dir, "train")
    val_set = load_split(args.data_dir, "t10k", args.val_samples)
    sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed) if distributed else \
        torch.utils.data.RandomSampler(train_set)
    if not distributed:
        sampler.set_epoch = lambda epoch: None
    val_sampler = DistributedSampler(val_set, shuffle=False) if distributed else None
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler,
                              drop_last=True)
    val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler)

    model = SmallCNN().to(device)
    if distributed:
        model = DDP(model, device_ids=[local_rank] if use_cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    recorder = open_recorder(args, device, backend if distributed else "none")
    try:
        val_acc = train(args, recorder, model, optimizer, train_loader, val_loader, sampler,
                        device, rank)
        if recorder:
            recorder.summary(final_val_acc=val_acc)
            recorder.completed()
    except BaseException as error:
        if recorder:
            recorder.failed("%s: %s" % (type(error).__name__, error))
        raise
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
