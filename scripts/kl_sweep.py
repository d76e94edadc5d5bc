#!/usr/bin/env python3
"""KL sweep (perf notes §89): for each shape, time every (tile, kg, kl) candidate through
ptxblas-bench's oracle (--oracle-specs, one process per shape, cuBLAS beside it) and print, per
shape and tile each kg's time at kl = 1, 2 and 4, then the best candidate with kl = 1 and with kl > 1.

  scripts/kl_sweep.py --bench build/bin/ptxblas-bench --out DIR [--shapes FILE]
  scripts/kl_sweep.py --summarize DIR/candidates.csv

A shapes file holds lines "TYPE TRANSA TRANSB M N K NAME | tile; tile; ... | kg kg ...", a tile
being "family ml nl u ms ns vec store_pad stages" (ptxblas_force_tile's fields without kg and
kl). Illegal candidates are forwarded by the library and skipped by the oracle. Writes
DIR/candidates.csv (every candidate's 5-call median) and DIR/bench.csv (cuBLAS, the dispatcher
and the retimed best of each shape).
"""

import argparse
import csv
import os
import subprocess
import sys

DEFAULT_SHAPES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kl_sweep_shapes.txt")


def specs(tiles, kgs):
    out = []
    for tile in tiles:
        f = tile.split()
        for kl in (1, 2, 4):
            for kg in kgs:
                out.append(" ".join(f[:7] + [str(kg)] + f[7:9] + [str(kl)]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--summarize", metavar="CSV", help="only print the tables of an earlier run's candidates.csv")
    args = ap.parse_args()
    if args.summarize:
        shapes = []
        for row in csv.reader(open(args.summarize)):
            if (row[0], row[6]) not in shapes:
                shapes.append((row[0], row[6]))
        return summarize(args.summarize, shapes)
    os.makedirs(args.out, exist_ok=True)
    log = os.path.join(args.out, "candidates.csv")
    bench_csv = os.path.join(args.out, "bench.csv")
    for path in (log, bench_csv):
        if os.path.exists(path):
            os.remove(path)
    names = []
    for line in open(args.shapes):
        line = line.split("#")[0].strip()
        if not line:
            continue
        shape, tiles, kgs = (x.strip() for x in line.split("|"))
        names.append((shape.split()[0], shape.split()[6]))
        suite = os.path.join(args.out, "suite.txt")
        with open(suite, "w") as fh:
            fh.write(shape + "\n")
        cands = specs([t for t in tiles.split(";") if t.strip()], [int(k) for k in kgs.split()])
        part = os.path.join(args.out, "bench_part.csv")
        cmd = [args.bench, "--suite", suite, "--csv", part, "--oracle-ms", "600000", "--oracle-log", log,
               "--oracle-specs", ";".join(cands)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        sys.stderr.write(r.stdout[-2000:] + r.stderr[-2000:])
        if r.returncode != 0:
            print("bench failed on %s (exit %d)" % (shape, r.returncode))
            continue
        rows = list(csv.reader(open(part)))
        with open(bench_csv, "a", newline="") as fh:
            w = csv.writer(fh)
            if os.path.getsize(bench_csv) == 0:
                w.writerow(rows[0])
            w.writerows(rows[1:])
    summarize(log, names)


def summarize(log, shapes):
    """Per shape and tile, each kg's 5-call median (us) at kl = 1, 2, 4; then per shape the best of
    kl = 1 against the best of kl > 1."""
    times, tiles = {}, {}
    with open(log) as fh:
        for row in csv.reader(fh):
            if len(row) < 11:
                continue
            f = row[7].split()
            shape, tile = (row[0], row[6]), " ".join(f[:7]) + " stages " + f[9]
            kg, kl = int(f[7]), int(f[10]) if len(f) > 10 else 1
            times[(shape, tile, kg, kl)] = (float(row[9]) * 1e3, row[8])
            tiles.setdefault(shape, {}).setdefault(tile, set()).add(kg)
    for shape in shapes:
        for tile, kgs in tiles.get(shape, {}).items():
            print("%s %s  %s" % (shape[0], shape[1], tile))
            for kg in sorted(kgs):
                cells = ["kl%d %7.1f" % (kl, times[(shape, tile, kg, kl)][0]) if (shape, tile, kg, kl) in times
                         else "kl%d       -" % kl for kl in (1, 2, 4)]
                print("   kg %3d: %s" % (kg, "  ".join(cells)))
    print("%-22s %9s %9s %7s  %s" % ("shape", "kl=1 us", "kl>1 us", "gain", "best kl>1 (best kl=1)"))
    for shape in shapes:
        best = {}
        for (s, _, _, kl), (us, kernel) in times.items():
            if s == shape and (kl > 1) not in best or s == shape and us < best[kl > 1][0]:
                best[kl > 1] = (us, kernel)
        if len(best) < 2:
            print("%-22s missing candidates" % " ".join(shape))
            continue
        a, b = best[False], best[True]
        print("%-22s %9.1f %9.1f %6.3fx  %s (%s)" % (" ".join(shape), a[0], b[0], a[0] / b[0], b[1], a[1]))

if __name__ == "__main__":
    main()
