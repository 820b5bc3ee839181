#!/usr/bin/python3
"""The aten operators one training forward + backward of scalestudy-lm's GPT dispatches,
against nanoGPT's model (docs/lm.md, "Operators against nanoGPT").

Ours: reference_models.Gpt (the twin of workloads/lm/gpt.cpp) with lm_task.cpp's input
decoding (token_corpus.cpp's window_tokens) and loss. nanoGPT: the GPT of the model.py
given as --nanogpt (karpathy/nanoGPT, loaded at run time), with biases and dropout 0 as
its bench.py; it gets our weights, so the two losses can be compared. Both run under
bf16 autocast. Forward (with the loss) and backward are profiled apart, after two warm-up
steps; the table counts each operator, nested ones included (aten::linear's aten::addmm
too), and shows the rows whose counts differ (--all: every row). On a GPU each side's
kernels follow, the longest first, with their sum per phase. --steps N also times N steps
(median forward and backward ms; CUDA events on a GPU).

CPU autocast casts differently from CUDA's (layer_norm and log_softmax have no CPU
autocast rule; cross_entropy_loss has one on the CPU only), so the casts around the
norms and the loss show on a GPU alone (--device cuda).

Usage (repository root; a small shape by default, GPT-2 small's width and heads):
  git -C NANOGPT_CHECKOUT show 3adf61e:model.py > /tmp/nanogpt_model.py
  .deps/torch-venv/bin/python benchmarks/cpu/lm_operator_list.py --nanogpt /tmp/nanogpt_model.py
  ... --device cuda --batch 16 --seq-len 1024 --n-layer 12 --steps 20   # on a GPU
"""
import argparse
import collections
import importlib.util
import statistics
import time

import torch
import torch.nn.functional as F
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

from reference_models import Gpt

BYTE_VALUES = 256
TOP_KERNELS = 8
WARM_UP_STEPS = 2


def token_planes(tokens):
    """What the loaders hand LmTask: token windows as float byte planes [B, 2, 1, T + 1]."""
    return torch.stack([tokens.div(BYTE_VALUES, rounding_mode="floor"),
                        tokens.remainder(BYTE_VALUES)], 1).unsqueeze(2).float()


def window_tokens(images):  # token_corpus.cpp
    planes = images.round().long().squeeze(2)
    return planes.select(1, 0) * BYTE_VALUES + planes.select(1, 1)


class Ours:
    def __init__(self, model, tokens):
        self.model, self.images = model, token_planes(tokens)

    def loss(self):  # LmTask::forward
        tokens = window_tokens(self.images)
        length = tokens.size(1) - 1
        logits = self.model(tokens.narrow(1, 0, length))
        log_probs = torch.log_softmax(logits.view(-1, logits.size(-1)), -1, dtype=torch.float)
        return F.nll_loss(log_probs, tokens.narrow(1, 1, length).reshape(-1))


class NanoGpt:
    def __init__(self, path, args, ours, tokens):
        spec = importlib.util.spec_from_file_location("nanogpt_model", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        config = module.GPTConfig(block_size=args.seq_len, vocab_size=args.vocab,
                                  n_layer=args.n_layer, n_head=args.n_head,
                                  n_embd=args.d_model, dropout=0.0, bias=True)
        self.model = module.GPT(config).to(tokens.device)
        weights = {"transformer." + name: value for name, value in ours.state_dict().items()}
        weights["lm_head.weight"] = weights["transformer.wte.weight"]
        self.model.load_state_dict(weights)
        self.x = tokens[:, :-1].contiguous()
        self.y = tokens[:, 1:].contiguous()

    def loss(self):
        return self.model(self.x, self.y)[1]


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def autocast(device):
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def profiled_step(side, device):
    """(phase, key_averages) of one forward + backward, and the loss."""
    side.model.zero_grad(set_to_none=True)
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities) as forward:
        with autocast(device):
            loss = side.loss()
        sync(device)
    with profile(activities=activities) as backward:
        loss.backward()
        sync(device)
    return [("forward", forward.key_averages()), ("backward", backward.key_averages())], loss.item()


