#!/usr/bin/python3
"""Figures of a quorum sweep directory (written by `quorum sweep`).

    /usr/bin/python3 notebooks/plots.py SWEEP_DIR [--out DIR] [--only scaling,imbalance,...]

writes PNGs into SWEEP_DIR/plots/ (or --out). The notebooks in this folder are thin wrappers over these functions.
Figures (each function returns a matplotlib Figure):

  scaling            steps/s and samples/s against nodes, one bar per algorithm, and the ideal throughput without
                     communication (1 / mean compute time per step) drawn as a rectangle around each cluster, as in
                     the WAGMA-SGD paper's Fig. 4, 7 and 10
  group_size_tau     heatmaps of throughput and final test accuracy over group size S and sync period tau (for any
                     algorithm with those parameters; other varied fields take their place when they are not varied)
  time_to_accuracy   test accuracy (or loss) of the averaged model against simulated time, one line per algorithm
  imbalance_violin   distribution of per-step throughput (1 / step time of every rank and step), per algorithm and
                     node count, as the WAGMA-SGD paper's Fig. 10 violins
  runtime_histogram  histogram of the per-step compute time (workload plus injected delays), as the eager-SGD
                     paper's Fig. 2-4 runtime distributions

Seeds. When the sweep varies `seed` (`--vary seed=1,2,3`), points that differ only in their seed are replicates of one
configuration: scaling draws the mean with error bars of +-1 sample standard deviation, group_size_tau writes mean and
sd in every cell, time_to_accuracy draws the mean curve in a shaded mean +- sd band (see mean_curve), and the violins
pool the seeds' steps; titles and legends say "mean +- sd over N seeds". seed_stats() gives the numbers.

Only Debian's python3-matplotlib and python3-pandas are needed.
"""
import argparse
import json
import math
import os
import sys
import textwrap

import matplotlib

if __name__ == "__main__":
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

FIGURES = ("scaling", "group_size_tau", "time_to_accuracy", "imbalance_violin", "runtime_histogram")

NODES = "platform.nodes"
SEED = "seed"
PM = "\u00b1"  # the plus-minus sign of "mean +- sd"
TAU = "algorithm.tau"
GROUP_SIZE = "algorithm.group_size"


class Sweep:
    """A sweep directory: sweep.csv (rows of finished points), the varied columns, and per-point files."""

    def __init__(self, directory):
        self.dir = os.path.abspath(directory)
        csv = os.path.join(self.dir, "sweep.csv")
        if not os.path.exists(csv):
            raise FileNotFoundError(f"{csv} not found: run `quorum sweep` (or `quorum sweep ... --collect`) first")
        table = pd.read_csv(csv)
        self.all = table
        self.df = table[table["status"] == "ok"].reset_index(drop=True)
        if self.df.empty:
            raise ValueError(f"{csv} has no finished point (status ok)")
        meta_path = os.path.join(self.dir, "sweep.json")
        self.meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
        self.columns = [c for c in self.meta.get("columns", []) if c in table.columns]
        self._summaries = {}
        # Replicates: a varied seed is not a configuration axis; figures aggregate over it.
        self.seed_column = SEED if SEED in self.columns and self.df[SEED].nunique() > 1 else None

    @property
    def seeds(self):
        """Number of seeds the sweep repeats every configuration over (1 when it does not vary `seed`)."""
        return int(self.df[SEED].nunique()) if self.seed_column else 1

    def seed_counts(self):
        """The distinct numbers of finished seeds per configuration (one value unless some points failed)."""
        if not self.seed_column:
            return [1]
        keys = self.configuration_columns()
        sizes = self.df.groupby(keys, dropna=False).size() if keys else pd.Series([len(self.df)])
        return sorted(set(int(n) for n in sizes))

    def configuration_columns(self):
        """The columns that tell one configuration from another: every varied field but the seed, and the summary's
        algorithm when it differs between points and no algorithm field is varied."""
        return self.series_columns()

    def summary(self, row):
        """summary.json of a row of df."""
        path = os.path.join(self.dir, row["dir"], "summary.json")
        if path not in self._summaries:
            with open(path) as f:
                self._summaries[path] = json.load(f)
        return self._summaries[path]

    def iterations(self, row, max_rows=200_000):
        """iterations.csv of a row (rank, step, start_s, compute_s, comm_s, wait_s), or None if not written."""
        path = os.path.join(self.dir, row["dir"], "iterations.csv")
        if not os.path.exists(path):
            return None
        it = pd.read_csv(path)
        if len(it) > max_rows:
            it = it.sample(n=max_rows, random_state=0)
        return it

    def varied(self, exclude=()):
        """Varied columns with more than one value among finished points, except those in exclude and the seed (whose
        points are replicates of one configuration, see seed_stats)."""
        return [c for c in self.columns
                if c not in exclude and c != SEED and self.df[c].nunique(dropna=False) > 1]

    def series_columns(self, exclude=()):
        """Columns that tell one curve or bar series from another: the varied fields except the x axis. Without an
        explicit algorithm axis the summary's algorithm column is used when it differs between points."""
        cols = self.varied(exclude)
        names_algorithm = any(c in ("algorithm.label", "algorithm.name") for c in self.varied())
        if not names_algorithm and "algorithm" not in exclude and self.df["algorithm"].nunique() > 1:
            cols = ["algorithm"] + cols
        return cols


