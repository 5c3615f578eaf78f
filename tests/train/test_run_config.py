"""The run configuration: Hydra composition, named errors, the one converter (train/run_config.py,
warmjax/settings.py)."""

from __future__ import annotations

import dataclasses

import pytest

from hydra_plugins.warmjax_studies.studies_searchpath import study_configs
from warmjax import cli
from warmjax.nets import make_network
from warmjax.train.run_config import ConfigError, RunConfig

from ..helpers import ROOT, compose_config


def test_hydra_compose_smoke_and_experiments(tmp_path):
    config = compose_config(["+experiment=adaptive_c4", "profile=smoke"], tmp_path)
    assert config.game.name == "connect_four" and config.warmstart.mode == "adaptive"
    assert config.train.iterations == 2 and config.profile_name == "smoke"
    paper = compose_config(["+experiment=fixed_othello"], tmp_path)
    assert paper.profile_name == "paper" and paper.model.preset == "azg512"
    assert (paper.train.iterations, paper.train.games, paper.search.simulations) == (100, 50, 100)
    assert (paper.train.replay_iterations, paper.train.epochs,
            paper.train.batch_size) == (20, 10, 64)
    assert (paper.arena.games, paper.arena.threshold, paper.warmstart.iprime) == (40, 0.6, 5)
    assert paper.train.learning_rate == 0.005 and paper.model.dropout == 0.3
    for name in ("baseline", "fixed", "adaptive"):
        for game, full in (("c4", "connect_four"), ("othello", "othello"), ("gobang", "gobang")):
            c = compose_config([f"+experiment={name}_{game}", "profile=quick",
                                "warmstart.enhancement=wrora", "warmstart.iprime=3"], tmp_path)
            assert c.game.name == full and c.warmstart.enhancement == "wrora"
            # scale/quick_othello.yaml: Othello's quick runs are 20 iterations, the others 40.
            assert c.train.iterations == (20 if game == "othello" else 40)
    assert compose_config(["+experiment=adaptive_othello", "profile=quick", "train.iterations=7"],
                          tmp_path).train.iterations == 7
    # A command-line model choice wins over the profile's.
    assert compose_config(["model=azg64"], tmp_path).model.preset == "azg64"
    wide = compose_config(["+experiment=adaptive_c4", "profile=quick", "model=medium"], tmp_path)
    assert (wide.model.preset, wide.train.games) == ("medium", 160)
    # The quick profile's departures (conf/profile/quick.yaml, results.md §2).
    assert (wide.search.fpu, wide.search.win_check, wide.train.value_mix) == (1.0, True, 0.5)
    net = make_network(7, (6, 7, 2), wide.model.preset)
    assert (net.module.channels, net.module.fc) == (64, (256, 128))


@pytest.mark.parametrize("overrides,needle", [
    (["game=othello", "game.name=checkers"], "unknown game 'checkers'"),
    (["warmstart=fixed", "warmstart.enhancement=mcts2"], "unknown enhancement 'mcts2'"),
    (["warmstart=fixed", "warmstart.iprime=9", "train.iterations=5"], "exceeds"),
    (["warmstart=adaptive", "train.games=7"], "even train.games"),
    (["search.simulations=0"], "search.simulations (m)"),
    (["arena.games=0"], "arena.games (n)"),
    (["arena.threshold=1.5"], "arena.threshold (u)"),
    (["arena.threshold=0"], "arena.threshold (u)"),
])
def test_impossible_settings_are_named(tmp_path, overrides, needle):
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        compose_config(overrides, tmp_path)


def test_unknown_keys_are_rejected():
    with pytest.raises(ConfigError, match=r"unknown setting\(s\) in train: gamez"):
        RunConfig.from_dict({"train": {"gamez": 3}})


