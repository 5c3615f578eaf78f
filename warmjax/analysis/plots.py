"""The papers' figures as PNG files (matplotlib, Agg backend), from `tables.py`'s aggregates.

- `plot_elo_by_arm`: a tournament's Elo per arm, a bar at the mean over seeds with
  the sample std as error bar and each seed as a dot (the papers' tournament figures).
- `plot_balance`: the baseline side's reward balance r per iteration before the switch,
  one thin line per seed and the mean over seeds still in warm start, per enhancement.
- `plot_probe_curves`: optimal-move rate against perfect play per iteration, the search
  and the policy head side by side, mean over seeds with a ± sample std band, per arm.
- `plot_study_curves`: a study family's learning curves with 95% bands (against iterations
  and self-play games).
- `plot_board_curves`: one game on several boards: each board's baseline and warm-start
  arms against the iteration, on the board's own probe.
- `plot_elo_by_iprime`: Elo against I′ per enhancement (mean ± std over seeds), with the
  Baseline and the adaptive arms of the same tournament as horizontal references.
- `plot_elo_leads`: warm start's Elo lead over the baseline (paired by seed, 95% interval)
  against the iteration at which the networks were rated (a horizon study, `horizon`).
- `plot_pons_curves`: Pons' six Connect Four sets, one panel each: the mistake rates of
  a row's judged networks against the minutes of training, per seed and their mean, with
  AlphaZero.jl's published range and the depth-5 minimax's rate as levels.
- `plot_training`: any game's training curves (policy and value losses, the arena's share
  of the candidate) per run, for games without a perfect-play probe too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from warmjax.analysis.tables import (
    ArmElo,
    IprimeElo,
    ProbeCurve,
    enhancement_name,
    game_name,
)

DPI = 120


def _save(fig, path: Path | str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def _legend_beside(ax, fontsize="small") -> None:
    """The axes' legend to their right, outside them: a legend never covers a curve."""
    ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.02, 1.0),
              borderaxespad=0.0)