def seed_note(sweep):
    """'mean \u00b1 sd over 3 seeds' (or 'over 2-3 seeds' when some points failed); '' without a varied seed."""
    if not sweep.seed_column:
        return ""
    counts = sweep.seed_counts()
    n = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    return f"mean {PM} sd over {n} seeds"


def seed_stats(sweep, value, by=None, rows=None):
    """Per configuration (the columns `by`, default Sweep.configuration_columns: all varied fields but the seed), the
    seeds' mean and sample standard deviation (n - 1 in the denominator; NaN for one seed) of the sweep.csv column
    `value`. Columns: the `by` columns, `seeds` (finished points), `n` (points where `value` is not empty: e.g. the
    seeds that reached the target for time_to_target_s), `mean`, `sd`. Configurations keep their order of first
    appearance in sweep.csv."""
    df = sweep.df if rows is None else rows
    by = list(sweep.configuration_columns() if by is None else by)
    key = by if by else (lambda _: 0)
    groups = df.groupby(key, dropna=False, sort=False)
    out = pd.DataFrame({"seeds": groups.size(), "n": groups[value].count(), "mean": groups[value].mean(),
                        "sd": groups[value].std(ddof=1)}).reset_index()
    if not by:
        out = out.drop(columns=out.columns[0])
    return out


def mean_curve(curves):
    """Mean and sample standard deviation over seeds of curves given as (times, values), one per seed: on a common
    simulated-time grid, the union of every seed's evaluation times up to the earliest time at which a seed's curve
    ends (so every seed contributes to every point), each curve linearly interpolated between its own evaluations.
    Returns (grid, mean, sd) as lists (sd NaN for a single curve)."""
    curves = [sorted(zip(map(float, t), map(float, v))) for t, v in curves]
    curves = [c for c in curves if c]
    if not curves:
        return [], [], []
    end = min(c[-1][0] for c in curves)
    grid = sorted({t for c in curves for t, _ in c if t <= end})
    columns = [[_interpolate(c, t) for c in curves] for t in grid]
    mean = [sum(col) / len(col) for col in columns]
    sd = [math.sqrt(sum((x - m) ** 2 for x in col) / (len(col) - 1)) if len(col) > 1 else math.nan
          for col, m in zip(columns, mean)]
    return grid, mean, sd


def _interpolate(curve, t):
    """The piecewise-linear curve [(time, value), ...] (sorted) at time t (its first or last value outside it)."""
    if t <= curve[0][0]:
        return curve[0][1]
    for (t0, v0), (t1, v1) in zip(curve, curve[1:]):
        if t <= t1:
            return v1 if t1 == t0 else v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return curve[-1][1]


def axis_title(column):
    """How a varied field reads on an axis."""
    return {NODES: "nodes", TAU: "tau (local steps between global syncs)", GROUP_SIZE: "group size S (ranks)",
            "algorithm.label": "algorithm", "algorithm.name": "algorithm", "algorithm": "algorithm"}.get(column, column)


def short_name(column):
    """algorithm.tau -> tau, platform.nodes -> nodes, algorithm.label -> '' (the label speaks for itself)."""
    if column in ("algorithm.label", "algorithm.name", "algorithm"):
        return ""
    return column.split(".")[-1]


