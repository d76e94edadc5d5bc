#!/usr/bin/env python3
"""Per-kernel time of one TRSM call from an ncu CSV (perf notes §60-§66 used it).

On the GPU machine, for example:
  ncu --clock-control none --cache-control none --kernel-name regex:'^(simt_|mma_|tri_|mat_)' \\
      --launch-count 300 --metrics gpu__time_duration.sum --csv \\
      build/bin/ptxblas-bench-blas3 --suite SUITE --max-ms 1 > trsm.csv
  scripts/ncu_trsm_steps.py trsm.csv

Each TRSM call starts with its diagonal inverse (a tri_inv kernel); the last call with as many
kernels as the first is summarised: kernels grouped by name and grid, largest total first.
Python 3 standard library only.
"""
import collections
import csv
import sys


def main(path):
    with open(path) as fh:
        rows = list(csv.reader(line for line in fh if line.startswith('"')))
    if not rows:
        sys.exit("%s: no ncu CSV rows" % path)
    head, rows = rows[0], rows[1:]
    name, grid, value = head.index("Kernel Name"), head.index("Grid Size"), head.index("Metric Value")
    calls = []
    for r in rows:
        if r[name].startswith("tri_inv"):
            calls.append([])
        if calls:
            calls[-1].append((r[name], r[grid], float(r[value].replace(",", "")) / 1000))  # ns -> us
    if not calls:
        sys.exit("%s: no TRSM call (no tri_inv kernel)" % path)
    full = [c for c in calls if len(c) == len(calls[0])]
    call = full[-1] if len(full) > 1 else calls[0]
    groups = collections.OrderedDict()
    for k, g, t in call:
        groups.setdefault((k, g), []).append(t)
    print("%s: %d calls, %d kernels in the one shown, %.1f us" % (path, len(calls), len(call), sum(t for _, _, t in call)))
    for (k, g), ts in sorted(groups.items(), key=lambda x: -sum(x[1])):
        print("  %3d x %-50s %-14s %8.1f us (%.1f each)" % (len(ts), k, g, sum(ts), sum(ts) / len(ts)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
