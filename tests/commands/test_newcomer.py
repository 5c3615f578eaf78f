"""What a newcomer trips over: every mistake is one `error:` line and exit 2, before anything
trains; no setting makes a silent second copy of a run; Ctrl-C stops at once and resumes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import jax
import pytest

from warmjax.train import run_folder

from ..helpers import ROOT, TEST_CACHE
from .test_run_cli import run_cli

# End to end: trains runs or runs commands (`pytest -m "not slow"` leaves them out).
pytestmark = pytest.mark.slow

SMOKE = ["profile=smoke", "tensorboard=false", "stage_times=false",
         f"compilation_cache={TEST_CACHE}"]


def one_error_line(out, *words):
    assert out.returncode == 2, out.stderr[-2000:]
    lines = [line for line in out.stderr.splitlines() if line.strip()
             and "RuntimeWarning" not in line and "warnings.warn" not in line]
    assert len(lines) == 1 and re.match(r"(\w+: )?error: ", lines[0]), out.stderr[-2000:]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("args, words", [
    (["+experiment=adaptive_c4", "warmstart.iprime=-1"], ["warmstart.iprime", "adaptive"]),
    (["+experiment=baseline_c4", "warmstart.iprime=3"], ["warmstart.iprime", "baseline"]),
    (["+experiment=baseline_c4", "warmstart.enhancement=rave"], ["enhancement"]),
    (["+experiment=adaptive_c4", "seed=-1"], ["seed must be non-negative"]),
    (["+experiment=adaptive", "game=backgammon"], ["chance"]),
    (["+experiment=adaptive", "game.name=kuhn_poker"], ["hidden information"]),
    (["+experiment=adaptive", "game.name=sparrow_mahjong"], ["three players"]),
    (["+experiment=adaptive", "game.name=2048"], ["2048", "one player"]),
])
def test_a_setting_the_run_cannot_use_is_one_line(tmp_path, args, words):
    """A setting the experiment ignores would make a second folder of the same run (which a
    study would count as another seed): it is refused, like an unplayable pgx game."""
    out = run_cli(*args, *SMOKE, f"run_root={tmp_path}", cwd=ROOT)
    one_error_line(out, *words)
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_with_a_bad_job_fails_before_training(tmp_path):
    out = run_cli("-m", "+experiment=fixed_c4", *SMOKE, "warmstart.iprime=1,3",
                  f"run_root={tmp_path}", cwd=ROOT)
    line = one_error_line(out, "job 2 of 2 (warmstart.iprime=3)",
                          "(I′ = 3) exceeds train.iterations", "no job was run")
    assert "profile=smoke" not in line  # the job is named by what the sweep varies
    assert not (tmp_path / "fixed_c4").exists()  # job 1 did not train


def test_a_busy_run_folder_is_one_line(tmp_path):
    folder = tmp_path / "adaptive_c4" / "profile=smoke,stage_times=false,tensorboard=false"
    folder.mkdir(parents=True)
    held = run_folder.lock(folder)  # another process is training here
    try:
        out = run_cli("+experiment=adaptive_c4", *SMOKE, f"run_root={tmp_path}", cwd=ROOT)
    finally:
        held.close()
    one_error_line(out, "another process is training in")


def test_paper_scale_on_a_cpu_without_a_terminal_does_not_start(tmp_path):
    """About 229 hours: refused in one line naming profile=fast (the main job's), and no
    folder left."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-m", "warmjax.run", "+experiment=adaptive_c4",
                          f"run_root={tmp_path}"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600, stdin=subprocess.DEVNULL)
    one_error_line(out, "profile=fast", "confirm_paper_on_cpu=false", "hours")
    assert list(tmp_path.iterdir()) == []
    # From a fresh folder, with the default run_root: not even an empty runs/ is left.
    out = subprocess.run([sys.executable, "-m", "warmjax.run", "+experiment=adaptive_c4"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
                         stdin=subprocess.DEVNULL)
    one_error_line(out, "profile=fast")
    assert list(tmp_path.iterdir()) == []


def test_declining_in_a_terminal_leaves_no_folder(tmp_path, monkeypatch):
    from hydra import compose, initialize_config_dir

    from warmjax import run

    monkeypatch.setattr(run, "estimate_paper_seconds", lambda c: 229 * 3600.0)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    folder = tmp_path / "adaptive_c4" / "default"
    folder.mkdir(parents=True)  # what Hydra made before the question
    with initialize_config_dir(config_dir=run.CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            "+experiment=adaptive_c4", f"run_root={tmp_path}", f"run_dir={folder}"])
    run.main(cfg)
    assert not folder.exists() and not (tmp_path / "adaptive_c4").exists()