def test_old_setting_names_still_read_with_one_line_each(tmp_path, capfd):
    """`search.variant` is now `search.baseline_search` and the `oracle` section `probe`: a
    command line with the old names trains what the new names would, and says so once per
    name; a run folder's stored config with the old names reads without a word."""
    from warmjax.settings import _TOLD
    _TOLD.clear()
    capfd.readouterr()
    old = compose_config(["+experiment=baseline_c4", "profile=smoke", "search.variant=gumbel",
                          "oracle.every=0", "oracle.positions=7"], tmp_path / "run")
    new = compose_config(["+experiment=baseline_c4", "profile=smoke",
                          "search.baseline_search=gumbel", "probe.every=0",
                          "probe.positions=7"], tmp_path / "run")
    assert old == new and new.search.baseline_search == "gumbel" and new.probe.every == 0
    told = [line for line in capfd.readouterr().err.splitlines() if "now" in line]
    assert sorted(told) == [
        "warmjax: the setting oracle is now probe (the old name still works for now)",
        "warmjax: the setting search.variant is now search.baseline_search (the old name "
        "still works for now)"]
    # Once per name and process.
    compose_config(["+experiment=baseline_c4", "search.variant=gumbel"], tmp_path / "r2")
    assert "now" not in capfd.readouterr().err
    # The defaults leave the old names unset: nothing is said.
    _TOLD.clear()
    assert compose_config(["+experiment=baseline_c4"], tmp_path / "r3").probe.every == 1
    assert "now" not in capfd.readouterr().err
    # A stored config (a run folder's, from before the renames) reads silently.
    stored = new.to_dict()
    stored["search"]["variant"] = stored["search"].pop("baseline_search")
    stored["oracle"] = stored.pop("probe")
    assert RunConfig.from_dict(stored, stored=True) == new
    assert "now" not in capfd.readouterr().err


def test_each_old_setting_name_is_still_in_a_committed_run():
    """The old setting names (`RENAMED`) are kept only so that committed run folders still
    read: while some committed `config.yaml` uses each one. When none does any more, this
    fails, and that name can go."""
    import re
    import subprocess

    from warmjax.search import SearchConfig

    listed = subprocess.run(["git", "ls-files", "*config.yaml"], cwd=ROOT, text=True,
                            capture_output=True, check=True).stdout.split()
    # Top-level keys start a line; the search section's are indented once.
    patterns = {**{old: rf"(?m)^{old}:" for old in RunConfig.RENAMED},
                **{old: rf"(?m)^  {old}:" for old in SearchConfig.RENAMED}}
    unused = set(patterns)
    for name in listed:
        text = (ROOT / name).read_text()
        unused -= {old for old in unused if re.search(patterns[old], text)}
        if not unused:
            break
    assert not unused, f"no committed run uses {sorted(unused)} any more: drop it from RENAMED"


def test_one_converter_types_paths_and_defaults():
    from warmjax.orientation import OrientationConfig
    from warmjax.search import SearchConfig
    from warmjax.settings import from_mapping

    config = RunConfig.from_dict({"search": {"simulations": 4, "c_puct": 2},
                                  "model": {"fc": [16, 8]}})
    assert type(config.search) is SearchConfig  # the search's own config type
    assert config.search.c_puct == 2.0 and isinstance(config.search.c_puct, float)
    assert config.model.fc == (16, 8)
    # A section keeps the run's defaults for the keys it leaves out (the papers' T′ = 15).
    assert config.search.temperature_moves == 15 == RunConfig().search.temperature_moves
    for raw, needle in [
        ({"search": {"simulations": "4"}}, "search.simulations must be int, got '4'"),
        ({"search": {"simulations": True}}, "search.simulations must be int, got True"),
        ({"search": {"simulations": 0}}, r"search.simulations \(m\) must be at least 1"),
        ({"search": {"sims": 4}}, r"unknown setting\(s\) in search: sims"),
        ({"seeds": 1}, r"unknown setting\(s\): seeds"),
    ]:
        with pytest.raises(ConfigError, match=needle):
            RunConfig.from_dict(raw)
    # The experiment commands go through the same converter, with the same messages.
    # and the same sections: an orientation's search is a SearchConfig.
    orientation = from_mapping(OrientationConfig, {"search": {"simulations": 40}})
    assert type(orientation.search) is SearchConfig and orientation.search.simulations == 40
    with pytest.raises(ConfigError, match="search.simulations must be int, got 4.5"):
        from_mapping(OrientationConfig, {"search": {"simulations": 4.5}})


