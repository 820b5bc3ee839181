#!/usr/bin/python3
"""PyTorch-Python reference of scalestudy's CPU training step, for side-by-side throughput.

The same step as `scalestudy-train --data-on-device true` (small-cnn on Fashion-MNIST,
resnet18 on synthetic CIFAR shapes), `scalestudy-ddpm` (small preset on Fashion-MNIST) and
`scalestudy-lm` (gpt-tiny: the tiny preset on the bytes of Debian's fortunes):
the twin models of reference_models.py, the resident data path of
harness/gpu/device_loader.cpp (uint8 split in memory; per epoch a permutation from the
same seeded generator; per step index_select, float, scale, shift; for gpt-tiny the split
is the corpus's windows of seq_len + 1 bytes as one-row images whose scale and shift give
the bytes back, rounded to tokens), the same seeded DDPM noise streams, the workloads' optimizers (SGD lr 0.1
momentum 0.9; for DDPM AdamW lr 2e-4, betas 0.9/0.999, eps 1e-8, no weight decay; for
gpt-tiny AdamW lr 3e-4, betas 0.9/0.999, eps 1e-8, weight decay 0.1, the flags
side_by_side.py gives scalestudy-lm; gradients set to none), the
loss and correct-count sums the C++ loop keeps, one loss.item() per step, and DDP over gloo
(25 MB buckets, gradients as bucket views, no per-step buffer broadcast) for several ranks.
Launched by scalestudy-launch like the C++ side; intra-op threads = cores / local ranks
unless --threads. --initial-state loads the C++ side's --dump-initial-state file, so both
start from the same weights.

--device cuda runs the same step on one GPU (the resident split and its permutation on the
device, fp32 without TF32, cuDNN autotuning off): benchmarks/gpu/side_by_side.py uses it to
cross-check the C++ GPU path's first losses from shared weights.

Prints one JSON line on rank 0: images_per_s (all ranks' samples over the slowest rank's
wall-clock time of the measured steps; for gpt-tiny a sample is one window), losses (rank
0's, every step), threads, and for gpt-tiny tokens_per_s (images_per_s x seq_len).
"""
import argparse
import gzip
import json
import math
import os
import stat
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_models  # noqa: E402

FASHION_MNIST_ROOT = "/usr/share/datasets/fashion-mnist"
FORTUNES_ROOT = "/usr/share/games/fortunes"  # Debian's fortunes package
# scalestudy-lm's tiny preset on bytes.
GPT_TINY = {"n_layer": 4, "n_head": 4, "d_model": 128, "seq_len": 128, "vocab": 256}
MASK64 = (1 << 64) - 1


def mix_seed(value):
    """harness/data/seed_mixing.hpp: SplitMix64's finaliser."""
    value = (value + 0x9E3779B97F4A7C15) & MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


def ddpm_stream_seed(seed, stream, rank):
    """workloads/ddpm/ddpm_task.cpp: stream_seed."""
    return mix_seed((mix_seed((mix_seed(seed) + stream) & MASK64) + rank) & MASK64)


def read_idx(path):
    with gzip.open(path, "rb") as stream:
        data = stream.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).view(shape)