def _legend_below(fig, ax, ncol: int = 3, fontsize=7) -> None:
    """`ax`'s legend entries as one figure legend under every panel (and their axis
    labels), outside them: a legend never covers a curve."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        # Long labels (departures named) take fewer columns, so the figure stays its width.
        fits = max(1, 120 // max(len(label) for label in labels))
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   ncol=max(1, min(ncol, len(labels), fits)), fontsize=fontsize)


def _err(std: float) -> float:
    return 0.0 if math.isnan(std) else std


def plot_elo_by_arm(rows: Sequence[ArmElo], title: str, path: Path | str) -> Path:
    """Bar (mean) with error bar (std over seeds) and a dot per seed for each arm."""
    fig, ax = plt.subplots(figsize=(max(4.0, 0.8 * len(rows) + 1.5), 4.0))
    x = range(len(rows))
    colours = ["0.6" if r.arm.mode == "anchor" else f"C{i % 10}" for i, r in enumerate(rows)]
    ax.bar(x, [r.mean for r in rows], yerr=[_err(r.std) for r in rows], color=colours,
           alpha=0.6, capsize=4, edgecolor="black", linewidth=0.5)
    for i, row in enumerate(rows):
        ax.scatter([i] * len(row.ratings), row.ratings, color="black", s=12, zorder=3)
    ax.axhline(0.0, color="black", linewidth=0.5)
    ax.set_xticks(list(x))
    ax.set_xticklabels([r.arm.label for r in rows], rotation=45, ha="right")
    ax.set_ylabel("Bayesian Elo")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def plot_balance(series: Sequence[dict], game: str, path: Path | str) -> Path:
    """One panel per enhancement: r per iteration for each seed (thin) and the mean (thick);
    `series`: `tables.balance_json` entries."""
    series = [s for s in series if s["game"] == game]
    cols = min(3, max(1, len(series)))
    rows = math.ceil(max(1, len(series)) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.0 * cols, 3.0 * rows), squeeze=False,
                             sharey=True)
    for ax, s in zip(axes.flat, series):
        for label, points in s["runs"].items():
            its, r = zip(*points) if points else ((), ())
            ax.plot(its, r, marker=".", linewidth=0.8, alpha=0.5, label=label)
        ax.plot(s["iterations"], s["mean"], color="black", linewidth=2.0, label="mean")
        ax.axhline(0.0, color="black", linewidth=0.5, linestyle=":")
        ax.set_title(enhancement_name(s["enhancement"]))
        ax.set_xlabel("iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(series):]:
        ax.axis("off")
    axes[0][0].set_ylabel("baseline side's balance r")
    fig.suptitle(f"{game_name(game)}: reward balance before the switch")
    fig.tight_layout()
    if series:
        _legend_below(fig, axes[0][0], ncol=4, fontsize="x-small")
    return _save(fig, path)


def plot_elo_by_iprime(sweep: IprimeElo, title: str, path: Path | str) -> Path:
    """Elo against I′, a line per enhancement; Baseline and adaptive arms as references."""
    fig, ax = plt.subplots(figsize=(5.5, 4.0))
    for i, (enh, curve) in enumerate(sweep.curves.items()):
        p, mean, std, _ = zip(*curve)
        ax.errorbar(p, mean, yerr=[_err(s) for s in std], marker="o", capsize=3,
                    color=f"C{i % 10}", label=enhancement_name(enh))
    for j, ref in enumerate(r for r in sweep.references if r.arm.mode != "anchor"):
        ax.axhline(ref.mean, color=f"C{(len(sweep.curves) + j) % 10}", linestyle="--",
                   linewidth=1.0, label=ref.arm.label)
    ax.set_xticks(sweep.iprimes)
    ax.set_xlabel("warm-start iterations I′")
    ax.set_ylabel("Bayesian Elo")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    _legend_beside(ax)
    return _save(fig, path)


def plot_probe_curves(curves: Sequence[ProbeCurve], game: str, path: Path | str) -> Path:
    """One game's learning curves against the perfect-play oracle."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, what, title in ((axes[0], "search", "search (argmax, run's m)"),
                            (axes[1], "policy", "policy head alone")):
        for curve in (c for c in curves if c.game == game):
            mean, std = getattr(curve, what), getattr(curve, f"{what}_std")
            n = int(curve.count.max())
            line, = ax.plot(curve.iterations, 100 * mean, label=f"{curve.label} ({n} runs)")
            band = np.nan_to_num(std)
            ax.fill_between(curve.iterations, 100 * (mean - band), 100 * (mean + band),
                            color=line.get_color(), alpha=0.2, linewidth=0)
        ax.set_title(title)
        ax.set_xlabel("iteration")
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_ylabel("optimal moves (%)")
    _legend_below(fig, axes[1], ncol=3, fontsize=8)
    fig.suptitle(f"{game_name(game)}: moves that keep the perfect-play value "
                 "(mean ± sample std over seeds)")
    return _save(fig, path)