def value_text(column, value):
    """A cell of sweep.csv as it reads in a legend: numbers without a spurious .0, objects (JSON) in words."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str) and value.startswith("{"):
        try:
            obj = json.loads(value)
        except ValueError:
            return value
        if column.split(".")[-1] == "imbalance":
            return describe_imbalance(obj)
        if column.split(".")[-1] in ("compute", "distribution"):
            return describe_compute(obj)
        return " ".join(f"{k}={v}" for k, v in obj.items())
    return str(value)


def series_label(row, columns):
    if not columns:
        return str(row["algorithm"])
    parts = []
    for c in columns:
        name = short_name(c)
        text = value_text(c, row[c])
        parts.append(text if not name or name == "imbalance" else f"{name}={text}")
    return ", ".join(parts)


def _ms(seconds):
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def describe_imbalance(imbalance):
    """The resolved imbalance block of a scenario, in words."""
    kind = imbalance.get("kind", "none")
    if kind == "none":
        return "no injected imbalance"
    if kind == "random_delay":
        n = imbalance["ranks"]
        return f"{n} random rank{'s' if n != 1 else ''} +{_ms(imbalance['delay_s'])} per step"
    if kind in ("slow_worker", "slow_link"):
        ranks = imbalance.get("ranks")
        who = f"ranks {ranks}" if isinstance(ranks, list) else f"{ranks} rank{'s' if ranks != 1 else ''}"
        if kind == "slow_link":
            who = f"the links of {who}"
        redraw = imbalance.get("redraw_every", 0)
        return (f"{who} {imbalance['factor']}x slower"
                + (f", redrawn every {redraw} steps" if redraw else ""))
    if kind == "linear_skew":
        return f"rank r delayed r x {_ms(imbalance['step_s'])}"
    if kind == "shifted_skew":
        return f"delays {_ms(imbalance['min_s'])} to {_ms(imbalance['max_s'])}, shifting"
    together = imbalance.get("correlated_ranks", 1)
    by = ("" if together == 1 else f", by {imbalance['correlate']} ({together} ranks)" if "correlate" in imbalance
          else f", in blocks of {together} ranks")
    if kind == "distribution":
        d = imbalance.get("distribution", {})
        return f"delays ~ {d.get('kind', '?')} with probability {imbalance.get('probability', 1)}" + by
    if kind == "markov":
        slow = []
        if imbalance.get("factor", 1) != 1:
            slow.append(f"{imbalance['factor']}x")
        if imbalance.get("delay_s", 0):
            slow.append(f"+{_ms(imbalance['delay_s'])}")
        if "distribution" in imbalance:
            slow.append(f"+{imbalance['distribution'].get('kind', '?')} per episode")
        return (f"slow ({' '.join(slow) or 'no change'}) for ~{imbalance['mean_slow_steps']:g} steps, "
                f"normal for ~{imbalance['mean_normal_steps']:g}" + by)
    if kind == "ar1":
        return f"log step time AR(1), phi {imbalance['phi']:g}, sd {imbalance['sigma']:g}" + by
    return kind


def describe_compute(compute):
    kind = compute.get("kind")
    if kind == "constant":
        return f"{_ms(compute['seconds'])}/step"
    if kind in ("empirical", "replay"):
        m = compute.get("measured", {})
        return f"{kind} of {os.path.basename(compute.get('file', '?'))} (mean {_ms(m.get('mean_s', 0))})"
    if kind == "truncated_lognormal":
        return (f"lognormal fit: {_ms(compute['min_s'])} to {_ms(compute['max_s'])}, mean {_ms(compute['mean_s'])}, "
                f"sd {_ms(compute['sd_s'])}")
    if "mean_s" in compute:
        return f"{kind}, mean {_ms(compute['mean_s'])}"
    return str(kind)


def describe(sweep, rows=None):
    """'piz_daint, resnet50_p100 (641 ms/step), imbalance: 2 random ranks +320 ms per step' for the points in rows."""
    rows = sweep.df if rows is None else rows
    platforms, workloads, imbalances = [], [], []
    for _, row in rows.iterrows():
        s = sweep.summary(row)["scenario"]
        for seq, text in ((platforms, s["platform"]["name"]),
                          (workloads, f"{s['workload']['profile']} ({describe_compute(s['workload']['compute'])})"),
                          (imbalances, describe_imbalance(s.get("imbalance", {"kind": "none"})))):
            if text not in seq:
                seq.append(text)
    join = lambda seq: seq[0] if len(seq) == 1 else " / ".join(seq) if len(seq) <= 3 else f"{len(seq)} variants"
    return f"{join(platforms)}, {join(workloads)}, imbalance: {join(imbalances)}"


def _ordered(values):
    try:
        return sorted(values, key=float)
    except (TypeError, ValueError):
        return sorted(values, key=str)


def _colors(n):
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def _suptitle(fig, text):
    """A title that wraps to the figure's width instead of running off it."""
    width = max(40, int(fig.get_figwidth() * 11))
    fig.suptitle("\n".join(textwrap.fill(line, width) for line in text.split("\n")), fontsize=11)


