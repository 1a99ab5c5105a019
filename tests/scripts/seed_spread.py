#!/usr/bin/python3
"""Seed-to-seed spread: `quorum sweep --vary seed=1,2` on a tiny scenario with the math on (4 ranks, 16 steps,
softmax), then the figures of notebooks/plots.py and `scripts/summarize-results --over-seeds` must show, per
configuration, exactly the mean and the sample standard deviation that this test computes on its own from the
points' summary.json files (statistics.mean/stdev, numpy.interp for the curves). About 5 s on 2 cores.

Usage: tests/scripts/seed_spread.py --quorum BUILD/quorum [--keep]
"""
import argparse
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "notebooks"))
import plots  # noqa: E402

SCENARIO = {
    "name": "seed_spread",
    "seed": 1,
    "platform": {"name": "piz_daint", "nodes": 4},
    "workload": {"profile": "resnet50_p100", "iterations": 16},
    "imbalance": {"kind": "random_delay", "ranks": 1, "delay_s": 0.32},
    "algorithm": [{"name": "allreduce"}, {"name": "wagma", "tau": 4, "group_size": 2}],
    "math": {"model": "softmax", "batch": 32, "lr": 0.1, "momentum": 0.9, "eval_every": 4, "target_accuracy": 0.7},
    "output": {"iterations_csv": False, "progress": False},
}
SEEDS = (1, 2, 3)
FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL: " + message, file=sys.stderr)


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


def expected(sweep_dir):
    """{algorithm: {field: (n, mean, sd)}, ...} from the points' summary.json files, grouped by the summary's own
    algorithm name (the configurations of this sweep), with the seeds each holds."""
    by_algorithm = {}
    points = os.path.join(sweep_dir, "points")
    for point in sorted(os.listdir(points)):
        with open(os.path.join(points, point, "summary.json")) as f:
            s = json.load(f)
        by_algorithm.setdefault(s["algorithm"], []).append(s)
    out = {}
    for algorithm, runs in by_algorithm.items():
        check(sorted(r["scenario"]["seed"] for r in runs) == list(SEEDS), f"{algorithm}: seeds of the points")
        stats = {"_runs": runs}
        for field in ("throughput_steps_per_s", "final_test_accuracy", "final_loss", "time_to_target_s",
                      "step_to_target"):
            xs = [r[field] for r in runs if r[field] is not None]
            stats[field] = (len(xs), statistics.mean(xs) if xs else None,
                            statistics.stdev(xs) if len(xs) > 1 else None)
        out[algorithm] = stats
    return out


def check_summarize(path, want, label):
    table = os.path.join(tempfile.mkdtemp(prefix="seed-spread-csv-"), "seeds.csv")
    run = subprocess.run([os.path.join(SOURCE, "scripts", "summarize-results"), path, "--over-seeds", "--csv", table],
                         capture_output=True, text=True)
    check(run.returncode == 0, f"summarize-results --over-seeds {label}: exit {run.returncode}: {run.stderr}")
    if run.returncode:
        return
    check(f"over {len(SEEDS)} seeds" in run.stdout, f"{label}: the printed table names the number of seeds")
    with open(table) as f:
        rows = list(csv.DictReader(f))
    check(sorted(r["algorithm"] for r in rows) == sorted(want), f"{label}: one line per configuration: {rows}")
    columns = {"throughput_steps_per_s": "steps_per_s"}
    for row in rows:
        stats = want[row["algorithm"]]
        check(row["seeds"] == str(len(SEEDS)), f"{label} {row['algorithm']}: seeds {row['seeds']}")
        for field, (n, mean, sd) in ((k, v) for k, v in stats.items() if not k.startswith("_")):
            col = columns.get(field, field)
            got = (int(row[f"{col}_n"]), float(row[f"{col}_mean"]) if row[f"{col}_mean"] else None,
                   float(row[f"{col}_sd"]) if row[f"{col}_sd"] else None)
            check(got[0] == n and close(got[1], mean) and close(got[2], sd),
                  f"{label} {row['algorithm']} {field}: summarize-results {got}, expected {(n, mean, sd)}")
        # The printed line shows the same mean and sd.
        line = next((l for l in run.stdout.splitlines() if l.split() and row["configuration"] in l.split()[0]), "")
        n, mean, sd = stats["throughput_steps_per_s"]
        check(f"{mean:.4f} \u00b1 {sd:.4f}" in line, f"{label}: printed throughput of {row['algorithm']}: {line!r}")


