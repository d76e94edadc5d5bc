#!/usr/bin/env python3
"""Fit the wgmma wave model's per-tile rates (dispatch/wgmma_waves.hpp, perf notes §121-§123)
to oracle logs, and score how often its pick is the best timed tile.

Input: `ptxblas-bench --oracle-log` CSVs (no header: type, transa, transb, m, n, k, name, spec,
kernel, ms, TFLOP/s), by default docs/measurements/h200-oracle-logs/*.csv. Only unsplit wgmma rows
count. A grid of B blocks costs full waves plus, for a part-full last wave, `a` + (1 - a) x its
fill (a = 1: every wave whole, as dispatch did up to §123; a = 0.4: dispatch since §124,
kPartialWave in dispatch/wgmma_waves.hpp; a = 0: fractional waves).

    python3 scripts/fit_wave_rates.py [logs...] [--partial 1 0.5 0.4]

The table in dispatch/wgmma_waves.cpp (perf notes §124) is
`fit_wave_rates.py docs/measurements/h200-oracle-logs/s12*.csv --partial 0.4` (the §121-§123
logs), with 128x192 s5 then set from 1.02 to 0.99 after the A/B.

Prints, per `a`: the rates relative to 128x256 s4 (medians over the rows), then the geomean and
worst of pick / best over every shape with three or more timed tiles, in sample and with each
log left out of the fit in turn.
"""
import argparse
import collections
import csv
import glob
import math
import os
import statistics

SMS = 132


def load(paths):
    rows = []
    for path in paths:
        for x in csv.reader(open(path)):
            if len(x) < 11 or not x[7].startswith("wgmma"):
                continue
            spec = x[7].split()[1:]  # ml nl u ms ns vec kg pad stages
            if spec[6] != "1":
                continue
            rows.append(dict(log=os.path.basename(path), name=x[6], m=int(x[3]), n=int(x[4]), k=int(x[5]),
                             tile=(int(spec[0]), int(spec[1]), int(spec[8])), ms=float(x[9]), tflops=float(x[10])))
    return rows


def waves(blocks, a):
    full, part = divmod(blocks, SMS)
    return full + (a + (1 - a) * part / SMS if part else 0)


def cost(m, n, tile, rate, a):
    blocks = math.ceil(m / tile[0]) * math.ceil(n / tile[1])
    return waves(blocks, a) * tile[0] * tile[1] / rate


def fit(rows, a):
    per_tile = collections.defaultdict(list)
    for r in rows:
        t = r["tile"]
        per_tile[t].append(cost(r["m"], r["n"], t, 1.0, a) * r["k"] / r["ms"])
    return {t: statistics.median(v) for t, v in per_tile.items()}


def scores(rows, rates, a):
    shapes = collections.defaultdict(dict)
    for r in rows:
        shapes[(r["log"], r["name"])][r["tile"]] = r
    out = []
    for timed in shapes.values():
        tiles = [t for t in timed if t in rates]
        if len(tiles) < 3:
            continue
        any_row = timed[tiles[0]]
        pick = min(tiles, key=lambda t: cost(any_row["m"], any_row["n"], t, rates[t], a))
        out.append(timed[pick]["tflops"] / max(timed[t]["tflops"] for t in tiles))
    return out


def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("logs", nargs="*")
    p.add_argument("--partial", type=float, nargs="+", default=[1.0, 0.5, 0.4])
    args = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    paths = args.logs or sorted(glob.glob(os.path.join(here, "..", "docs", "measurements", "h200-oracle-logs", "*.csv")))
    rows = load(paths)
    logs = sorted({r["log"] for r in rows})
    print(f"{len(rows)} unsplit rows from {len(logs)} logs")
    for a in args.partial:
        rates = fit(rows, a)
        base = rates.get((128, 256, 4), 1.0)
        print(f"\na = {a:g}: rates / 128x256 s4: " +
              ", ".join(f"{t[0]}x{t[1]} s{t[2]} {v / base:.2f}" for t, v in sorted(rates.items())))
        inside = scores(rows, rates, a)
        held = []
        for log in logs:
            held += scores([r for r in rows if r["log"] == log], fit([r for r in rows if r["log"] != log], a), a)
        for label, s in (("in sample", inside), ("each log held out", held)):
            print(f"  {label:17s}: {len(s)} shapes, pick / best geomean {geomean(s):.3f}, worst {min(s):.2f}, "
                  f"{sum(x < 0.9 for x in s)} below 0.9")


if __name__ == "__main__":
    main()
