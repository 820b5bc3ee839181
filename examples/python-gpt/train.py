"""A small decoder-only GPT on byte-level text, with PyTorch DDP or FSDP2: a plain training
script measured by scalestudy (examples/python-gpt/recorded.yaml).

The model: token and learned position embeddings, pre-norm blocks of causal self-attention
(F.scaled_dot_product_attention with is_causal=True) and a GELU MLP, a final LayerNorm and
an output head tied to the token embedding. Tokens are bytes (vocabulary 256). The default
shape is scalestudy-lm's `tiny` preset (4 layers, 4 heads, d_model 128, 128-byte context:
842,496 parameters), so the two can be set side by side.

The data: Debian's `fortunes` package, every regular file (not a symlink) directly in
--data-root (default /usr/share/games/fortunes) whose name has no '.', in sorted order; the
first 90% of each file's bytes is training text, the rest validation. --synthetic trains on
uniformly random bytes instead (no files read; the loss then cannot fall below ln 256).
Each rank draws its own random windows of --seq-len + 1 bytes from the training text;
validation is a fixed set of --val-windows windows spread evenly over the validation text,
split across the ranks (the same windows at every scale when the count divides).

Launch it like any torch.distributed script (torchrun, srun, or scalestudy, which sets RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT for every rank):

    torchrun --nproc_per_node 2 train.py --parallel ddp --steps 200 --batch-size 8

One rank trains without a process group; several use gloo on CPU (NCCL on GPUs) with
--parallel ddp (DistributedDataParallel) or --parallel fsdp2 (torch.distributed.fsdp.
fully_shard on every block and on the whole model, over a 1-D device mesh). FSDP2 needs
torch >= 2.6; where it cannot be imported the script says so and trains with DDP. Runs on
torch >= 2.0; an older torch (Debian's python3-torch is 1.13) gets the same causal
attention written out (masked softmax) and DDP only, with a note.

What it measures (warm-up steps, --warmup-steps, left out):
- tokens/s, global: every rank's measured tokens over the slowest rank's measured time
  (the sum of its step times); per rank: this rank's tokens over its own time;
- step time: median over the measured steps;
- FLOPs per token, the rule of PaLM (Chowdhery et al. 2022, "PaLM: Scaling Language
  Modeling with Pathways", appendix B, model FLOPs utilization):

      training FLOPs per token = 6 N + 12 L H Q T = 6 N + 12 n_layer d_model seq_len

  N: the trainable parameters, each counted once (the tied embedding and head once; the
  position table, a lookup, included); L: layers; H Q = d_model (heads x head size);
  T: sequence length. 6 N is a forward and a backward matrix multiply per parameter, 12 L H Q
  T the attention's QK^T and AV products. Per sample (one sequence) it is T times that.
- with --peak-tflops P (the device's dense peak at the run's precision, TFLOP/s per rank):
  achieved TFLOP/s per rank = FLOPs per token x global tokens/s / world size / 1e12, and MFU
  = achieved / P. There is no CPU peak to default to, so without P neither is given.

Rank 0 prints one line per evaluation (every --eval-interval steps and after the last):
    step 100/200 | loss 3.3013 | val loss 3.3066 | 20081 tok/s | step 91.54 ms
every rank one line at the end,
    [rank 1] step time 99.04 ms | 8010 tok/s
and rank 0 the result:
    tokens/s 16013.2 (8006.6 per rank) | step time 100.46 ms | 842496 parameters | ...

With --record it writes its run database through python/scalestudy_record.py: per-step
phase times (data, forward, backward, optimizer; DDP's all-reduce overlaps the backward and
FSDP2's gathers and reductions sit inside forward and backward), one `epochs` row per
evaluation interval (val_loss, samples_per_s in sequences/s), and the summary:
- samples_per_s (sequences/s, global) and step_ms_median, as the report reads them;
- tokens_per_s (= samples_per_s x seq_len), tokens_per_s_per_rank (tokens_per_s / ranks, as
  scalestudy-lm records it), rank_tokens_per_s (this rank's tokens over its own time);
- tokens_per_sample (= seq_len), train_flops_per_sample (= the rule per token x seq_len),
  forward_flops (a third of it: what the report's ceilings multiply by 3), parameters;
- per_rank_batch, global_batch, final_val_loss, first_train_loss, final_train_loss,
  gradient_bytes (DDP); with --peak-tflops also peak_tflops, achieved_tflops and mfu;
- with --calibrate true (the default) ceiling_gemm_tflops: the best rate of a 512x512
  float32 matrix multiply on this rank (8192 on a GPU), as scalestudy's own workloads
  measure it, and calibration_s, so the report's ceilings table shows the achieved TFLOP/s.
"""