def _legend_below(fig, handles, labels):
    """A legend under the plots (it never hides a bar); returns the height it takes, as a fraction of the figure."""
    if not handles:
        return 0.0
    column = max(2.4, 0.07 * max(len(label) for label in labels) + 0.6)  # inches per legend column
    ncol = max(1, min(len(labels), int(fig.get_figwidth() // column)))
    rows = math.ceil(len(labels) / ncol)
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=9, frameon=False)
    return min(0.4, (0.12 + 0.26 * rows) / fig.get_figheight())


def _message(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, transform=ax.transAxes, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])


# --- scaling ------------------------------------------------------------------------------------------------------

def scaling(sweep, x=NODES):
    """Throughput (global steps/s and samples/s) against nodes, a bar per series, and the ideal throughput without
    communication as the top of a rectangle wrapping each cluster (WAGMA-SGD Fig. 4/7/10)."""
    df = sweep.df
    if x not in df.columns:
        df = df.assign(**{x: df["nodes"]})
    series_cols = sweep.series_columns(exclude=(x,))
    df = df.assign(_series=[series_label(r, series_cols) for _, r in df.iterrows()])
    series = list(dict.fromkeys(df["_series"]))
    xs = _ordered(df[x].unique())
    colors = dict(zip(series, _colors(len(series))))
    # samples per global step: samples_per_s / steps_per_s = ranks x batch
    df = df.assign(ideal_samples_per_s=df["ideal_steps_per_s"] * df["samples_per_s"] / df["throughput_steps_per_s"])

    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    width = 0.8 / max(len(series), 1)
    for ax, value, ideal, ylabel in (
            (axes[0], "throughput_steps_per_s", "ideal_steps_per_s", "throughput (global steps/s)"),
            (axes[1], "samples_per_s", "ideal_samples_per_s", "throughput (samples/s)")):
        for i, xv in enumerate(xs):
            cluster = df[df[x] == xv]
            for k, name in enumerate(series):
                bar = cluster[cluster["_series"] == name]
                if bar.empty:
                    continue
                # Over seeds: the mean, and an error bar of +-1 sample sd (none for a single point).
                sd = bar[value].std(ddof=1) if sweep.seed_column and len(bar) > 1 else None
                ax.bar(i - 0.4 + (k + 0.5) * width, bar[value].mean(), width * 0.9, color=colors[name],
                       label=name if i == 0 else None, yerr=sd, capsize=3 if sd is not None else 0,
                       error_kw={"elinewidth": 1, "ecolor": "black"})
            top = cluster[ideal].max()
            ax.add_patch(Rectangle((i - 0.45, 0), 0.9, top, fill=False, edgecolor="black", linewidth=1.2,
                                   linestyle="--", label="ideal: no communication" if i == 0 else None))
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([str(int(v)) if float(v).is_integer() else str(v) for v in xs])
        ax.set_xlabel("nodes" if x == NODES else x)
        ax.set_ylabel(ylabel)
        ax.set_xlim(-0.6, len(xs) - 0.4)
        ax.set_ylim(0, max(df[ideal].max(), df[value].max()) * 1.12)
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    note = seed_note(sweep)  # in the title: bars are means, error bars one sd
    bottom = _legend_below(fig, handles, labels)
    _suptitle(fig, f"Throughput against scale" + (f", {note}" if note else "") + f"\n{describe(sweep)}")
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


# --- group size and tau ---------------------------------------------------------------------------------------------

def _heatmap_axes(sweep, x_pref=TAU, y_pref=GROUP_SIZE):
    """(x, y) columns of the heatmaps: tau and group size when varied, else other varied fields."""
    varied = sweep.varied()
    numeric_first = sorted(varied, key=lambda c: (c.startswith("algorithm.label") or c == "algorithm.name", 0))
    x = x_pref if x_pref in varied else next((c for c in numeric_first if c != y_pref), None)
    y = y_pref if y_pref in varied else next((c for c in numeric_first if c != x), None)
    return x, y


def _accuracy_column(df):
    if "final_test_accuracy" in df.columns and df["final_test_accuracy"].notna().any():
        return "final_test_accuracy", "final test accuracy (%)", 100.0
    if "final_loss" in df.columns and df["final_loss"].notna().any():
        return "final_loss", "final test loss", 1.0
    return None, None, None


def group_size_tau(sweep, x=None, y=None):
    """Heatmaps of throughput (global steps/s) and final test accuracy over tau (x) and group size S (y), one row
    per algorithm (or other remaining varied field); other varied fields are averaged over, and the title says so."""
    dx, dy = _heatmap_axes(sweep)
    x = x or dx
    y = y or dy
    df = sweep.df
    if x is None:
        fig, ax = plt.subplots(figsize=(7, 3))
        _message(ax, "This sweep varies nothing a heatmap could show:\nvary algorithm.tau and algorithm.group_size.")
        _suptitle(fig, f"Throughput and accuracy over S and tau\n{describe(sweep)}")
        return fig
    rest = [c for c in sweep.series_columns(exclude=(x, y) if y else (x,))]
    row_col = rest[0] if rest else None
    averaged = rest[1:]
    rows = list(dict.fromkeys(df[row_col])) if row_col else [None]
    acc_col, acc_label, acc_scale = _accuracy_column(df)

    fig, axes = plt.subplots(len(rows), 2, figsize=(12, 3.6 * len(rows) + 0.9), squeeze=False)
    for r, rv in enumerate(rows):
        part = df if row_col is None else df[df[row_col] == rv]
        xs = _ordered(part[x].unique())
        ys = _ordered(part[y].unique()) if y else [None]
        for c, (value, label, scale, cmap) in enumerate((
                ("throughput_steps_per_s", "throughput (global steps/s)", 1.0, "viridis"),
                (acc_col, acc_label, acc_scale, "magma" if acc_col == "final_test_accuracy" else "magma_r"))):
            ax = axes[r][c]
            prefix = (", ".join(part["algorithm"].unique()) if row_col is None
                      else series_label(part.iloc[0], [row_col])) + ": "
            if value is None:
                _message(ax, "no accuracy in this sweep\n(math.model = none: timing only)")
                ax.set_title(prefix + "final test accuracy", fontsize=10)
                continue
            cells = [[part[(part[x] == xv) & ((part[y] == yv) if y else True)][value] * scale for xv in xs]
                     for yv in ys]
            grid = [[cell.mean() for cell in line] for line in cells]
            # Over seeds: the sample sd under the mean (the seeds of one cell are the replicates of its point).
            spread = [[cell.std(ddof=1) if sweep.seed_column and not averaged and cell.count() > 1
                       else math.nan for cell in line]
                      for line in cells]
            im = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap)
            finite = [v for line in grid for v in line if not math.isnan(v)]
            mid = (min(finite) + max(finite)) / 2 if finite else 0
            for i, line in enumerate(grid):
                for j, v in enumerate(line):
                    if not math.isnan(v):
                        sd = spread[i][j]
                        text = f"{v:#.3g}" if math.isnan(sd) else f"{v:#.3g}\n{PM}{sd:.2g}"
                        ax.text(j, i, text, ha="center", va="center", fontsize=9 if math.isnan(sd) else 8,
                                color="white" if (v < mid) == (cmap == "viridis" or cmap == "magma") else "black")
            ax.set_xticks(range(len(xs)))
            crowded = len(xs) > 3 and max(len(str(v)) for v in xs) > 6  # long names side by side: slanted
            ax.set_xticklabels([str(v) for v in xs], rotation=30 if crowded else 0, ha="right" if crowded else "center")
            ax.set_yticks(range(len(ys)))
            ax.set_yticklabels([str(v) for v in ys] if y else [""])
            ax.set_xlabel(axis_title(x))
            ax.set_ylabel(axis_title(y) if y else "")
            ax.set_title(prefix + label, fontsize=10)
            fig.colorbar(im, ax=ax, label=label)
    note = f"; averaged over {', '.join(averaged)}" if averaged else ""
    if sweep.seed_column:
        note += f"; {seed_note(sweep)}"
    over = f"{axis_title(y).split(' (')[0]} and {axis_title(x).split(' (')[0]}" if y else axis_title(x).split(" (")[0]
    _suptitle(fig, f"Throughput and accuracy over {over}{note}\n"
                 f"{describe(sweep)}")
    fig.tight_layout()
    return fig