def fashion_mnist_train():
    images = read_idx(os.path.join(FASHION_MNIST_ROOT, "train-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(FASHION_MNIST_ROOT, "train-labels-idx1-ubyte.gz"))
    return images.unsqueeze(1).contiguous(), labels.long()


def synthetic_train(seed, size=10000, classes=10, shape=(3, 32, 32), noise_stddev=48.0):
    """harness/data/synthetic_dataset.cpp: class templates plus seeded pixel noise."""
    generator = torch.Generator()
    generator.manual_seed(seed)
    templates = torch.rand((classes,) + shape, generator=generator).mul_(128).add_(64)
    labels = torch.randint(classes, (size,), generator=generator)
    noise = torch.randn((size,) + shape, generator=generator)
    images = (templates.index_select(0, labels) + noise.mul_(noise_stddev)).clamp_(0, 255).round_()
    return images.to(torch.uint8).contiguous(), labels


def fortunes_train(root, seq_len, train_samples=0):
    """scalestudy-lm's `--dataset fortunes` training split as a one-channel image split.

    Every regular file (not a symlink) directly in `root` whose name has no '.', in byte
    order of the names; the first floor(0.9 * size) bytes of each go to training, in name
    order. Window i is bytes[i*T : i*T + T + 1] for i < (length - 1) // T (stride T, T + 1
    bytes each); train_samples > 0 keeps the first that many. Returns uint8 [N, 1, 1, T + 1]
    and labels (all zero), as workloads/lm/token_corpus.cpp hands them to the image batch
    loader (with mean 0 and standard deviation 1/255, so the loader's floats are the bytes).
    """
    parts = []
    for name in sorted(os.listdir(os.fsencode(root))):
        path = os.path.join(os.fsencode(root), name)
        if b"." in name or not stat.S_ISREG(os.lstat(path).st_mode):
            continue
        with open(path, "rb") as stream:
            data = stream.read()
        parts.append(data[:math.floor(0.9 * len(data))])
    corpus = b"".join(parts)
    windows = (len(corpus) - 1) // seq_len
    if windows < 1:
        raise RuntimeError(f"{root}: {len(corpus)} training bytes make no window of {seq_len}")
    tokens = torch.frombuffer(bytearray(corpus), dtype=torch.uint8)
    images = tokens.unfold(0, seq_len + 1, seq_len)[:windows]
    if train_samples > 0:
        images = images[:train_samples]
    images = images.contiguous().view(-1, 1, 1, seq_len + 1)
    return images, torch.zeros(images.size(0), dtype=torch.long)


def channel_stats(images):
    """harness/data/image_dataset.cpp: compute_channel_stats."""
    per_channel = images.transpose(0, 1).reshape(images.size(1), -1).double() / 255.0
    return per_channel.mean(1).tolist(), per_channel.std(1).tolist()


class ResidentBatches:
    """harness/gpu/device_loader.cpp without augmentation, on the split's device."""

    def __init__(self, images, labels, mean, stddev, global_batch, rank, world, seed):
        self.images, self.labels = images, labels
        device = images.device
        self.global_batch, self.rank, self.world = global_batch, rank, world
        self.per_rank_batch = global_batch // world
        self.batches_per_epoch = labels.size(0) // global_batch
        channels = images.size(1)
        mean = torch.tensor(mean, dtype=torch.float64)
        stddev = torch.tensor(stddev, dtype=torch.float64)
        self.scale = (1.0 / (255.0 * stddev)).float().view(1, channels, 1, 1).to(device)
        self.shift = (mean / stddev).float().view(1, channels, 1, 1).to(device)
        self.seed = seed
        self.generator = torch.Generator(device=device)

    def start_epoch(self, epoch):
        self.generator.manual_seed(mix_seed(self.seed ^ mix_seed(epoch)))
        self.permutation = torch.randperm(self.labels.size(0), generator=self.generator,
                                          device=self.labels.device)

    def batch(self, index):
        samples = self.permutation.narrow(0, index * self.global_batch, self.global_batch)
        samples = samples.view(self.per_rank_batch, self.world).select(1, self.rank)
        images = self.images.index_select(0, samples).float().mul_(self.scale).sub_(self.shift)
        return images, self.labels.index_select(0, samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["small-cnn", "resnet18", "ddpm", "gpt-tiny"],
                        required=True)
    parser.add_argument("--batch-size", type=int, required=True, help="samples per rank per step")
    parser.add_argument("--warmup-steps", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20, help="measured steps after warm-up")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op threads per rank; 0: cores / local ranks")
    parser.add_argument("--initial-state", default="",
                        help="the C++ side's --dump-initial-state file")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--lr", type=float, default=None,
                        help="as the C++ side's --lr: SGD's (momentum 0.9; default 0.1), "
                        "gpt-tiny's AdamW's (default 3e-4); ddpm keeps its 2e-4")
    parser.add_argument("--weight-decay", type=float, default=0.1,
                        help="gpt-tiny's AdamW weight decay, as scalestudy-lm's --weight-decay")
    parser.add_argument("--data-root", default=FORTUNES_ROOT,
                        help="gpt-tiny: the fortunes folder, as scalestudy-lm's --data-root")
    parser.add_argument("--train-samples", type=int, default=0,
                        help="gpt-tiny: keep the first N training windows; 0: all")
    args = parser.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda":
        if int(os.environ.get("WORLD_SIZE", "1")) > 1 or args.model in ("ddpm", "gpt-tiny"):
            parser.error("--device cuda takes one rank and small-cnn or resnet18")
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False

    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    threads = args.threads or max(1, (os.cpu_count() or 1) // local_world)
    torch.set_num_threads(threads)
    torch.manual_seed(args.seed)
    if world > 1:
        dist.init_process_group("gloo")

    if args.model == "resnet18":
        images, labels = synthetic_train(args.seed)
        mean, stddev = channel_stats(images)
        model = reference_models.ResNet18Cifar()
    elif args.model == "gpt-tiny":
        images, labels = fortunes_train(args.data_root, GPT_TINY["seq_len"], args.train_samples)
        mean, stddev = [0.0], [1.0 / 255.0]  # token_plane_stats: the loader gives the bytes
        model = reference_models.gpt(**GPT_TINY)
    else:
        images, labels = fashion_mnist_train()
        if args.model == "small-cnn":
            mean, stddev = [0.2860], [0.3530]
            model = reference_models.SmallCnn()
        else:
            mean, stddev = [0.5], [0.5]
            model = reference_models.UNet()
    if args.initial_state:
        state = torch.jit.load(args.initial_state, map_location="cpu").state_dict()
        model.load_state_dict(state, strict=True)
    model.to(device)
    images, labels = images.to(device), labels.to(device)
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(
            model, bucket_cap_mb=25, gradient_as_bucket_view=True, broadcast_buffers=False)
    model.train()
    if args.model == "ddpm":
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4, betas=(0.9, 0.999), eps=1e-8,
                                      weight_decay=0)
    elif args.model == "gpt-tiny":  # the torch::optim::AdamW loop of the C++ CPU path
        optimizer = torch.optim.AdamW(model.parameters(),
                                      lr=3e-4 if args.lr is None else args.lr,
                                      betas=(0.9, 0.999), eps=1e-8,
                                      weight_decay=args.weight_decay, foreach=False)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1 if args.lr is None else args.lr,
                                    momentum=0.9)

    batches = ResidentBatches(images, labels, mean, stddev, args.batch_size * world, rank, world,
                              args.seed)
    total_steps = args.warmup_steps + args.steps
    if total_steps > batches.batches_per_epoch:
        parser.error(f"{total_steps} steps exceed the epoch's {batches.batches_per_epoch} batches")
    batches.start_epoch(0)
    schedule = reference_models.LinearNoiseSchedule() if args.model == "ddpm" else None
    language_model = model.module if world > 1 else model
    noise_generator = torch.Generator()
    noise_generator.manual_seed(ddpm_stream_seed(args.seed, 0, rank))

    loss_sum = torch.zeros((), dtype=torch.float64, device=device)
    correct_sum = torch.zeros((), dtype=torch.float64, device=device)
    losses = []
    started = time.perf_counter()
    for step in range(total_steps):
        if step == args.warmup_steps:
            started = time.perf_counter()
        x, y = batches.batch(step)
        if args.model == "gpt-tiny":  # token_corpus.cpp's window_tokens: [B, 1, 1, T+1] -> [B, T+1]
            tokens = x.round().long().squeeze(2).select(1, 0)
            logits = model(tokens[:, :-1])
            loss = language_model.loss(logits, tokens[:, 1:])
            correct = None
        elif schedule is None:
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            correct = logits.argmax(1).eq(y).sum()
        else:
            timesteps = torch.randint(schedule.timesteps, (x.size(0),), generator=noise_generator)
            noise = torch.empty_like(x).normal_(0, 1, generator=noise_generator)
            loss = F.mse_loss(model(schedule.add_noise(x, noise, timesteps), timesteps).float(),
                              noise)
            correct = None
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            loss_sum.add_(loss.detach(), alpha=x.size(0))
            if correct is not None:
                correct_sum.add_(correct)
        losses.append(loss.item())
    if device.type == "cuda":
        torch.cuda.synchronize()
    elapsed_s = time.perf_counter() - started

    elapsed = torch.tensor([elapsed_s], dtype=torch.float64)
    if world > 1:
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        dist.destroy_process_group()
    if rank == 0:
        samples_per_s = args.steps * args.batch_size * world / elapsed.item() if args.steps else 0.0
        record = {
            "images_per_s": samples_per_s,
            "losses": losses,
            "threads": threads,
            "torch_version": torch.__version__,
        }
        if args.model == "gpt-tiny":
            record["tokens_per_s"] = samples_per_s * GPT_TINY["seq_len"]
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