def test_temperature_moves_is_held_by_the_players():
    from warmjax.games import make
    from warmjax.search import make_player
    from warmjax.train.selfplay import SelfPlayRules, make_selfplay

    env = make("connect_four")
    base = make_player("pure_mcts", env, simulations=2, temperature_moves=3)
    assert base.config.temperature_moves == 3
    with pytest.raises(ValueError, match="T′"):
        make_selfplay(env, base, make_player("pure_rave", env, simulations=2), SelfPlayRules(4))
    with pytest.raises(ValueError, match="unknown search setting.*num_simulations"):
        make_player("mcts", env, lambda p, o: None, num_simulations=2)


def test_the_papers_settings_are_the_defaults_and_the_departures_one_group(tmp_path):
    """The papers' settings live in the config groups' defaults; RunConfig's own defaults
    (used where a config names nothing, e.g. an old run folder) are the same values, and
    profile=paper adds only the network. The quick profile's departures are one group,
    which a study names to get the same settings."""
    default = RunConfig.from_dict({"game": {"name": "connect_four"}})
    paper = compose_config(["profile=paper"], tmp_path / "p")
    for section in ("train", "search", "arena"):
        assert getattr(paper, section) == getattr(default, section), section
    quick = compose_config(["profile=quick"], tmp_path / "q")
    plain = compose_config(["profile=quick", "departures=none"], tmp_path / "n")
    assert (quick.search.fpu, quick.search.dirichlet_fraction, quick.search.win_check,
            quick.train.value_mix) == (1.0, 0.25, True, 0.5)
    assert (plain.search.fpu, plain.search.dirichlet_fraction, plain.search.win_check,
            plain.train.value_mix) == (0.0, 0.0, False, 0.0)
    assert plain.train.games == quick.train.games == 160  # the scale stays
    study = compose_config(["+study=c4_cpu_departures", "+arm=baseline"], tmp_path / "s")
    assert study.search == dataclasses.replace(
        compose_config(["+study=c4_cpu", "+arm=baseline"], tmp_path / "c").search,
        fpu=1.0, dirichlet_fraction=0.25, dirichlet_alpha=1.0, win_check=True)


def test_the_playout_cap_is_a_named_departure_checked_where_it_is_set(tmp_path):
    from warmjax.train.iteration import Trainer
    from warmjax.train.run_config import cheap_simulations
    from warmjax.train.run_id import RunId

    paper = compose_config(["+experiment=baseline_c4", "profile=smoke"], tmp_path / "a")
    assert paper.train.playout_cap == 1.0 and "playout-cap" not in RunId.of(paper).label()
    capped = compose_config(["+experiment=baseline_c4", "profile=smoke",
                             "search.simulations=8", "train.playout_cap=0.25"], tmp_path / "b")
    assert "playout-cap" in RunId.of(capped).label()
    assert cheap_simulations(capped) == 2  # m / 4
    trainer = Trainer(dataclasses.replace(capped, search=dataclasses.replace(
        capped.search, dirichlet_fraction=0.25)))
    # self-play's full search keeps the root noise; the cheap one has n simulations, none
    assert trainer.baseline.config.dirichlet_fraction == 0.25
    assert trainer.cheap.config.simulations == 2
    assert trainer.cheap.config.dirichlet_fraction == 0.0
    for bad, needle in ((["train.playout_cap=0"], "train.playout_cap"),
                        (["train.playout_cap=0.5", "train.cheap_simulations=8"],
                         "train.cheap_simulations must be from 1 to search.simulations − 1"),
                        (["train.playout_cap=0.5", "search.reuse_tree=true"],
                         "needs search.reuse_tree=false")):
        with pytest.raises(ConfigError, match=needle):
            compose_config(["+experiment=baseline_c4", "profile=smoke",
                            "search.simulations=8", *bad], tmp_path / "c")