import argparse
import contextlib
import gc
import math
import os
import statistics
import sys
import time
import warnings

# The pip wheel warns on import when numpy is absent; nothing here uses numpy.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

VOCAB = 256
TRAIN_FRACTION = 0.9


def parse_bool(text):
    value = str(text).lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError("expected true or false, got %r" % text)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="byte-level GPT with DDP or FSDP2")
    flag = parser.add_argument
    flag("--data-root", default="/usr/share/games/fortunes",
         help="folder of text files (those whose name has no '.')")
    # Boolean flags take an optional value: `--record` and `--record true` (as a study
    # passes parameters) mean the same.
    flag("--synthetic", type=parse_bool, nargs="?", const=True, default=False,
         help="random bytes instead of --data-root")
    flag("--parallel", choices=("ddp", "fsdp2"), default="ddp")
    flag("--n-layer", type=int, default=4)
    flag("--n-head", type=int, default=4)
    flag("--d-model", type=int, default=128)
    flag("--seq-len", type=int, default=128)
    flag("--batch-size", "--batch", type=int, default=16, help="sequences per rank and step")
    flag("--steps", type=int, default=200)
    flag("--lr", type=float, default=1e-3)
    flag("--warmup-steps", type=int, default=3, help="first steps left out of the figures")
    flag("--eval-interval", type=int, default=50, help="steps between validations")
    flag("--val-windows", type=int, default=128, help="validation sequences, all ranks")
    flag("--threads", type=int, default=1, help="intra-op threads per rank on a CPU")
    flag("--seed", type=int, default=0)
    flag("--peak-tflops", type=float, default=0.0,
         help="dense peak TFLOP/s of one device at the run's precision: gives MFU")
    flag("--calibrate", type=parse_bool, nargs="?", const=True, default=True,
         help="measure this rank's matrix-multiply ceiling before training")
    flag("--record", type=parse_bool, nargs="?", const=True, default=False,
         help="write the run database with scalestudy_record")
    args = parser.parse_args(argv)
    if args.d_model % args.n_head:
        parser.error("--d-model %d is not a multiple of --n-head %d" % (args.d_model, args.n_head))
    for name in ("n_layer", "n_head", "d_model", "seq_len", "batch_size", "steps",
                 "eval_interval", "val_windows", "threads"):
        if getattr(args, name) < 1:
            parser.error("--%s must be at least 1" % name.replace("_", "-"))
    if not 0 <= args.warmup_steps < args.steps:
        parser.error("--warmup-steps must be in [0, --steps)")
    return args


# ---- data ---------------------------------------------------------------------------

def corpus_files(root):
    """The corpus: regular files (not symlinks) directly in `root` without '.' in the name,
    sorted (the fortunes package's text files; its .dat indexes and .u8 links fall out)."""
    names = sorted(name for name in os.listdir(root) if "." not in name)
    paths = [os.path.join(root, name) for name in names]
    return [path for path in paths if os.path.isfile(path) and not os.path.islink(path)]


def load_corpus(args):
    """(train, val) byte streams as uint8 tensors."""
    if args.synthetic:
        generator = torch.Generator().manual_seed(1234)
        train = torch.randint(0, VOCAB, (1 << 20,), dtype=torch.uint8, generator=generator)
        val = torch.randint(0, VOCAB, (1 << 17,), dtype=torch.uint8, generator=generator)
        return train, val
    files = corpus_files(args.data_root) if os.path.isdir(args.data_root) else []
    if not files:
        raise SystemExit("train.py: no text files (names without '.') in %s; install Debian's "
                         "fortunes package, give --data-root, or --synthetic" % args.data_root)
    train, val = bytearray(), bytearray()
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        cut = int(len(data) * TRAIN_FRACTION)
        train += data[:cut]
        val += data[cut:]
    need = args.seq_len + 1
    if len(train) < need or len(val) < need:
        raise SystemExit("train.py: %s holds too little text for --seq-len %d (train %d, val "
                         "%d bytes)" % (args.data_root, args.seq_len, len(train), len(val)))
    return (torch.frombuffer(train, dtype=torch.uint8).clone(),
            torch.frombuffer(val, dtype=torch.uint8).clone())