def plot_study_curves(title: str, games_per_iteration: int, arms: Sequence[dict],
                      path: Path | str) -> Path:
    """A study family's learning curves, read from its record (`study.json`'s arm entries
    with their `curves`): the policy head's and the search's optimal-move rates against the
    iteration and against self-play games played, per arm the mean over seeds with its 95%
    t-interval as a band."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), sharey="row")
    for row, (metric, what) in enumerate((("policy", "policy head alone"),
                                          ("search", "search (argmax)"))):
        for arm in arms:
            iterations, mean, low, high = _band(arm["curves"][metric])
            for col, x in enumerate((iterations, iterations * games_per_iteration)):
                ax = axes[row, col]
                style = {"color": "black", "linewidth": 2} if arm["mode"] == "none" else {}
                line, = ax.plot(x, 100 * mean, label=f"{arm['arm']} ({arm['runs']})", **style)
                ax.fill_between(x, 100 * low, 100 * high, color=line.get_color(), alpha=0.15,
                                linewidth=0)
        axes[row, 0].set_ylabel(f"optimal moves, {what} (%)")
    for col, label in enumerate(("iteration", "self-play games played")):
        axes[1, col].set_xlabel(label)
        for row in range(2):
            axes[row, col].grid(alpha=0.3)
            if col == 0:
                axes[row, col].xaxis.set_major_locator(MaxNLocator(integer=True))
    _legend_below(fig, axes[0, 1], ncol=3)
    fig.suptitle(f"{title}: learning curves against perfect play "
                 "(mean over seeds, 95% confidence band)")
    return _save(fig, path)


def _band(curve: dict):
    """A recorded curve (`record.arm_json`'s `curves`) as arrays: iterations, mean, and
    the band drawn (the mean where no interval was estimated, clipped to rates)."""
    mean = np.array(curve["mean"], float)
    low = np.array([m if x is None else x for x, m in zip(curve["low"], mean)], float)
    high = np.array([m if x is None else x for x, m in zip(curve["high"], mean)], float)
    return (np.array(curve["iterations"]), mean,
            np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0))  # rates: few seeds


def plot_board_curves(title: str, boards: Sequence[tuple[str, Sequence[dict]]],
                      path: Path | str) -> Path:
    """One game on several boards, read from the record: per board (its name and the
    arm entries drawn, `board_curve_arms`) the baseline's policy head against the
    iteration (solid, 95% band) and each warm-start arm (dashed), each on its own board's
    probe."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (name, shown) in enumerate(boards):
        colour = f"C{i % 10}"
        for arm in shown:
            x, mean, low, high = _band(arm["curves"]["policy"])
            base = arm["mode"] == "none"
            ax.plot(x, 100 * mean, color=colour, linestyle="-" if base else "--",
                    label=f"{name}: {arm['arm']} ({arm['runs']})")
            if base:
                ax.fill_between(x, 100 * low, 100 * high, color=colour, alpha=0.15,
                                linewidth=0)
    ax.set_xlabel("iteration")
    ax.set_ylabel("optimal moves, policy head alone (%)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    _legend_beside(ax, fontsize=7)
    ax.set_title(f"{title}: learning curves on each board's own probe")
    return _save(fig, path)


def plot_training(runs: Sequence, game: str, path: Path | str) -> Path:
    """Training curves of a game's runs, for any game, probed or not: the policy and value
    losses per iteration and the candidate's arena share (wins / decisive games, the
    acceptance threshold u dashed), one line per run; a dotted line after the iteration
    whose balance switched an adaptive run."""
    runs = [r for r in runs if r.id.game == game and r.metrics]
    fig, axes = plt.subplots(1, 3, figsize=(12.0, 3.3))
    for i, run in enumerate(runs):
        colour = f"C{i % 10}"
        its = [m.iteration for m in run.metrics]
        share = [m.arena_wins / (m.arena_wins + m.arena_losses)
                 if m.arena_wins + m.arena_losses else math.nan for m in run.metrics]
        label = f"{run.id.label()} seed {run.id.seed}"
        axes[0].plot(its, [m.loss_policy for m in run.metrics], color=colour, marker=".",
                     label=label)
        axes[1].plot(its, [m.loss_value for m in run.metrics], color=colour, marker=".")
        axes[2].plot(its, share, color=colour, marker=".")
        switch = run.metrics[-1].switch_iteration
        if run.id.mode == "adaptive" and switch > 0:
            for ax in axes:
                ax.axvline(switch + 0.5, color=colour, linestyle=":", linewidth=1.0)
    for u in sorted({r.config.arena.threshold for r in runs}):
        axes[2].axhline(u, color="black", linestyle="--", linewidth=0.8)
    titles = ("policy loss", "value loss", "arena: candidate's wins / decisive games")
    for ax, title in zip(axes, titles):
        ax.set_title(title)
        ax.set_xlabel("iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    axes[2].set_ylim(-0.02, 1.02)
    fig.suptitle(f"{game_name(game)}: training")
    fig.tight_layout()
    if runs:  # below the panels, where no curve runs
        _legend_below(fig, axes[0], ncol=3, fontsize="x-small")
    return _save(fig, path)


def plot_against_compute(title: str, arms: Sequence[dict], path: Path | str) -> Path:
    """A family's learning curves against compute: each run's policy head and search rates
    after each iteration at its cumulative compute (thin), per arm (colour); the x axis
    is the compute source's seconds (`analysis.compute`). `arms`: the record's
    `compute_curves` (`report.compute_json`)."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
    sources = set()
    for index, arm in enumerate(arms):
        color = "black" if arm["baseline"] else f"C{index}"
        for n, run in enumerate(arm["runs"]):
            sources.add(run["source"])
            for ax, measure in zip(axes, ("policy", "search")):
                points = run[measure]
                if points:
                    x, y = zip(*points)
                    ax.plot(np.array(x) / 60, 100 * np.array(y), color=color, alpha=0.5,
                            linewidth=0.8, label=arm["arm"] if n == 0 else None)
    for ax, what in zip(axes, ("policy head alone", "search (argmax)")):
        ax.set_xlabel(f"compute, minutes ({', '.join(sorted(sources))})")
        ax.set_ylabel(f"optimal moves, {what} (%)")
        ax.grid(alpha=0.3)
    _legend_below(fig, axes[1], ncol=3)
    fig.suptitle(f"{title}: learning curves against compute (one line per run)")
    return _save(fig, path)


def plot_strength_over_time(runs: Sequence[dict], path: Path | str,
                            targets: dict | None = None) -> Path:
    """Strength against the clock (`studies/strength_per_minute/clock.py`): the policy
    head's and the search's optimal-move rates after each iteration, against the minutes of training
    measured (left) and against compute in estimated minutes (right, where the runs have
    it), one line per run. `runs`: per run `{"label", "minutes": [...], "compute": [...] or
    None, "compute_source", "policy": [...], "search": [...]}` (rates in [0, 1]);
    `targets`: `{"policy": rate, "search": rate}`, drawn dashed."""
    with_compute = any(r.get("compute") for r in runs)
    cols = 2 if with_compute else 1
    fig, axes = plt.subplots(2, cols, figsize=(5.5 * cols, 7.5), sharey="row",
                             squeeze=False)
    sources = sorted({r["compute_source"] for r in runs if r.get("compute")})
    for i, run in enumerate(runs):
        for row, measure in enumerate(("policy", "search")):
            y = 100 * np.array([np.nan if v is None else v for v in run[measure]], float)
            axes[row, 0].plot(run["minutes"], y, color=f"C{i % 10}", marker=".",
                              label=run["label"])
            if with_compute and run.get("compute"):
                axes[row, 1].plot(run["compute"], y, color=f"C{i % 10}", marker=".")
    for row, (measure, what) in enumerate((("policy", "policy head alone"),
                                           ("search", "search (argmax)"))):
        axes[row, 0].set_ylabel(f"optimal moves, {what} (%)")
        for col in range(cols):
            ax = axes[row, col]
            if targets and measure in targets:
                ax.axhline(100 * targets[measure], color="black", linestyle="--",
                           linewidth=0.8)
            ax.grid(alpha=0.3)
    axes[1, 0].set_xlabel("minutes of training, measured")
    if with_compute:
        axes[1, 1].set_xlabel(f"compute, estimated minutes ({', '.join(sources)})")
    fig.suptitle("Strength against the clock: optimal-move rates on the labelled set")
    fig.tight_layout()
    # Below the panels: the run labels name every departure and would cover the curves.
    _legend_below(fig, axes[0, 0], ncol=1)
    return _save(fig, path)


def plot_elo_leads(leads: dict[str, Sequence[tuple[int, dict | None]]], path: Path | str
                   ) -> Path:
    """Per comparison (its title), arm − baseline Elo with its 95% interval at each rated
    iteration, from `(iteration, comparison record)` pairs (`record.comparison_json`;
    None where that round robin is missing)."""
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    for i, (title, points) in enumerate(leads.items()):
        shown = [(it, c) for it, c in points if c is not None and c.get("diff") is not None]
        if not shown:
            continue
        x = np.array([it for it, _ in shown], float) * (1 + 0.012 * (i - len(leads) / 2))
        y = np.array([c["diff"] for _, c in shown])
        low = np.array([c["ci"][0] if c["ci"][0] is not None else c["diff"] for _, c in shown])
        high = np.array([c["ci"][1] if c["ci"][1] is not None else c["diff"] for _, c in shown])
        ax.errorbar(x, y, yerr=[y - low, high - y], marker="o", capsize=3, label=title,
                    color=f"C{i % 10}")
    ax.axhline(0.0, color="0.5", linewidth=0.8)
    ax.set_xscale("log")
    ticks = sorted({it for points in leads.values() for it, _ in points})
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("iteration of the rated networks")
    ax.set_ylabel("Elo, warm start − baseline (paired by seed)")
    _legend_beside(ax, fontsize=8)
    return _save(fig, path)


def plot_pons_curves(title: str, curves: Sequence[dict], sets: Sequence, path: Path | str
                     ) -> Path:
    """One panel per set of `sets` (`warmjax.perfect.pons.SETS`: name, stage, difficulty,
    `alphazero_jl` (low, high), `minimax5`): each run's search at the benchmark's deep m
    (thin) and the mean over runs of it (thick) and of the policy head (dashed) against the
    minutes of training, the mean at the iterations every run has; AlphaZero.jl's range
    shaded and the minimax's rate dotted. `curves`: `python -m warmjax.screen`'s `pons_curves`.
    Points judged on fewer positions than a set's largest count are drawn hollow."""
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5), sharex=True)
    common = sorted(set.intersection(*(set(c["iterations"]) for c in curves)))
    for ax, spec in zip(axes.flat, sets):
        name = spec.name
        full = max(max(c["positions"][name]) for c in curves)
        for i, c in enumerate(curves):
            y = 100 * np.array(c["deep_search"][name], float)
            ax.plot(c["minutes"], y, color=f"C{i % 10}", linewidth=0.8, alpha=0.7,
                    label=c["label"])
            partial = np.array(c["positions"][name]) < full
            ax.scatter(np.array(c["minutes"])[~partial], y[~partial], color=f"C{i % 10}",
                       s=12)
            ax.scatter(np.array(c["minutes"])[partial], y[partial], facecolors="none",
                       edgecolors=f"C{i % 10}", s=12)
        if common:
            at = [[c["iterations"].index(it) for it in common] for c in curves]
            x = np.mean([[c["minutes"][k] for k in ks] for c, ks in zip(curves, at)], axis=0)
            for key, style, label in (("deep_search", "-", "search, mean"),
                                      ("policy_head", "--", "policy head, mean")):
                y = np.mean([[c[key][name][k] for k in ks] for c, ks in zip(curves, at)],
                            axis=0)
                ax.plot(x, 100 * y, color="black", linestyle=style, linewidth=1.8,
                        label=label)
        low, high = spec.alphazero_jl
        if high > low:
            ax.axhspan(100 * low, 100 * high, color="tab:green", alpha=0.25,
                       label="AlphaZero.jl (range)")
        else:
            ax.axhline(100 * low, color="tab:green", linewidth=1.5, label="AlphaZero.jl")
        ax.axhline(100 * spec.minimax5, color="tab:red", linestyle=":", linewidth=1.5,
                   label="minimax, depth 5")
        ax.set_title(f"{name}: {spec.stage}, {spec.difficulty}", fontsize=9)
        top = ax.get_ylim()[1]
        ax.set_ylim(-0.03 * top, top)  # a level at 0 (AlphaZero.jl's end_easy) stays seen
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("minutes of training (wall)")
    for ax in axes[:, 0]:
        ax.set_ylabel("mistakes (%)")
    fig.suptitle(f"Pons' benchmark: {title}'s mistake rates against minutes of training "
                 "(search at m = 600; hollow: judged on the first positions of a set only)")
    fig.tight_layout()
    _legend_below(fig, axes[1, 1], ncol=4)
    return _save(fig, path)