def test_ctrl_c_stops_at_once_keeps_the_checkpoint_and_resumes(tmp_path):
    args = ["+experiment=adaptive_c4", *SMOKE, "train.iterations=400", "train.games=16",
            f"run_root={tmp_path}"]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.Popen([sys.executable, "-m", "warmjax.run", *args], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    folder = tmp_path / "adaptive_c4" / ("profile=smoke,stage_times=false,tensorboard=false,"
                                         "train.games=16")
    def rows():  # complete lines only: the run may be writing the next one
        path = folder / "metrics.jsonl"
        return path.read_text().count("\n") if path.exists() else 0

    deadline = time.time() + 600
    while time.time() < deadline and rows() < 2 and proc.poll() is None:
        time.sleep(0.5)
    assert rows() >= 2, "the run did not get going"  # Ctrl-C then meets a training run
    tic = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert time.perf_counter() - tic < 10  # within a few seconds, not after the iteration
    assert proc.returncode == 2
    (line,) = [x for x in err.splitlines() if x.strip()]
    assert line.startswith("interrupted:") and "run the same command again to resume" in line
    done = int(re.search(r"saved after iteration (\d+)", line).group(1))
    assert done >= 2 and (folder / "checkpoints" / f"state_{done:06d}.ckpt").exists()
    assert not (folder / "checkpoints" / f"state_{done + 1:06d}.ckpt").exists()
    # The same command resumes (two more iterations here).
    again = run_cli(*[a.replace("train.iterations=400", f"train.iterations={done + 2}")
                      for a in args], cwd=ROOT)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"resuming {folder} after iteration {done} of {done + 2}\n" in again.stdout
    assert [r.iteration for r in run_folder.read_metrics(folder)] == list(range(1, done + 3))


def test_the_report_refuses_two_folders_of_one_run(tmp_path):
    """The exact case: an adaptive run, and the same run made again under another name
    (`warmstart.iprime=-1` before it was refused). The report says so in one line."""
    from warmjax.analysis.report import write_study

    from ..analysis.synthetic import write_run

    study = tmp_path / "study"
    write_run(study, "none", "rollout", 0, 0.0)
    write_run(study, "adaptive", "wrora", 0, 0.05)
    write_run(study, "adaptive", "wrora", 0, 0.05, iprime=-1)  # the same run, renamed
    with pytest.raises(ValueError, match="hold the same run .*two seeds"):
        write_study([str(study)], str(tmp_path / "report"), log=lambda _: None)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-m", "warmjax.report", "--study", str(study),
                          "--out", str(tmp_path / "r")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    one_error_line(out, "hold the same run")


@pytest.mark.parametrize("command, args, words", [
    ("versus", ["--simulations", "-3"], ["--simulations must be at least 1"]),
    ("versus", ["--opponents", "nobody"], ["invalid choice: 'nobody'"]),
    ("oracle", ["--simulations", "-3"], ["--simulations must be at least 1"]),
    ("play", ["--simulations", "-3"], ["--simulations must be at least 1"]),
])
def test_evaluation_commands_check_their_arguments_before_loading(tmp_path, command, args,
                                                                  words):
    from ..helpers import write_tiny_run

    run = write_tiny_run(tmp_path / "run")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    tic = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", f"warmjax.{command}", str(run), *args],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                         stdin=subprocess.DEVNULL)
    line = one_error_line(out, *words)
    assert line.startswith(f"{command}: error:")
    assert time.perf_counter() - tic < 30  # no network loaded, nothing compiled


def test_save_svg_draws_go_at_any_size(tmp_path):
    """pgx's visualiser knows Go only at 9×9 and 19×19; the env draws 7×7 itself: after
    black a1, white b2, black c3 there are two black stones and one white."""
    from warmjax.games import make

    env = make("go", size=7)
    state = env.init(jax.random.PRNGKey(0))
    for action in (0, 8, 16):
        state = env.step(state, action)
    env.save_svg(state, tmp_path / "go7.svg")
    text = (tmp_path / "go7.svg").read_text()
    assert text.count('fill="black"') == 2 and text.count('fill="white"') == 1
    env9 = make("go", size=9)
    env9.save_svg(env9.init(jax.random.PRNGKey(0)), tmp_path / "go9.svg")  # pgx's drawing
    assert (tmp_path / "go9.svg").read_text().startswith("<?xml") or "<svg" in \
        (tmp_path / "go9.svg").read_text()
    with pytest.raises(ValueError, match="must end with .svg"):
        env.save_svg(state, tmp_path / "go7.png")


EXPERIMENTS = sorted(p.stem for p in (ROOT / "warmjax" / "conf" / "experiment").glob("*.yaml"))


def test_the_smoke_profile_takes_every_shipped_experiment(tmp_path):
    """The twelve experiments (the papers' nine short names and the three generic ones)
    compose and validate at smoke scale: I′ fits in its two iterations."""
    from ..helpers import compose_config

    assert len(EXPERIMENTS) == 12
    for name in EXPERIMENTS:
        config = compose_config([f"+experiment={name}", "profile=smoke"], tmp_path / name)
        assert config.train.iterations == 2 and config.profile_name == "smoke"
        if config.warmstart.mode == "fixed":
            assert config.warmstart.iprime <= config.train.iterations


@pytest.mark.parametrize("name", ["fixed_gobang"])
def test_the_smoke_profile_trains_the_fixed_experiments(tmp_path, name):
    """The experiments the smoke profile used to refuse (I′ = 5 in two iterations) train;
    one game here (fixed_c4 at smoke scale trains in test_warmstart.py, and the twelve
    names compose and validate above), for the suite's time."""
    from warmjax.train.loop import train

    from ..helpers import compose_config

    config = compose_config([f"+experiment={name}", *SMOKE], tmp_path)
    train(config, log=lambda _: None, stop_after=1)
    (row,) = run_folder.read_metrics(tmp_path)
    assert row.warmstart_active and row.weight == 1.0  # I′ = 1: w = 1 − 0/1


def test_ctrl_c_anywhere_is_one_line_exit_2_and_leaves_no_empty_folder(tmp_path):
    """Ctrl-C at play's prompt, and in a run's first seconds (compiling, before its first
    checkpoint): one `<command>: interrupted` line, exit 2, no traceback, and the run folder
    Hydra made is gone with the files the run wrote into it."""
    from ..helpers import write_tiny_run

    env = dict(os.environ, JAX_PLATFORMS="cpu")
    agent = write_tiny_run(tmp_path / "agent", "connect_four")
    proc = subprocess.Popen([sys.executable, "-m", "warmjax.play", str(agent)], cwd=ROOT,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert "you are X" in proc.stdout.readline()  # at the prompt now
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (2, "play: interrupted\n")

    # No compilation cache, so that the signal meets the compiling run: once at once after
    # the run's first line (building the trainer, or already taking the folder: which one
    # depends on the machine's load), once when the folder holds the new run's files (the
    # iteration compiling). Both leave nothing behind.
    uncached = {k: v for k, v in env.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    runs = tmp_path / "runs"
    for wait_for_files in (False, True):
        proc = subprocess.Popen([sys.executable, "-m", "warmjax.run", "+experiment=adaptive_c4",
                                 "profile=smoke", "tensorboard=false", "compilation_cache=null",
                                 "train.iterations=400", f"run_root={runs}"],
                                cwd=ROOT, env=uncached, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout.readline().startswith("run folder: ")
        deadline = time.time() + 300
        while wait_for_files and not list(runs.glob("adaptive_c4/*/config.yaml")):
            assert time.time() < deadline and proc.poll() is None, "the run took no folder"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert (proc.returncode, err) == (2, "run: interrupted\n")
        assert not (runs / "adaptive_c4").exists()


@pytest.mark.parametrize("closed", ["reader died", "stdout closed"])
def test_ctrl_c_through_a_dead_pipe_is_one_line_and_exit_2(tmp_path, closed):
    """`python -m warmjax.run … 2>&1 | tee log`, then Ctrl-C in a terminal: the terminal's
    Ctrl-C ends `tee` first, so the run's last line goes to a pipe nobody reads. The process
    still ends at once with exit 2 (it used to sleep for ever, its Ctrl-C watcher dead of a
    BrokenPipeError while holding the exit lock). Also with stdout closed outright."""
    args = ["+experiment=adaptive_c4", *SMOKE, "train.iterations=400", "train.games=64",
            f"run_root={tmp_path}"]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    if closed == "reader died":
        proc = subprocess.Popen([sys.executable, "-m", "warmjax.run", *args], cwd=ROOT,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    else:
        proc = subprocess.Popen(["bash", "-c", 'exec "$@" >&- 2>&-', "_", sys.executable,
                                 "-m", "warmjax.run", *args], cwd=ROOT, env=env)
    folder = tmp_path / "adaptive_c4" / ("profile=smoke,stage_times=false,tensorboard=false,"
                                         "train.games=64")
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None and not (
            folder / "metrics.jsonl").exists():
        time.sleep(0.2)
    assert proc.poll() is None, "the run ended before the signal"
    if proc.stdout is not None:
        proc.stdout.close()  # the reader dies first
    tic = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert time.perf_counter() - tic < 10
    assert proc.returncode == 2


def test_a_ctrl_c_just_before_a_normal_exit_still_exits_2():
    """A Ctrl-C whose handling has not started when the main thread ends normally (at the end
    of piped input, which a Ctrl-C'd pipeline closes) still ends the process its way: the
    line and exit 2, not the main thread's 0 (a race a loaded machine lost in play)."""
    code = ("import os, signal, sys\n"
            "from warmjax import cli\n"
            "cli.exit_quietly_on_interrupt('demo')\n"
            "os.kill(os.getpid(), signal.SIGINT)\n"
            "sys.exit(0)\n")
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                              text=True, timeout=60, env=dict(os.environ, JAX_PLATFORMS="cpu"))
        assert (done.returncode, done.stderr) == (2, "demo: interrupted\n")


def test_run_dir_leaves_no_second_folder_and_a_refused_one_nothing(tmp_path):
    """`run_dir=DIR`: Hydra's own folder (named after the overrides, under
    runs/<experiment>/) used to be made beside DIR every time, even for a refused
    configuration; now the run's folder is DIR alone, and a refused configuration leaves
    nothing. An unwritable DIR is one line."""
    root, target = tmp_path / "root", tmp_path / "mine"
    out = run_cli("+experiment=fixed_c4", *SMOKE, "warmstart.iprime=500", f"run_root={root}",
                  f"run_dir={target}", cwd=ROOT)
    one_error_line(out, "exceeds train.iterations")
    assert not target.exists() and not root.exists()
    made = tmp_path / "made"
    made.mkdir()  # a folder the user made stays, even empty
    out = run_cli("+experiment=fixed_c4", *SMOKE, "warmstart.iprime=500", f"run_root={root}",
                  f"run_dir={made}", cwd=ROOT)
    one_error_line(out, "exceeds train.iterations")
    assert made.is_dir() and not root.exists()
    out = run_cli("+experiment=adaptive_c4", *SMOKE, f"run_root={root}",
                  "run_dir=/proc/warmjax_run", cwd=ROOT)
    one_error_line(out, "run_dir: cannot write /proc/warmjax_run")
    out = run_cli("+experiment=adaptive_c4", *SMOKE, "train.iterations=1", f"run_root={root}",
                  f"run_dir={target}", cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (target / "metrics.jsonl").exists() and not root.exists()


def test_sigterm_during_the_first_compile_is_ctrl_c(tmp_path):
    """`timeout` or `kill` (SIGTERM) before the first checkpoint: the same line and exit 2
    as Ctrl-C, and the run folder with the files it wrote is gone."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    env["JAX_PLATFORMS"] = "cpu"
    runs = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "warmjax.run", "+experiment=adaptive_c4",
                             "profile=smoke", "tensorboard=false", "compilation_cache=null",
                             "train.iterations=400", f"run_root={runs}"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 300
    while not list(runs.glob("adaptive_c4/*/config.yaml")):
        assert time.time() < deadline and proc.poll() is None, "the run took no folder"
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (2, "run: interrupted\n")
    assert not (runs / "adaptive_c4").exists()


def test_labels_ends_on_a_game_with_fewer_positions_than_asked(tmp_path):
    """Connect Four 4×4 between plies 2 and 3 has a handful of distinct informative
    positions: asking for 500 used to draw for ever ("58 of 200 positions drawn"); now the
    command says how many there are and why, and writes them, all of them: as many as an
    exhaustive walk of every move order finds."""
    import itertools

    from warmjax.perfect.connect_four_solver import Solver
    from warmjax.perfect.positions import ILLEGAL

    env = dict(os.environ, JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-m", "warmjax.labels", "--count", "500", "--rows",
                          "4", "--cols", "4", "--min-ply", "2", "--max-ply", "3", "--out",
                          str(tmp_path / "t.json")], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    found = re.search(r"only (\d+) of 500 positions: the game has no more distinct "
                      r"informative positions", out.stdout)
    assert found, out.stdout[-2000:]
    saved = json.loads((tmp_path / "t.json").read_text())
    solver = Solver(4, 4, 4)
    boards = {}
    for plies in (2, 3):
        for moves in itertools.product(range(4), repeat=plies):
            boards.setdefault(tuple(int(x) for x in solver.position(list(moves))[:2]),
                              list(moves))
    informative = 0
    for moves in boards.values():
        values = solver.move_values(moves)
        legal = values[values != ILLEGAL]
        informative += not all(legal == legal[0])
    assert int(found.group(1)) == len(saved["positions"]) == informative


@pytest.mark.parametrize("command, args, words", [
    ("versus", ["RUN", "--games", "2", "--out", "/proc/versus.json"],
     "cannot write /proc/versus.json"),
    ("oracle", ["RUN", "--positions", "4", "--out", "/proc/oracle.json"],
     "cannot write /proc/oracle.json"),
    ("oracle", ["RUN", "--benchmark", "pons", "--positions", "2", "--out", "/proc/p.json"],
     "cannot write /proc/p.json"),
    ("tournament", ["RUN", "--out", "/proc/tour"], "cannot write into /proc/tour"),
    ("report", ["--runs", "RUN", "--out", "/proc/report"], "cannot write into /proc/report"),
    ("labels", ["--count", "5", "--out", "/proc/labels.json"],
     "cannot write /proc/labels.json"),
])
def test_no_result_is_lost_to_an_output_path(tmp_path, capsys, command, args, words):
    """An output that cannot be written is refused before the work, in one line (exit 2):
    `versus --out /proc/versus.json` used to play all its games, then fail with a
    traceback and lose them."""
    import importlib

    from ..helpers import write_tiny_run

    run = write_tiny_run(tmp_path / "run", "connect_four")
    main = importlib.import_module(f"warmjax.{command}").main
    tic = time.perf_counter()
    with pytest.raises(SystemExit) as stopped:
        main([str(run) if a == "RUN" else a for a in args])
    assert stopped.value.code == 2
    lines = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert len(lines) == 1 and words in lines[0], lines
    assert time.perf_counter() - tic < 10  # refused before compiling or playing anything


def test_a_run_that_finished_no_iteration_is_said_by_the_report(tmp_path):
    """A run stopped before its first iteration (a config and an empty metrics.jsonl) used
    to be reported without a word; the runs report now says it has no training to draw."""
    from warmjax.analysis.report import write_runs

    from ..analysis.synthetic import write_run

    done = write_run(tmp_path / "runs", "none", "rollout", 0, 0.0)
    stopped = write_run(tmp_path / "runs", "none", "rollout", 1, 0.0)
    (stopped / run_folder.METRICS).write_text("")
    notes = []
    write_runs([str(done), str(stopped)], out=str(tmp_path / "report"), log=notes.append)
    assert notes == [f"note: {stopped} has finished no iteration (its metrics.jsonl is "
                     "empty): nothing of its training is drawn"]


def test_a_complete_run_without_its_network_says_so_at_the_end(tmp_path, capsys):
    """A committed run brought back with its config and metrics alone (its checkpoints
    and network left on another machine) is left as it is, and the last line says it has
    no network to evaluate: it does not point at a file that is not there."""
    import shutil

    from hydra import compose, initialize_config_dir

    from warmjax import run

    kept = ROOT / "studies" / "where_it_helps" / "fast_othello_6x6" / "arm=baseline,seed=70"
    folder = tmp_path / "r"
    folder.mkdir()
    for name in ("config.yaml", "metrics.jsonl"):
        shutil.copyfile(kept / name, folder / name)
    with initialize_config_dir(config_dir=run.CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            "+study=fast_othello_6x6", "seed=70", "+arm=baseline", f"run_dir={folder}"])
    run.main(cfg)
    lines = capsys.readouterr().out.strip().splitlines()
    assert any("is complete (80 iterations) and keeps no checkpoint" in x for x in lines)
    assert lines[-1] == f"done: {folder} holds its metrics but no network to evaluate"
    assert (folder / "metrics.jsonl").read_bytes() == (kept / "metrics.jsonl").read_bytes()
    assert not (folder / "network.msgpack").exists()