def windows(stream, starts, seq_len):
    """Inputs and next-byte targets of the windows beginning at `starts`."""
    index = starts.unsqueeze(1) + torch.arange(seq_len + 1)
    chunk = stream[index].long()
    return chunk[:, :-1], chunk[:, 1:]


# ---- model --------------------------------------------------------------------------

def causal_attention(q, k, v):
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # torch < 2.0: the same computation written out.
    t = q.size(-2)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    mask = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    return scores.masked_fill(~mask, float("-inf")).softmax(-1) @ v


class SelfAttention(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.n_head, d // self.n_head).transpose(1, 2) for z in (q, k, v))
        y = causal_attention(q, k, v)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, n_head)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.proj = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.proj(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, n_layer, n_head, d_model, seq_len):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d_model)
        self.pos = nn.Embedding(seq_len, d_model)
        self.blocks = nn.ModuleList(Block(d_model, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, VOCAB, bias=False)
        self.head.weight = self.tok.weight  # tied
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() >= 2:  # GPT-2's init, the residual projections scaled by depth
                std = 0.02 / math.sqrt(2 * n_layer) if name.endswith("proj.weight") else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.size(1), device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def parameter_count(model):
    """Trainable parameters, each once (model.parameters() yields a tied tensor once)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def train_flops_per_token(n_params, n_layer, d_model, seq_len):
    """PaLM's rule (appendix B): 6 N + 12 L H Q T, with H Q = d_model."""
    return 6 * n_params + 12 * n_layer * d_model * seq_len


def fully_shard_or_none(rank):
    """torch.distributed.fsdp.fully_shard (FSDP2), or None (rank 0 printing why)."""
    try:
        from torch.distributed.fsdp import fully_shard
        return fully_shard
    except Exception as error:  # Debian's torch 1.13 fails inside the import, not with ImportError
        if rank == 0:
            print("train.py: --parallel fsdp2: torch %s has no torch.distributed.fsdp."
                  "fully_shard (%s: %s); training with DDP instead"
                  % (torch.__version__, type(error).__name__, error), file=sys.stderr, flush=True)
        return None


def wrap(model, args, distributed, device):
    """The model under the chosen parallelism, and that parallelism's name."""
    if not distributed:
        return model, "none"
    if args.parallel == "fsdp2":
        fully_shard = fully_shard_or_none(dist.get_rank())
        if fully_shard is not None:
            from torch.distributed.device_mesh import init_device_mesh
            mesh = init_device_mesh(device.type, (dist.get_world_size(),))
            for block in model.blocks:
                fully_shard(block, mesh=mesh)
            fully_shard(model, mesh=mesh)
            return model, "fsdp2"
    use_cuda = device.type == "cuda"
    return DDP(model, device_ids=[device.index] if use_cuda else None), "ddp"


# ---- measuring ----------------------------------------------------------------------

def gemm_ceiling(device):
    """The best rate (TFLOP/s) of n x n float32 matrix multiplies in batches of 2, timed for
    about 25 ms (n = 512 on a CPU, 8192 on a GPU): scalestudy's own calibration."""
    n = 8192 if device.type == "cuda" else 512
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    torch.mm(a, b)
    sync()
    best, spent = 0.0, 0.0
    while spent < 0.025:
        start = time.perf_counter()
        torch.mm(a, b)
        torch.mm(a, b)
        sync()
        seconds = time.perf_counter() - start
        spent += seconds
        best = max(best, 2 * 2 * n ** 3 / seconds / 1e12)
    return best, n


def open_recorder(args, device, backend):
    """scalestudy_record.Run when --record is given (the module lives in python/)."""
    if not args.record:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "python"))
    import scalestudy_record
    return scalestudy_record.Run(workload="python-gpt", config=vars(args), device=str(device),
                                 backend=backend)


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


def all_reduce(values, device, largest=False):
    """`values` summed over the ranks (their maximum when `largest`), as floats."""
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    if dist.is_initialized():
        dist.all_reduce(tensor, op=dist.ReduceOp.MAX if largest else dist.ReduceOp.SUM)
    return tensor.tolist()


