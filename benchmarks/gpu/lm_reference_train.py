#!/usr/bin/env python3
"""PyTorch-Python twin of scalestudy-lm's training step, for the LM side by side.

The model is nanoGPT's (karpathy/nanoGPT model.py with bias=True, dropout 0): token and
learned position embeddings, pre-norm blocks of causal self-attention (one c_attn
projection, F.scaled_dot_product_attention with is_causal=True) and a tanh-GELU MLP, a final
LayerNorm and the head tied to the token embedding; ../cpu/reference_models.Gpt holds it,
and docs/lm.md ("Operators against nanoGPT") compares its operators with nanoGPT's one by
one. The step is nanoGPT's bench.py's: bf16 autocast (or fp32), the loss cross entropy of
the logits (in fp32), backward, then AdamW in one fused kernel (`fused=True`; foreach where
this torch has no fused AdamW for the device; the JSON names it), with scalestudy-lm's
default hyperparameters (lr, betas 0.9/0.999, eps 1e-8, weight decay 0.01 on every
parameter; nanoGPT's 0.95 and its two decay groups change no kernel's cost). Tokens: random
windows of seq_len + 1 tokens drawn from a synthetic split already on the device, as
scalestudy-lm --dataset synthetic --data-on-device true. Optional torch.compile (nanoGPT's
--compile=True is mode default).

Throughput is tokens over the measured window's wall time, the device drained at both ends
(as the C++ side measures it). Prints one JSON line: {"tokens_per_s", "step_ms",
"flops_per_token", "parameters", "optimizer", "device", "torch_version"}.

  lm_reference_train.py --device cuda --preset small --batch-size 16 --precision bf16 \\
      [--compile default] [--steps 50] [--warmup-steps 10]
"""
import argparse
import contextlib
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cpu"))
from reference_models import Gpt  # noqa: E402

# workloads/lm/gpt_config.cpp's presets on synthetic tokens: (n_layer, n_head, d_model,
# seq_len, vocab). GPT-2 small's vocabulary is padded to 50,304, as nanoGPT pads it.
PRESETS = {"tiny": (4, 4, 128, 128, 256), "small": (12, 12, 768, 1024, 50304)}
SYNTHETIC_SAMPLES = 4096


def flops_per_token(model, n_layer, d_model, seq_len):
    """PaLM's training FLOPs per token, 6 N + 12 L d T (harness/models: the LM's rule)."""
    parameters = sum(p.numel() for p in model.parameters())
    return 6 * parameters + 12 * n_layer * d_model * seq_len, parameters


def adamw(parameters, device):
    """(torch.optim.AdamW with scalestudy-lm's defaults, "fused" | "foreach")."""
    options = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}
    try:
        return torch.optim.AdamW(parameters, fused=True, **options), "fused"
    except (RuntimeError, TypeError, ValueError):  # no fused AdamW for this device or torch
        return torch.optim.AdamW(parameters, foreach=True, **options), "foreach"


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="small")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--precision", choices=["bf16", "fp32"], default="bf16")
    parser.add_argument("--compile", default="none", help="none | a torch.compile mode")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup-steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    n_layer, n_head, d_model, seq_len, vocab = PRESETS[args.preset]
    model = Gpt(n_layer=n_layer, n_head=n_head, d_model=d_model, seq_len=seq_len,
                vocab=vocab).to(device)
    flops, parameters = flops_per_token(model, n_layer, d_model, seq_len)
    optimizer, optimizer_kind = adamw(model.parameters(), device)
    step_model = model if args.compile == "none" else torch.compile(model, mode=args.compile)
    split = torch.randint(vocab, (SYNTHETIC_SAMPLES, seq_len + 1), device=device)
    autocast = (torch.autocast(device.type, dtype=torch.bfloat16)
                if args.precision == "bf16" else contextlib.nullcontext())

    def step():
        windows = split.index_select(
            0, torch.randint(SYNTHETIC_SAMPLES, (args.batch_size,), device=device))
        inputs, targets = windows[:, :-1], windows[:, 1:]
        with autocast:
            logits = step_model(inputs)
        loss = F.cross_entropy(logits.float().view(-1, vocab), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    for _ in range(args.warmup_steps):
        step()
    synchronize(device)
    step_s = []
    started = time.perf_counter()
    for _ in range(args.steps):
        before = time.perf_counter()
        step()
        step_s.append(time.perf_counter() - before)
    synchronize(device)
    wall_s = time.perf_counter() - started
    print(json.dumps({
        "tokens_per_s": args.steps * args.batch_size * seq_len / wall_s,
        "step_ms": 1000 * wall_s / args.steps,
        "host_step_ms_median": 1000 * statistics.median(step_s),
        "flops_per_token": flops, "parameters": parameters, "optimizer": optimizer_kind,
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "torch_version": torch.__version__}))


if __name__ == "__main__":
    main()
