"""A training loop in the style of nanoGPT's train.py: defaults as module globals,
overridden by `--key=value` arguments through a configurator that rejects anything else
(a bare `--key value` fails its assertion), an output folder of its own (`out_dir`), and
only a step time printed on rank 0: `iter N: loss L, time T.TTms`. Standard library only;
the "training step" sleeps, so a run takes a fraction of a second."""
import os
import sys
import time
from ast import literal_eval

# -----------------------------------------------------------------------------
out_dir = "out"
batch_size = 12
block_size = 1024
max_iters = 6
step_sleep_s = 0.01
compile = True
# -----------------------------------------------------------------------------
config_keys = [k for k, v in globals().items() if not k.startswith("_") and isinstance(v, (int, float, bool, str))]
for arg in sys.argv[1:]:
    assert arg.startswith("--"), f"unexpected argument {arg!r} (configurator takes --key=value)"
    assert "=" in arg, f"{arg!r}: expected --key=value"
    key, val = arg[2:].split("=", 1)
    assert key in config_keys, f"unknown config key {key!r}"
    try:
        attempt = literal_eval(val)
    except (SyntaxError, ValueError):
        attempt = val
    assert type(attempt) == type(globals()[key]), f"{key}: {attempt!r} is not a {type(globals()[key]).__name__}"
    globals()[key] = attempt

rank = int(os.environ.get("RANK", "0"))
world_size = int(os.environ.get("WORLD_SIZE", "1"))
if rank == 0:
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.txt"), "w") as config:
        config.write(f"batch_size={batch_size} block_size={block_size} world_size={world_size}\n")
for iter_num in range(max_iters):
    t0 = time.time()
    time.sleep(step_sleep_s)
    dt = time.time() - t0
    if rank == 0:
        print(f"iter {iter_num}: loss {4.0 / (iter_num + 1):.4f}, time {dt * 1000:.2f}ms", flush=True)