# --- time to accuracy ----------------------------------------------------------------------------------------------

def _target(summary):
    """(kind, level) of the run's target, ('accuracy', 0.8) or ('loss', 0.5), or None without one."""
    m = summary.get("scenario", {}).get("math", {})
    if m.get("target_accuracy") is not None:
        return "accuracy", float(m["target_accuracy"])
    if m.get("target_loss") is not None:
        return "loss", float(m["target_loss"])
    return None


def _curve(summary, accuracy):
    """(times, values) of a run's evaluations: test accuracy in % (accuracy true) or test loss."""
    ev = pd.DataFrame(summary.get("evaluations") or [])
    if ev.empty:
        return [], []
    values = ev["test_accuracy"] * 100 if accuracy else ev["test_loss"]
    keep = values.notna()
    return ev["time_s"][keep].tolist(), values[keep].tolist()


def time_to_accuracy(sweep, facet=NODES, max_facets=4, ylim=None):
    """Test accuracy of the averaged model against simulated time, one line per algorithm (per series), one panel
    per node count (the largest ones when there are many). With a target (math.target_accuracy or target_loss) a
    dotted line marks it and a diamond on it each series' time_to_target_s.

    Over seeds (a sweep varying `seed`): each series is the mean of its seeds' curves in a shaded band of +-1 sample
    standard deviation, computed on a common simulated-time grid (mean_curve: the union of the seeds' evaluation
    times up to the earliest end among them, each seed's curve linearly interpolated between its own evaluations,
    which are every math.eval_every steps). The diamond is the mean time_to_target_s with an error bar of +-1 sd
    over the seeds that reached the target; the legend says how many did when not all. ylim: (low, high) of the
    y axis, e.g. to show the end of training rather than the first steps."""
    df = sweep.df
    has_curve = [bool(sweep.summary(r).get("evaluations")) for _, r in df.iterrows()]
    if not any(has_curve):
        fig, ax = plt.subplots(figsize=(8, 3.5))
        _message(ax, "no evaluations in this sweep:\nrun it with a proxy model (math.model) and math.eval_every > 0")
        _suptitle(fig, f"Time to accuracy\n{describe(sweep)}")
        fig.tight_layout()
        return fig
    df = df[has_curve]
    facets = _ordered(df[facet].unique()) if facet in df.columns and df[facet].nunique() > 1 else [None]
    facets = facets[-max_facets:]
    series_cols = sweep.series_columns(exclude=(facet,))
    labels = list(dict.fromkeys(series_label(r, series_cols) for _, r in df.iterrows()))
    # Many series: a wider figure, and room for their legend (entries name the time to the target).
    width = max(6 * len(facets), 10 if len(labels) > 4 else 6)
    fig, axes = plt.subplots(1, len(facets), figsize=(width, 4.6 + 0.25 * math.ceil(len(labels) / 2)),
                             squeeze=False)
    colors = dict(zip(labels, _colors(len(labels))))
    accuracy = any(pd.DataFrame(sweep.summary(r)["evaluations"])["test_accuracy"].notna().any()
                   for _, r in df.iterrows())
    ylabel = "test accuracy (%)" if accuracy else "test loss"
    targets = set()
    handles, labels_shown = [], []
    for ax, fv in zip(axes[0], facets):
        part = df if fv is None else df[df[facet] == fv]
        series = {}
        for _, row in part.iterrows():
            series.setdefault(series_label(row, series_cols), []).append(row)
        for label, rows in series.items():
            summaries = [sweep.summary(r) for r in rows]
            curves = [_curve(s, accuracy) for s in summaries]
            color = colors[label]
            if sweep.seed_column and len(rows) > 1:
                grid, mean, sd = mean_curve(curves)
                line, = ax.plot(grid, mean, color=color)
                ax.fill_between(grid, [m - d for m, d in zip(mean, sd)], [m + d for m, d in zip(mean, sd)],
                                color=color, alpha=0.22, linewidth=0)
            else:
                line = None
                for t, v in curves:
                    line, = ax.plot(t, v, marker="o", markersize=3, color=color)
            # The target and when each series reached it.
            target = _target(summaries[0])
            text = label
            if target and (target[0] == "accuracy") == accuracy:
                level = target[1] * 100 if accuracy else target[1]
                targets.add(level)
                times = [s.get("time_to_target_s") for s in summaries]
                reached = [t for t in times if t is not None]
                if reached:
                    mean_t = sum(reached) / len(reached)
                    sd_t = (math.sqrt(sum((t - mean_t) ** 2 for t in reached) / (len(reached) - 1))
                            if len(reached) > 1 else None)
                    ax.errorbar([mean_t], [level], xerr=[[sd_t], [sd_t]] if sd_t is not None else None,
                                marker="D", markersize=6, color=color, markeredgecolor="black", capsize=3,
                                zorder=4)
                    when = f"{mean_t:.3g} {PM} {sd_t:.2g} s" if sd_t is not None else f"{mean_t:.3g} s"
                    text += f"; target at {when}"
                    if len(reached) < len(times):
                        text += f" ({len(reached)} of {len(times)} seeds)"
                else:
                    text += "; target not reached"
            if text not in labels_shown:
                handles.append(line)
                labels_shown.append(text)
        if fv is not None:
            ax.set_title(f"{int(fv) if float(fv).is_integer() else fv} nodes", fontsize=10)
        ax.set_xlabel("simulated time (s)")
        ax.grid(alpha=0.3)
    for ax in axes[0]:
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        for level in targets:
            ax.axhline(level, color="gray", linestyle=":", linewidth=1)
    if targets:
        handles.append(axes[0][0].get_lines()[-1])
        labels_shown.append("target: " + ", ".join(f"{t:g}{'%' if accuracy else ''}" for t in sorted(targets)))
    bottom = _legend_below(fig, handles, labels_shown)
    proxy = df["proxy_model"].dropna().unique() if "proxy_model" in df.columns else []
    title = "Time to accuracy"
    if len(proxy):
        title += f" of the proxy {', '.join(proxy)} (average of the ranks' models)"
    partitions = {json.dumps(sweep.summary(r)["scenario"].get("math", {}).get("partition", {"kind": "iid"}),
                             sort_keys=True) for _, r in df.iterrows()}
    if len(partitions) == 1 and json.loads(next(iter(partitions))).get("kind", "iid") != "iid":
        partition = json.loads(next(iter(partitions)))
        fields = ", ".join(f"{k} {v}" for k, v in partition.items() if k != "kind")
        title += f", {partition['kind']} partition" + (f" ({fields})" if fields else "")
    note = seed_note(sweep)
    if note:
        title += f", {note}"
    _suptitle(fig, f"{title}\n{describe(sweep)}")
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