def check_plots(sweep_dir, want):
    sweep = plots.Sweep(sweep_dir)
    check(sweep.seeds == len(SEEDS) and sweep.seed_column == "seed", "plots.Sweep sees the seeds")
    check("seed" not in sweep.varied(), "seed is no configuration axis")
    note = f"mean \u00b1 sd over {len(SEEDS)} seeds"
    check(plots.seed_note(sweep) == note, f"seed_note: {plots.seed_note(sweep)!r}")
    for field in ("throughput_steps_per_s", "final_test_accuracy", "time_to_target_s"):
        table = plots.seed_stats(sweep, field)
        check(len(table) == len(want), f"seed_stats({field}): {len(table)} configurations")
        for _, row in table.iterrows():
            n, mean, sd = want[row["algorithm.label"]][field]
            check(row["n"] == n and close(row["mean"] if n else None, mean) and close(row["sd"] if n > 1 else None, sd),
                  f"seed_stats {row['algorithm.label']} {field}: {row['n']}, {row['mean']}, {row['sd']}; "
                  f"expected {n}, {mean}, {sd}")

    # scaling: a bar at each configuration's mean throughput, its error bar +-1 sd.
    fig = plots.scaling(sweep)
    ax = fig.axes[0]
    heights = sorted(p.get_height() for p in ax.patches if type(p).__name__ == "Rectangle" and p.get_fill())
    means = sorted(w["throughput_steps_per_s"][1] for w in want.values())
    check(len(heights) == len(means) and all(close(a, b) for a, b in zip(heights, means)),
          f"scaling bars {heights}, expected means {means}")
    spans = []
    for container in ax.containers:
        if type(container).__name__ == "ErrorbarContainer":
            for segment in container.lines[2][0].get_segments():
                spans.append((segment[1][1] - segment[0][1]) / 2)
    sds = sorted(w["throughput_steps_per_s"][2] for w in want.values())
    check(len(spans) == len(sds) and all(close(a, b) for a, b in zip(sorted(spans), sds)),
          f"scaling error bars +-{sorted(spans)}, expected sd {sds}")
    check(note in fig._suptitle.get_text(), "scaling title names the seeds")
    plots.plt.close(fig)

    # time_to_accuracy: the mean curve of the seeds on the union of their evaluation times up to the earliest end,
    # each interpolated linearly (numpy.interp here), its band +-1 sd, and the target's diamond at the mean time.
    fig = plots.time_to_accuracy(sweep)
    ax = fig.axes[0]
    lines = {l.get_color(): l for l in ax.get_lines() if l.get_linestyle() == "-" and len(l.get_xdata()) > 1}
    check(note in fig._suptitle.get_text(), "time_to_accuracy title names the seeds")
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    for algorithm, stats in want.items():
        curves = []
        for s in stats["_runs"]:
            t = [e["time_s"] for e in s["evaluations"]]
            v = [e["test_accuracy"] * 100 for e in s["evaluations"]]
            curves.append((t, v))
        end = min(t[-1] for t, _ in curves)
        grid = sorted({x for t, _ in curves for x in t if x <= end})
        values = np.array([np.interp(grid, t, v) for t, v in curves])
        mean, sd = values.mean(axis=0), values.std(axis=0, ddof=1)
        g, m, d = plots.mean_curve(curves)
        check(len(g) == len(grid) and all(close(a, b) for a, b in zip(g, grid)), f"{algorithm}: time grid")
        check(all(close(a, b) for a, b in zip(m, mean)) and all(close(a, b) for a, b in zip(d, sd)),
              f"{algorithm}: mean curve {m} +- {d}, expected {list(mean)} +- {list(sd)}")
        drawn = [l for l in lines.values() if len(l.get_xdata()) == len(grid)
                 and all(close(a, b) for a, b in zip(l.get_ydata(), mean))]
        check(len(drawn) == 1, f"{algorithm}: the drawn mean curve")
        n, t_mean, t_sd = stats["time_to_target_s"]
        entry = next((e for e in legend if e.startswith(algorithm + ";")), "")
        if n:
            check(f"target at {t_mean:.3g}" in entry, f"{algorithm}: legend {entry!r}, mean time to target {t_mean}")
            diamonds = [l for l in ax.get_lines() if l.get_marker() == "D" and close(l.get_xdata()[0], t_mean)]
            check(len(diamonds) == 1, f"{algorithm}: a diamond at the mean time to target {t_mean}")
            if n < len(SEEDS):
                check(f"({n} of {len(SEEDS)} seeds)" in entry, f"{algorithm}: legend says who reached: {entry!r}")
        else:
            check("target not reached" in entry, f"{algorithm}: legend {entry!r}")
    bands = [c for c in ax.collections if type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection")]
    check(len(bands) == len(want), f"time_to_accuracy: {len(bands)} bands for {len(want)} configurations")
    plots.plt.close(fig)
    for name in ("group_size_tau", "imbalance_violin"):
        plots.plt.close(getattr(plots, name)(sweep))


def check_one_seed(sweep_dir, work):
    """The same sweep cut to seed 1 (sweep.csv filtered): no aggregation, figures as before seeds existed."""
    single = os.path.join(work, "one-seed")
    os.makedirs(single)
    os.symlink(os.path.join(sweep_dir, "points"), os.path.join(single, "points"))
    shutil.copy(os.path.join(sweep_dir, "sweep.json"), single)
    with open(os.path.join(sweep_dir, "sweep.csv")) as f, open(os.path.join(single, "sweep.csv"), "w") as g:
        reader = csv.DictReader(f)
        writer = csv.DictWriter(g, fieldnames=reader.fieldnames)
        writer.writeheader()
        writer.writerows(r for r in reader if r["seed"] == "1")
    sweep = plots.Sweep(single)
    check(sweep.seeds == 1 and sweep.seed_column is None and plots.seed_note(sweep) == "", "one seed: no aggregation")
    fig = plots.time_to_accuracy(sweep)
    check("seeds" not in fig._suptitle.get_text(), "one seed: title without seeds")
    check(not [c for c in fig.axes[0].collections if type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection")],
          "one seed: no bands")
    plots.plt.close(fig)
    fig = plots.scaling(sweep)
    check(not [c for c in fig.axes[0].containers if type(c).__name__ == "ErrorbarContainer"], "one seed: no error bars")
    plots.plt.close(fig)
    run = subprocess.run([os.path.join(SOURCE, "scripts", "summarize-results"), sweep_dir], capture_output=True,
                         text=True)
    lines = run.stdout.strip().splitlines()
    check(run.returncode == 0 and lines[0].split()[:2] == ["run", "algorithm"] and len(lines) == 1 + 2 * len(SEEDS),
          f"summarize-results without --over-seeds: one line per run as before:\n{run.stdout}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quorum", required=True)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="quorum-seed-spread-")
    scenario = os.path.join(work, "scenario.json")
    with open(scenario, "w") as f:
        json.dump(SCENARIO, f)
    sweep_dir = os.path.join(work, "sweep")
    run = subprocess.run([args.quorum, "sweep", scenario, "--vary", "seed=" + ",".join(map(str, SEEDS)), "-j", "2",
                          "--quiet", "--out", sweep_dir], capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stdout + run.stderr, file=sys.stderr)
        return 1
    want = expected(sweep_dir)
    check(len(want) == 2, f"two configurations: {sorted(want)}")
    check(any(w["throughput_steps_per_s"][2] > 0 for w in want.values()), "the seeds differ (a spread to check)")
    check_summarize(sweep_dir, want, "sweep directory")
    check_summarize(os.path.join(sweep_dir, "points"), want, "folder of summary.json files")
    check_plots(sweep_dir, want)
    check_one_seed(sweep_dir, work)
    if args.keep:
        print("kept " + work)
    else:
        shutil.rmtree(work)
    print(f"{len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