@torch.no_grad()
def evaluate(model, val, args, device, rank, world_size):
    """Mean validation loss over this rank's share of the fixed validation windows (every
    rank runs as many batches: FSDP2 gathers inside forward)."""
    model.eval()
    starts = torch.linspace(0, len(val) - args.seq_len - 1, args.val_windows).long()
    share = max(1, args.val_windows // world_size)
    mine = starts[rank * share:(rank + 1) * share]
    if len(mine) < share:  # fewer windows than ranks: repeat the last
        mine = torch.cat([mine, starts[-1:].repeat(share - len(mine))])
    loss_sum = 0.0
    for i in range(0, share, args.batch_size):
        x, y = windows(val, mine[i:i + args.batch_size], args.seq_len)
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss_sum += F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1),
                                    reduction="sum").item()
    model.train()
    total, count = all_reduce([loss_sum, float(share * args.seq_len)], device)
    return total / count


def train(args, model, optimizer, train_data, val, recorder, device, rank, world_size):
    """Trains for args.steps steps; returns the figures the summary reports."""
    generator = torch.Generator().manual_seed(args.seed * 1000 + rank)  # each rank its own
    high = len(train_data) - args.seq_len - 1
    tokens_per_step = args.batch_size * args.seq_len
    step_ms, losses, interval_losses = [], [], []
    first_loss = None
    interval, interval_start, val_loss = 1, time.perf_counter(), float("nan")
    interval_samples, interval_s = 0, 0.0
    for i in range(args.steps):
        warmup = i < args.warmup_steps
        start = time.perf_counter()
        with training_step(recorder, interval, args.batch_size, warmup) as step:
            with step.phase("data"):
                starts = torch.randint(0, high, (args.batch_size,), generator=generator)
                x, y = windows(train_data, starts, args.seq_len)
                x, y = x.to(device), y.to(device)
            with step.phase("forward"):
                logits = model(x)
                loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
            with step.phase("backward"):
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
            with step.phase("optimizer"):
                optimizer.step()
            step.loss = loss.item()
        elapsed = time.perf_counter() - start
        if first_loss is None:
            first_loss = step.loss
        interval_losses.append(step.loss)
        if not warmup:
            step_ms.append(elapsed * 1000)
            interval_samples += args.batch_size
            interval_s += elapsed
        if (i + 1) % args.eval_interval == 0 or i + 1 == args.steps:
            samples = all_reduce([float(interval_samples)], device)[0]
            slowest = all_reduce([interval_s], device, largest=True)[0]
            samples_per_s = samples / slowest if slowest > 0 else 0.0
            train_loss = all_reduce([statistics.mean(interval_losses)], device)[0] / world_size
            val_loss = evaluate(model, val, args, device, rank, world_size)
            losses.append(train_loss)
            if rank == 0:
                print("step %d/%d | loss %.4f | val loss %.4f | %.0f tok/s | step %.2f ms"
                      % (i + 1, args.steps, train_loss, val_loss, samples_per_s * args.seq_len,
                         statistics.median(step_ms) if step_ms else float("nan")), flush=True)
            if recorder:
                recorder.epoch(interval, lr=args.lr, train_loss=train_loss, val_loss=val_loss,
                               samples_per_s=samples_per_s,
                               epoch_s=time.perf_counter() - interval_start)
            interval, interval_start = interval + 1, time.perf_counter()
            interval_samples, interval_s, interval_losses = 0, 0.0, []
    # Over every measured step: all ranks' tokens over the slowest rank's time.
    measured_s = sum(step_ms) / 1000.0
    samples = all_reduce([float(len(step_ms) * args.batch_size)], device)[0]
    slowest = all_reduce([measured_s], device, largest=True)[0]
    first_loss = all_reduce([first_loss], device)[0] / world_size
    return {
        "samples_per_s": samples / slowest,
        "tokens_per_s": samples / slowest * args.seq_len,
        "tokens_per_s_per_rank": samples / slowest * args.seq_len / world_size,
        "rank_tokens_per_s": len(step_ms) * tokens_per_step / measured_s,
        "step_ms_median": statistics.median(step_ms),
        "first_train_loss": first_loss,
        "final_train_loss": losses[-1],
        "final_val_loss": val_loss,
    }


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    distributed = world_size > 1
    use_cuda = torch.cuda.is_available()
    backend = "nccl" if use_cuda else "gloo"
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    else:
        torch.set_num_threads(args.threads)
    if distributed:
        dist.init_process_group(backend)  # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
    rank = dist.get_rank() if distributed else 0
    if rank == 0 and not hasattr(F, "scaled_dot_product_attention"):
        print("train.py: torch %s has no F.scaled_dot_product_attention (torch >= 2.0); "
              "attention is written out" % torch.__version__, file=sys.stderr, flush=True)

    train_data, val = load_corpus(args)
    model = GPT(args.n_layer, args.n_head, args.d_model, args.seq_len).to(device)
    n_params = parameter_count(model)  # before wrapping: FSDP2 shards the parameters
    flops_per_token = train_flops_per_token(n_params, args.n_layer, args.d_model, args.seq_len)
    model, parallel = wrap(model, args, distributed, device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95),
                                  weight_decay=0.0)
    if rank == 0:
        print("python-gpt: %d ranks (%s, %s) | %d parameters | %d layers x %d heads x d_model "
              "%d | seq_len %d | batch %d per rank | %s: %d train, %d val bytes | %.4g FLOPs "
              "per token" % (world_size, parallel, backend if distributed else "no process "
                             "group", n_params, args.n_layer, args.n_head, args.d_model,
                             args.seq_len, args.batch_size, "synthetic" if args.synthetic
                             else args.data_root, len(train_data), len(val), flops_per_token),
              flush=True)

    calibration = {}
    if args.calibrate:
        start = time.perf_counter()
        gemm_tflops, gemm_size = gemm_ceiling(device)
        calibration = {"ceiling_gemm_tflops": gemm_tflops, "ceiling_gemm_size": gemm_size,
                       "calibration_s": time.perf_counter() - start}

    recorder = open_recorder(args, device, backend if distributed else "none")
    try:
        figures = train(args, model, optimizer, train_data, val, recorder, device, rank,
                        world_size)
        achieved = flops_per_token * figures["tokens_per_s"] / world_size / 1e12
        print("[rank %d] step time %.2f ms | %.0f tok/s"
              % (rank, figures["step_ms_median"], figures["rank_tokens_per_s"]), flush=True)
        if rank == 0:
            line = ("tokens/s %.1f (%.1f per rank) | step time %.2f ms | %d parameters | "
                    "%.4g FLOPs/token | loss %.4f -> %.4f | val loss %.4f"
                    % (figures["tokens_per_s"], figures["tokens_per_s"] / world_size,
                       figures["step_ms_median"], n_params, flops_per_token,
                       figures["first_train_loss"], figures["final_train_loss"],
                       figures["final_val_loss"]))
            if args.peak_tflops > 0:
                line += " | %.4g TFLOP/s per rank | MFU %.2f%%" % (
                    achieved, 100 * achieved / args.peak_tflops)
            print(line, flush=True)
        if recorder:
            summary = dict(figures, **calibration)
            summary.update(
                tokens_per_sample=args.seq_len,
                train_flops_per_sample=flops_per_token * args.seq_len,
                forward_flops=flops_per_token * args.seq_len / 3,
                parameters=n_params,
                per_rank_batch=args.batch_size,
                global_batch=args.batch_size * world_size)
            if parallel == "ddp":
                summary["gradient_bytes"] = n_params * 4  # float32, all-reduced every step
            if args.peak_tflops > 0:
                summary.update(peak_tflops=args.peak_tflops, achieved_tflops=achieved,
                               mfu=achieved / args.peak_tflops)
            recorder.summary(**summary)
            recorder.add_provenance({"parallel": parallel})
            recorder.completed()
    except BaseException as error:
        if recorder:
            recorder.failed("%s: %s" % (type(error).__name__, error))
        raise
    if distributed:
        # DDP's reducer sits in reference cycles and holds the process group: left to the
        # interpreter's exit, gloo's teardown aborted a rank (torch 2.11, "terminate called
        # without an active exception") or hung it (1.13) in about half of the 2-rank runs.
        # Free it now, and let every rank pass its last collective before any tears down.
        del model, optimizer
        gc.collect()
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