# --- imbalance -----------------------------------------------------------------------------------------------------

def imbalance_violin(sweep, x=NODES, max_clusters=6):
    """Distribution of per-step throughput, 1 / (compute + communication time) of every rank and step, as violins
    per series, clustered by node count (WAGMA-SGD Fig. 10)."""
    df = sweep.df
    xs = _ordered(df[x].unique()) if x in df.columns else [None]
    xs = xs[-max_clusters:]
    series_cols = sweep.series_columns(exclude=(x,))
    labels = list(dict.fromkeys(series_label(r, series_cols) for _, r in df.iterrows()))
    colors = dict(zip(labels, _colors(len(labels))))
    width = 0.8 / max(len(labels), 1)
    fig, ax = plt.subplots(figsize=(max(9, 1.6 * len(xs) * max(1, len(labels) / 2) + 2), 5.5))
    drawn = False
    bottom = 0.0
    for i, xv in enumerate(xs):
        cluster = df if xv is None else df[df[x] == xv]
        for k, label in enumerate(labels):
            rows = [r for _, r in cluster.iterrows() if series_label(r, series_cols) == label]
            samples = []
            for row in rows:
                it = sweep.iterations(row)
                if it is not None:
                    step = it["compute_s"] + it["comm_s"]
                    samples.extend((1.0 / step[step > 0]).tolist())
            if len(samples) < 2:
                continue
            position = i - 0.4 + (k + 0.5) * width
            parts = ax.violinplot([samples], positions=[position], widths=width * 0.9,
                                  showmedians=True, showextrema=True)
            # A dot at the median, in the series' colour: a violin of (nearly) constant throughput is only a line.
            ax.scatter([position], [float(pd.Series(samples).median())], color=colors[label], edgecolor="black",
                       zorder=3, s=28)
            for body in parts["bodies"]:
                body.set_facecolor(colors[label])
                body.set_edgecolor("black")
                body.set_alpha(0.75)
            for key in ("cmedians", "cmins", "cmaxes", "cbars"):
                if key in parts:
                    parts[key].set_color("black")
                    parts[key].set_linewidth(0.8)
            drawn = True
    if not drawn:
        _message(ax, "no iterations.csv in this sweep (output.iterations_csv = false)")
    else:
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(["" if v is None else str(int(v)) if float(v).is_integer() else str(v) for v in xs])
        ax.set_xlabel("nodes")
        ax.set_ylabel("per-step throughput (steps/s per rank)")
        ax.grid(axis="y", alpha=0.3)
        bottom = _legend_below(fig, [Patch(facecolor=colors[l], edgecolor="black") for l in labels], labels)
    pooled = f", pooled over {sweep.seeds} seeds" if sweep.seed_column else ""
    _suptitle(fig, f"Per-step throughput: 1 / (compute + communication) of every rank and step{pooled}\n"
                 f"{describe(sweep)}")
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