def test_exploration_is_a_named_departure_checked_where_it_is_set(tmp_path):
    from warmjax.train.run_id import RunId

    paper = compose_config(["+experiment=baseline_c4", "profile=smoke"], tmp_path / "a")
    assert paper.train.explore == 0.0 and "explore" not in RunId.of(paper).label()
    wandering = compose_config(["+experiment=baseline_c4", "profile=smoke",
                                "train.explore=0.1"], tmp_path / "b")
    assert wandering.train.explore == 0.1 and "explore" in RunId.of(wandering).label()
    for bad in ("1", "-0.1"):
        with pytest.raises(ConfigError, match=rf"train.explore .* must be in \[0, 1\), got {bad}"):
            compose_config(["+experiment=baseline_c4", "profile=smoke", f"train.explore={bad}"],
                           tmp_path / "c")
    with pytest.raises(ConfigError, match=r"train.explore_games .* must be in \(0, 1\], got 0"):
        compose_config(["+experiment=baseline_c4", "profile=smoke", "train.explore=0.1",
                        "train.explore_games=0"], tmp_path / "d")
    with pytest.raises(ConfigError, match=r"train.explore_plies .* at least 1, got 0"):
        compose_config(["+experiment=baseline_c4", "profile=smoke", "train.explore=0.1",
                        "train.explore_plies=0"], tmp_path / "e")


def test_the_value_losss_weight_is_a_named_departure_checked_where_it_is_set(tmp_path):
    from warmjax.train.run_id import RunId

    paper = compose_config(["+experiment=baseline_c4", "profile=smoke"], tmp_path / "a")
    assert paper.train.value_weight == 1.0 and "value-weight" not in RunId.of(paper).label()
    heavy = compose_config(["+experiment=baseline_c4", "profile=smoke", "train.value_weight=4"],
                           tmp_path / "b")
    assert heavy.train.value_weight == 4.0 and "value-weight" in RunId.of(heavy).label()
    with pytest.raises(ConfigError, match=r"train.value_weight .* must be positive, got 0"):
        compose_config(["+experiment=baseline_c4", "profile=smoke", "train.value_weight=0"],
                       tmp_path / "c")


def test_the_fast_profile_is_the_quick_profile_with_its_five_changes_more(tmp_path):
    # The ablation's row c_greedy_value_q (studies/screen_fast/rows.txt), written out by hand.
    quick = compose_config(["+experiment=adaptive_c4", "profile=quick"], tmp_path / "a")
    fast = compose_config(["+experiment=adaptive_c4", "profile=fast"], tmp_path / "b")
    assert fast.profile_name == "fast"
    assert fast.model == quick.model
    assert fast.search == dataclasses.replace(quick.search, greedy_value=True)
    assert fast.train == dataclasses.replace(quick.train, iterations=80, explore=0.5,
                                             value_weight=4.0, value_mix=1.0)
    assert fast.arena == dataclasses.replace(quick.arena, gate=False)


def test_no_gate_is_a_named_departure(tmp_path):
    from warmjax.train.run_id import RunId

    paper = compose_config(["+experiment=baseline_c4", "profile=smoke"], tmp_path / "a")
    assert paper.arena.gate and "no-gate" not in RunId.of(paper).label()
    free = compose_config(["+experiment=baseline_c4", "profile=smoke", "arena.gate=false"],
                          tmp_path / "b")
    assert not free.arena.gate and "no-gate" in RunId.of(free).label()


