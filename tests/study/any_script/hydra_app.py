"""A Hydra application in the usual shape: a structured config in conf/config.yaml,
overrides on the command line (`model.n_layer=4`, `+extra.seed=3` for a key the config
does not have), and metrics written as JSON lines by rank 0 to `metrics.jsonl` in the
working directory Hydra gives the run (hydra.run.dir). Prints nothing to measure."""
import json
import os
import time

import hydra
from omegaconf import DictConfig, OmegaConf


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    rank = int(os.environ.get("RANK", "0"))
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    run_dir = hydra.core.hydra_config.HydraConfig.get().runtime.output_dir
    if rank == 0:
        with open(os.path.join(run_dir, "resolved.yaml"), "w") as resolved:
            resolved.write(OmegaConf.to_yaml(cfg))
    metrics = open(os.path.join(run_dir, "metrics.jsonl"), "w") if rank == 0 else None
    for step in range(cfg.trainer.steps):
        t0 = time.time()
        time.sleep(cfg.trainer.step_sleep_s)
        dt = time.time() - t0
        if metrics:
            samples = cfg.data.batch_size * world_size
            metrics.write(json.dumps({"step": step, "train": {"loss": 1.0 / (step + 1),
                                      "samples_per_s": samples / dt}}) + "\n")
    if metrics:
        metrics.close()


if __name__ == "__main__":
    main()
