"""A trainer configured by a TOML file, in the style of torchtitan: `--job.config_file
run.toml`, every setting in the file's tables ([job], [training], [metrics]), figures
written by rank 0 as JSON lines to the folder the file names. Standard library only
(tomllib, Python 3.11)."""
import argparse
import json
import os
import time
import tomllib

parser = argparse.ArgumentParser()
parser.add_argument("--job.config_file", dest="config_file", required=True)
args = parser.parse_args()
with open(args.config_file, "rb") as file:
    config = tomllib.load(file)

rank = int(os.environ.get("RANK", "0"))
world_size = int(os.environ.get("WORLD_SIZE", "1"))
training = config["training"]
assert config["job"]["description"], "a run needs a description"
log = None
if rank == 0:
    os.makedirs(config["metrics"]["folder"], exist_ok=True)
    log = open(os.path.join(config["metrics"]["folder"], "metrics.jsonl"), "w")
for step in range(training["steps"]):
    t0 = time.time()
    time.sleep(training["step_sleep_s"])
    dt = time.time() - t0
    if log:
        samples = training["local_batch_size"] * world_size
        log.write(json.dumps({"step": step, "samples_per_s": samples / dt}) + "\n")
if log:
    log.close()
