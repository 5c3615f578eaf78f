"""`hydra/launcher=vmap`: a sweep of `python -m warmjax.run -m` as few compiled programs.

    python -m warmjax.run -m +experiment=fixed_c4 profile=quick \
        warmstart.iprime=1,3,5,7,9 seed=0,1,2,3,4,5,6,7 hydra/launcher=vmap

Hydra composes every job of the sweep as usual (its folder, its overrides), but instead of
running the jobs one by one the launcher groups those that share one compiled program —
they differ only in the seed and I′ (`warmjax.train.group.program_key`) — at most
`hydra.launcher.max_runs` per group, and trains each group with
`warmjax.train.loop.train_group`: one vmapped iteration for all its runs, each run keeping
its own folder, metrics, checkpoints and network. Rerunning the command resumes every group.
"""

# No `from __future__ import annotations` here: Hydra's plugin scan executes this module
# outside sys.modules, where a dataclass cannot resolve string annotations.
import dataclasses
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from hydra.core.config_store import ConfigStore
from hydra.core.utils import JobReturn, JobStatus, filter_overrides, run_job, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, open_dict

log = logging.getLogger(__name__)


@dataclasses.dataclass
class VmapLauncherConf:
    _target_: str = "hydra_plugins.warmjax_vmap_launcher.vmap_launcher.VmapLauncher"
    # Most runs per compiled program; null: 32 on an accelerator, 1 on a CPU (lone runs: on
    # two CPU cores a vmapped group of three quick Gobang runs took about 100 s per
    # iteration against 8-11 s per run alone, results.md §5).
    max_runs: Optional[int] = None
    # Train the sweep seed by seed (every run of the lowest seed first, in the sweep's order),
    # so that a study stopped part-way leaves complete seed blocks behind.
    seed_major: bool = False


ConfigStore.instance().store(group="hydra/launcher", name="vmap", node=VmapLauncherConf,
                             provider="warmjax")


class VmapLauncher(Launcher):
    """Groups a sweep's runs by compiled program and trains each group as one."""

    def __init__(self, max_runs: Optional[int] = None, seed_major: bool = False) -> None:
        super().__init__()
        self.max_runs = max_runs
        self.seed_major = seed_major
        self.config: DictConfig | None = None
        self.task_function: TaskFunction | None = None
        self.hydra_context: HydraContext | None = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction,
              config: DictConfig) -> None:
        self.config = config
        self.hydra_context = hydra_context
        self.task_function = task_function

    def launch(self, job_overrides: Sequence[Sequence[str]],
               initial_job_idx: int) -> Sequence[JobReturn]:
        from warmjax import cli
        from warmjax.run import check_job, override_keys, warn_paper_on_cpu
        from warmjax.train.group import groups, seed_major
        from warmjax.train.loop import train, train_group
        from warmjax.train.run_config import ConfigError

        setup_globals()
        assert self.config is not None and self.hydra_context is not None
        Path(str(self.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)

        def collect(cfg: DictConfig):
            try:
                return check_job(cfg, override_keys())
            except ConfigError as err:
                cli.fail(err, "run")

        # Hydra sets up each job (its folder, its runtime config); the job itself only turns
        # its config into a RunConfig, which the groups below then train.
        returns: list[JobReturn] = []
        for offset, overrides in enumerate(job_overrides):
            index = initial_job_idx + offset
            sweep_config = self.hydra_context.config_loader.load_sweep_config(
                self.config, list(overrides))
            with open_dict(sweep_config):
                sweep_config.hydra.job.id = index
                sweep_config.hydra.job.num = index
            returns.append(run_job(hydra_context=self.hydra_context, task_function=collect,
                                   config=sweep_config, job_dir_key="hydra.sweep.dir",
                                   job_subdir_key="hydra.sweep.subdir",
                                   configure_logging=False))
        configs = [ret.return_value for ret in returns]
        confirm = bool(self.config.get("confirm_paper_on_cpu", True))
        import jax

        limit = self.max_runs or (1 if jax.default_backend() == "cpu" else 32)
        order = seed_major(configs) if self.seed_major else list(range(len(configs)))
        for grouped in groups([configs[i] for i in order], limit):
            members = [order[j] for j in grouped]
            runs = [configs[i] for i in members]
            names = ", ".join(" ".join(filter_overrides(returns[i].overrides)) or "(defaults)"
                              for i in members)
            print(f"group of {len(runs)} runs: {names}", flush=True)
            try:
                go_on = warn_paper_on_cpu(runs[0], confirm)
            except ConfigError as err:
                cli.fail(err, "run")
            if not go_on:
                print("stopped; nothing was run.")
                return returns
            try:
                if len(runs) == 1:
                    train(runs[0])  # the plain iteration, with its stage clock
                else:
                    train_group(runs)
            except Exception as err:  # noqa: BLE001 - reported per job, as Hydra does
                for i in members:
                    returns[i].status = JobStatus.FAILED
                    returns[i].return_value = err
        return returns