def runtime_histogram(sweep, row=None, bins=60):
    """Histogram of the per-step compute time of every rank and step of one point (by default the one with the most
    ranks), workload plus injected delays, as the eager-SGD paper's runtime distributions."""
    df = sweep.df
    if row is None:
        row = df.sort_values(["ranks", "iterations"], ascending=False).iloc[0]
    it = sweep.iterations(row)
    fig, ax = plt.subplots(figsize=(8, 4.8))
    if it is None:
        _message(ax, "no iterations.csv for this point (output.iterations_csv = false)")
    else:
        ms = it["compute_s"] * 1000
        ax.hist(ms, bins=bins, color="tab:blue", edgecolor="black", linewidth=0.4)
        stats = (f"{len(ms)} rank-steps\nmin {ms.min():.0f} ms\nmedian {ms.median():.0f} ms\nmean {ms.mean():.0f} ms\n"
                 f"max {ms.max():.0f} ms\nsd {ms.std():.0f} ms")
        ax.text(0.98, 0.95, stats, transform=ax.transAxes, ha="right", va="top", fontsize=9,
                bbox=dict(boxstyle="round", facecolor="white", alpha=0.8))
        ax.set_xlabel("compute time per step (ms)")
        ax.set_ylabel("number of steps (all ranks)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend([Patch(facecolor="tab:blue", edgecolor="black")], [f"{row['algorithm']}, {int(row['ranks'])} ranks"],
                  loc="center right", fontsize=9)
    _suptitle(fig, f"Runtime distribution (workload plus injected delays)\n{describe(sweep, df[df['dir'] == row['dir']])}")
    fig.tight_layout()
    return fig