@pytest.mark.parametrize("study, main", [
    ("fast_c4_6x6", ["+experiment=adaptive_c4", "profile=fast"]),
    ("fast_c4_6x7", ["+experiment=adaptive_c4", "profile=fast", "game.params.cols=7"]),
    ("fast_hex_7x7", ["+experiment=adaptive", "game=hex_7", "profile=fast"]),
])
def test_the_fast_recipe_study_trains_the_main_job_with_and_without_warm_start(
        tmp_path, study, main):
    """REGISTRATION_fast_recipe.md: each board's adaptive arm is the main job's command as
    the README gives it, and its baseline the same with warm start off; only the names and
    the outputs kept differ."""

    def bare(config):
        return dataclasses.replace(config, experiment_name="", profile_name="", run_dir="",
                                   tensorboard=False, keep_checkpoints=1)

    arms = [("adaptive_rollout", "adaptive")]
    if study == "fast_c4_6x6":  # the arms differ only in warmjax/conf/arm, as on every board
        arms.append(("baseline", "none"))
    for arm, mode in arms:
        run = compose_config([f"+study={study}", f"+arm={arm}", "seed=60"], tmp_path)
        lone = compose_config([*main, "seed=60", f"warmstart.mode={mode}"], tmp_path)
        assert run.warmstart.mode == mode and run.train.iterations == 80
        assert bare(run) == bare(lone)


@pytest.mark.parametrize("study", sorted(study_configs(cli.CONF_DIR)))
def test_every_study_runs_at_smoke_size(study):
    """`+study_size=smoke` after any study: its arms, two seeds, profile=smoke's two tiny
    iterations, under runs/smoke (a study sets its own iterations, which profile=smoke
    alone leaves)."""
    from hydra import compose, initialize_config_dir

    from warmjax.run import to_run_config

    with initialize_config_dir(config_dir=cli.CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"+study={study}", "+study_size=smoke"],
                      return_hydra_config=True)
    params = cfg.hydra.sweeper.params
    assert params.seed == "0,1"
    assert cfg.train.iterations == 2 and cfg.train.games == 4 and cfg.run_root == "runs/smoke"
    with initialize_config_dir(config_dir=cli.CONF_DIR, version_base="1.3"):
        arm = str(params["+arm"]).split(",")[0] if "+arm" in params else None
        job = compose(config_name="config", overrides=[
            f"+study={study}", "+study_size=smoke", "seed=0", "run_dir=unused",
            *([f"+arm={arm}"] if arm else [])])
    config = to_run_config(job)
    assert config.train.iterations == 2 and config.profile_name == "smoke"


def test_the_papers_five_stay_apart_from_what_warm_start_accepts(monkeypatch):
    """SPEC §3 names five enhancements, Rollout, RAVE, RoRa, WRo and WRoRa: the claims and
    the head-to-head table loop over those; warm start may accept more, after them, and
    validates against that list, so a new enhancement widens nothing the papers fixed."""
    from warmjax import names
    from warmjax.headtohead import HeadToHeadConfig
    from warmjax.train import run_config

    assert names.PAPERS_ENHANCEMENTS == ("rollout", "rave", "rora", "wro", "wrora")
    accepted = names.WARMSTART_ENHANCEMENTS
    assert accepted[:5] == names.PAPERS_ENHANCEMENTS
    assert HeadToHeadConfig.__dataclass_fields__["enhancements"].default == \
        names.PAPERS_ENHANCEMENTS
    config = RunConfig()
    config = dataclasses.replace(config, warmstart=dataclasses.replace(
        config.warmstart, mode="fixed", enhancement="novel"))
    with pytest.raises(ConfigError, match="novel"):
        run_config.validate(config)
    monkeypatch.setattr(run_config, "WARMSTART_ENHANCEMENTS", (*accepted, "novel"))
    run_config.validate(config)  # accepted once warm start lists it
    assert names.PAPERS_ENHANCEMENTS == ("rollout", "rave", "rora", "wro", "wrora")

