"""`RunId`: a run's identity derived once from its config, with one label."""

from __future__ import annotations

import dataclasses

from warmjax.matches.tournament_folder import entry_from_json
from warmjax.train.run_config import RunConfig, WarmstartConfig
from warmjax.train.run_id import RunId

from ..helpers import compose_config


def test_labels_name_the_papers_variants():
    assert RunId("connect_four").label() == "Baseline"
    assert RunId("othello", "fixed", "rora", 3, seed=2).label() == "RoRa I′=3"
    assert RunId("othello", "fixed", "rora", 3, seed=2).label(seed=True) == "RoRa I′=3 s2"
    assert RunId("gobang", "adaptive", "wrora").label() == "WRoRa adaptive"
    # A variant without a seed (an arm) has no seed to show.
    assert RunId("gobang", "adaptive", "wrora").label(seed=True) == "WRoRa adaptive"


def test_variant_of_a_config_ignores_what_its_mode_does_not_use():
    fixed = RunConfig(warmstart=WarmstartConfig("fixed", "rave", 7), seed=4)
    assert RunId.of(fixed) == RunId("connect_four", "fixed", "rave", 7, (), 4)
    # The baseline has no enhancement or I′, whatever the (unused) settings say.
    baseline = RunConfig(warmstart=WarmstartConfig("none", "rave", 7))
    assert RunId.of(baseline) == RunId("connect_four", seed=0)
    assert RunId.of(fixed).arm() == dataclasses.replace(RunId.of(fixed), seed=None)


def test_departures_come_from_the_marked_settings(tmp_path):
    paper = RunId.of(compose_config(["+experiment=adaptive_c4"], tmp_path))
    assert paper.departures == ()
    quick = RunId.of(compose_config(["+experiment=adaptive_c4", "profile=quick"], tmp_path))
    # The four departures the quick profile turns on (method.md §2), in declaration order.
    assert quick.departures == ("fpu", "root-noise", "win-check", "value-mix")
    assert quick.label() == "Rollout adaptive + fpu, root-noise, win-check, value-mix"
    assert quick.arm() != paper.arm()  # different arms of a study


def test_order_puts_the_baseline_first_then_enhancements_fixed_before_adaptive():
    variants = [RunId("connect_four", "adaptive", "rollout"),
                RunId("connect_four", "fixed", "rave", 5),
                RunId("connect_four", "fixed", "rollout", 9),
                RunId("connect_four", "fixed", "rollout", 1),
                RunId("connect_four"),
                RunId("othello")]
    ordered = [v.label() for v in sorted(variants, key=RunId.order)]
    assert ordered == ["Baseline", "Baseline", "Rollout I′=1", "Rollout I′=9",
                       "Rollout adaptive", "Rave I′=5"]
    assert sorted(variants, key=RunId.order)[0].game == "othello"  # the papers' order


def test_older_tournament_entries_have_no_departures():
    info = {"kind": "network", "mode": "fixed", "enhancement": "wro", "iprime": 3, "seed": 1,
            "game": "gobang"}
    entry = entry_from_json(dict(info, run_dir="r"))
    assert entry.id == RunId("gobang", "fixed", "wro", 3, (), 1)