# --- output --------------------------------------------------------------------------------------------------------

def plots_dir(sweep, out=None):
    out = out or os.environ.get("QUORUM_PLOTS") or os.path.join(sweep.dir, "plots")
    os.makedirs(out, exist_ok=True)
    return out


def save(fig, sweep, name, out=None):
    """Writes fig as <name>.png into out (default SWEEP_DIR/plots, or $QUORUM_PLOTS); returns the path."""
    path = os.path.join(plots_dir(sweep, out), f"{name}.png")
    fig.savefig(path, dpi=110)
    return path


def load_sweep(directory=None):
    """The sweep in directory, else in $QUORUM_SWEEP (how the notebooks are pointed at a sweep)."""
    directory = directory or os.environ.get("QUORUM_SWEEP")
    if not directory:
        raise ValueError("no sweep directory: pass one or set QUORUM_SWEEP")
    return Sweep(directory)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Write the PNG figures of a quorum sweep directory.")
    parser.add_argument("sweep_dir", help="directory written by `quorum sweep` (holds sweep.csv)")
    parser.add_argument("--out", help="where to write the PNGs (default: SWEEP_DIR/plots)")
    parser.add_argument("--only", help="comma-separated subset of: " + ", ".join(FIGURES))
    parser.add_argument("--ylim", metavar="LOW,HIGH", help="time_to_accuracy: the y axis' range (e.g. 60,90)")
    args = parser.parse_args(argv)
    options = {}
    if args.ylim:
        try:
            low, high = (float(v) for v in args.ylim.split(","))
        except ValueError:
            print(f"error: --ylim takes LOW,HIGH (two numbers), not {args.ylim!r}", file=sys.stderr)
            return 2
        options["time_to_accuracy"] = {"ylim": (low, high)}
    try:
        sweep = Sweep(args.sweep_dir)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    names = args.only.split(",") if args.only else FIGURES
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        print(f"error: unknown figure(s) {', '.join(unknown)}; choose from {', '.join(FIGURES)}", file=sys.stderr)
        return 2
    for name in names:
        fig = globals()[name](sweep, **options.get(name, {}))
        print(save(fig, sweep, name, args.out))
        plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
