#!/usr/bin/env python3
"""One table row per kernel of an ncu CSV written by scripts/ncu_shapes.sh (details page, one row
per kernel launch and metric): medians over that kernel's launches of its time, SM and DRAM
throughput, achieved occupancy, registers, grid and waves, its three busiest pipes and its three
largest stall reasons (cycles per issued instruction). Python 3 standard library only.

  scripts/ncu_summary.py SHAPE.csv ["S TN 2560 128 2560 deepbench-b-128"]
"""
import collections
import csv
import statistics
import sys

PIPE, STALL = "sm__pipe_", "smsp__average_warps_issue_stalled_"


def number(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def main(path, title):
    with open(path) as fh:
        rows = list(csv.reader(line for line in fh if line.startswith('"')))
    if not rows:
        sys.exit("%s: no ncu CSV rows" % path)
    head, rows = rows[0], rows[1:]
    kid, name, metric, value = (head.index(k) for k in ("ID", "Kernel Name", "Metric Name", "Metric Value"))
    launches = collections.OrderedDict()  # launch id -> (kernel, {metric: value})
    for r in rows:
        v = number(r[value])
        if v is not None:
            launches.setdefault(r[kid], (r[name], {}))[1][r[metric]] = v
    kernels = collections.OrderedDict()
    for k, m in launches.values():
        kernels.setdefault(k, []).append(m)
    print("## %s (%s)" % (title or path, path))
    print("| kernel | launches | us | SM % | DRAM % | occupancy % | regs | grid | waves | busiest pipes % | top stalls (cycles/issue) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for k, ms in kernels.items():
        med = lambda key: statistics.median(m.get(key, 0) for m in ms)
        keys = set().union(*ms)
        pipes = sorted(((med(x), x[len(PIPE):].split("_cycles")[0]) for x in keys if x.startswith(PIPE)), reverse=True)
        stalls = sorted(((med(x), x[len(STALL):].split("_per_issue")[0]) for x in keys if x.startswith(STALL)), reverse=True)
        print("| %s | %d | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %s | %s |" % (
            k[:60], len(ms), med("gpu__time_duration.sum") / 1000, med("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            med("dram__throughput.avg.pct_of_peak_sustained_elapsed"), med("sm__warps_active.avg.pct_of_peak_sustained_active"),
            med("launch__registers_per_thread"), med("launch__grid_size"), med("launch__waves_per_multiprocessor"),
            ", ".join("%s %.0f" % (n, v) for v, n in pipes[:3]), ", ".join("%s %.1f" % (n, v) for v, n in stalls[:3])))
    print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
