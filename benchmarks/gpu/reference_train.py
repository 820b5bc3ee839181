#!/usr/bin/env python3
"""PyTorch-Python reference of scalestudy's GPU training step, for side-by-side throughput.

The same ResNet-18 (CIFAR stem: 3x3 stride-1 first convolution, no max-pool; torchvision's
BasicBlock with 1x1-conv + BN projection shortcuts; Kaiming fan-out init — the definition
in harness/models/resnet.cpp, whose twin ../cpu/reference_models.py holds), the same per-GPU
batch, precision and memory format, SGD with momentum 0.9, nesterov and weight decay 5e-4
in one fused kernel (`fused=True`, as the C++ ForeachSgd runs `_fused_sgd_`; the multi-tensor
foreach form where this torch has no fused SGD, e.g. 1.13; --optimizer picks either; the
JSON names the one that ran), synthetic CIFAR-shaped data already on the device, so both
sides measure the training step alone. --device cpu runs the same step on the CPU (the
kit's CPU rehearsal). Optional torch.compile, or --cuda-graph: the whole step (forward,
backward, optimizer) captured once after warm-up and replayed, the twin of the C++
--cuda-graph (bf16/fp32: GradScaler is not capturable).

Prints one JSON line: {"images_per_s": ..., "step_ms": ..., "forward_macs": ...,
"optimizer": "fused" | "foreach", ...}.
(The numerical twin of the C++ step, from shared weights, is ../cpu/reference_train.py
--device cuda.)
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# The model is the CPU reference's (one definition for both twins).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cpu"))
from reference_models import ResNet18Cifar  # noqa: E402


def forward_macs(model, input_shape):
    """Multiply-accumulates of one forward pass: convolutions and the linear layer."""
    macs = [0]

    def count(module, inputs, output):
        if isinstance(module, nn.Conv2d):
            kernel = module.kernel_size[0] * module.kernel_size[1]
            macs[0] += output.numel() * (module.in_channels // module.groups) * kernel
        elif isinstance(module, nn.Linear):
            macs[0] += output.numel() * module.in_features

    hooks = [m.register_forward_hook(count) for m in model.modules()
             if isinstance(m, (nn.Conv2d, nn.Linear))]
    with torch.no_grad():
        model(torch.zeros(input_shape, device=next(model.parameters()).device))
    for hook in hooks:
        hook.remove()
    return macs[0]


def sgd(parameters, requested):
    """(torch.optim.SGD with the C++ side's settings, "fused" | "foreach"): fused where this
    torch has it for the parameters' device unless foreach is requested."""
    options = {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 5e-4}
    if requested != "foreach":
        try:
            return torch.optim.SGD(parameters, fused=True, **options), "fused"
        except (TypeError, RuntimeError) as error:  # 1.13: no `fused`; some devices: none
            if requested == "fused":
                raise SystemExit(f"fused SGD is not available here: {error}")
    return torch.optim.SGD(parameters, foreach=True, **options), "foreach"


def grad_scaler(device, enabled):
    """GradScaler for device; torch < 2.3 has only torch.cuda.amp's."""
    if hasattr(torch.amp, "GradScaler"):
        return torch.amp.GradScaler(device.type, enabled=enabled)
    return torch.cuda.amp.GradScaler(enabled=enabled)


def graphed(train_step, example, warmup_steps):
    """train_step as one CUDA graph on static inputs: warm-up on a side stream (allocates
    gradients and optimizer state), capture, then every call copies its batch in and
    replays. The warm-up calls train too, as the C++ CudaGraphStep's do."""
    static_x, static_y = (t.clone() for t in example)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup_steps):
            train_step(static_x, static_y)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_loss = train_step(static_x, static_y)

    def replay(x, y):
        static_x.copy_(x)
        static_y.copy_(y)
        graph.replay()
        return static_loss

    return replay


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--precision", choices=["fp32", "tf32", "fp16", "bf16"], default="bf16")
    parser.add_argument("--channels-last", type=lambda v: v == "true", default=True)
    parser.add_argument("--compile", choices=["none", "default", "reduce-overhead",
                                              "max-autotune"], default="none")
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--samples", type=int, default=50000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cuda-graph", action="store_true")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--optimizer", choices=["auto", "fused", "foreach"], default="auto",
                        help="auto: fused SGD where available, else foreach")
    args = parser.parse_args()
    if args.cuda_graph and (args.precision == "fp16" or args.compile != "none"):
        parser.error("--cuda-graph takes bf16/fp32 without --compile")
    if args.device == "cpu" and (args.cuda_graph or args.precision in ("fp16", "tf32")):
        parser.error("--device cpu takes fp32 or bf16 without --cuda-graph")

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = args.precision == "tf32"
    torch.backends.cudnn.allow_tf32 = args.precision == "tf32"
    memory_format = torch.channels_last if args.channels_last else torch.contiguous_format

    model = ResNet18Cifar().to(device, memory_format=memory_format)
    macs = forward_macs(model, (1, 3, 32, 32))
    optimizer, optimizer_kind = sgd(list(model.parameters()), args.optimizer)
    autocast_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(args.precision)
    scaler = grad_scaler(device, enabled=args.precision == "fp16")

    # Synthetic CIFAR-shaped data, resident on the GPU and normalised once.
    images = torch.randint(0, 256, (args.samples, 3, 32, 32), dtype=torch.uint8, device=device)
    labels = torch.randint(0, 10, (args.samples,), device=device)
    mean = torch.tensor([0.4914, 0.4822, 0.4465], device=device).view(1, 3, 1, 1)
    std = torch.tensor([0.2470, 0.2435, 0.2616], device=device).view(1, 3, 1, 1)
    generator = torch.Generator(device=device)
    generator.manual_seed(args.seed)

    def batch(step):
        if step % (args.samples // args.batch_size) == 0:
            batch.permutation = torch.randperm(args.samples, device=device, generator=generator)
        start = (step % (args.samples // args.batch_size)) * args.batch_size
        index = batch.permutation[start:start + args.batch_size]
        x = ((images[index].float() / 255 - mean) / std).contiguous(memory_format=memory_format)
        return x, labels[index]

    def train_step(x, y):
        with torch.autocast(device.type, dtype=autocast_dtype or torch.bfloat16,
                            enabled=autocast_dtype is not None):
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    if args.compile != "none":
        train_step = torch.compile(train_step, mode=args.compile)
    if args.cuda_graph:
        train_step = graphed(train_step, batch(0), warmup_steps=3)

    def timed_step(step):
        train_step(*batch(step))

    def synchronize():
        if device.type == "cuda":
            torch.cuda.synchronize()

    for step in range(args.warmup_steps):
        timed_step(step)
    synchronize()
    started = time.perf_counter()
    for step in range(args.warmup_steps, args.warmup_steps + args.steps):
        timed_step(step)
    synchronize()
    elapsed_s = time.perf_counter() - started

    print(json.dumps({
        "implementation": "python" if args.compile == "none" else "python-compile-" + args.compile,
        "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
        "batch_size": args.batch_size,
        "precision": args.precision,
        "channels_last": args.channels_last,
        "images_per_s": args.steps * args.batch_size / elapsed_s,
        "step_ms": elapsed_s * 1000 / args.steps,
        "forward_macs": macs,
        "torch_version": torch.__version__,
        "cuda_graph": args.cuda_graph,
        "optimizer": optimizer_kind,
    }))


if __name__ == "__main__":
    main()