def print_kernels(name, phases):
    for phase, events in phases:
        kernels = sorted((e for e in events if e.device_type == DeviceType.CUDA),
                         key=lambda e: -e.self_device_time_total)
        total_ms = sum(e.self_device_time_total for e in kernels) / 1e3
        print(f"\n{name} {phase}: {len(kernels)} kernels, {total_ms:.2f} ms of kernel time")
        for kernel in kernels[:TOP_KERNELS]:
            print(f"  {kernel.self_device_time_total / 1e3:8.2f} ms {kernel.count:5}x  "
                  f"{kernel.key[:90]}")


def phase_ms(side, device, steps):
    """Median forward (with the loss) and backward milliseconds over `steps` steps."""
    forward, backward = [], []
    for _ in range(steps):
        side.model.zero_grad(set_to_none=True)
        sync(device)
        if device.type == "cuda":
            marks = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
            marks[0].record()
            with autocast(device):
                loss = side.loss()
            marks[1].record()
            loss.backward()
            marks[2].record()
            sync(device)
            forward.append(marks[0].elapsed_time(marks[1]))
            backward.append(marks[1].elapsed_time(marks[2]))
        else:
            start = time.perf_counter()
            with autocast(device):
                loss = side.loss()
            middle = time.perf_counter()
            loss.backward()
            forward.append((middle - start) * 1e3)
            backward.append((time.perf_counter() - middle) * 1e3)
    return statistics.median(forward), statistics.median(backward)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nanogpt", help="nanoGPT's model.py; without it, ours alone")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--n-layer", type=int, default=2)
    parser.add_argument("--n-head", type=int, default=12)
    parser.add_argument("--d-model", type=int, default=768)
    parser.add_argument("--vocab", type=int, default=50304)
    parser.add_argument("--steps", type=int, default=0, help="time this many steps too")
    parser.add_argument("--all", action="store_true", help="every operator, not only diffs")
    args = parser.parse_args()
    if args.vocab > BYTE_VALUES * BYTE_VALUES:
        parser.error("--vocab: at most 65,536 (two byte planes)")

    torch.manual_seed(0)
    device = torch.device(args.device)
    model = Gpt(args.n_layer, args.n_head, args.d_model, args.seq_len, args.vocab).to(device)
    tokens = torch.randint(args.vocab, (args.batch, args.seq_len + 1), device=device)
    sides = {"ours": Ours(model, tokens)}
    if args.nanogpt:
        sides["nanogpt"] = NanoGpt(args.nanogpt, args, model, tokens)

    counts, times = {}, {}
    for name, side in sides.items():
        for _ in range(WARM_UP_STEPS):  # lazy initialisation stays out of the profile
            with autocast(device):
                loss = side.loss()
            loss.backward()
        phases, loss = profiled_step(side, device)
        print(f"{name}: loss {loss:.6f}")
        counts[name] = collections.Counter({(phase, e.key): e.count for phase, events in phases
                                            for e in events if e.key.startswith("aten::")})
        if device.type == "cuda":
            print_kernels(name, phases)
        if args.steps > 0:
            times[name] = phase_ms(side, device, args.steps)

    names = list(sides)
    rows = sorted(set().union(*(c.keys() for c in counts.values())))
    print(f"\n{'phase':9} {'operator':48}" + "".join(f"{n:>9}" for n in names))
    for row in rows:
        values = [counts[n][row] for n in names]
        if args.all or len(set(values)) > 1:
            print(f"{row[0]:9} {row[1]:48}" + "".join(f"{v:>9}" for v in values))
    for name, (forward, backward) in times.items():
        print(f"{name}: forward {forward:.2f} ms, backward {backward:.2f} ms "
              f"(median of {args.steps}, {device.type})")


if __name__ == "__main__":
    main()
