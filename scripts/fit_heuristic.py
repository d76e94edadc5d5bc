#!/usr/bin/env python3
"""How dispatch/heuristic.cpp's rule was chosen (docs/perf-notes.md §14).

Reads a `ptxblas-bench --oracle-log` CSV (every oracle candidate's time per shape, e.g.
testing/reports/h100-oracle-log.csv) and prints, per type, the geometric mean and the worst of
(TFLOP/s of the rule's pick) / (best candidate), for the rule before §14 and the one after. A pick
whose slice count was not timed is looked up at the nearest timed count (the oracle tries powers
of two). The tile catalog below mirrors generator/tile_catalog.cpp.

usage: scripts/fit_heuristic.py testing/reports/h100-oracle-log.csv
"""
import collections
import csv
import math
import sys

SMS = 132
# family ml nl u ms ns vec store_pad stages, largest first, as in generator/tile_catalog.cpp
CATALOG = {
    'S': [('simt', 128, 128, 8, 8, 8, 4, 0, 2), ('simt', 64, 64, 8, 4, 4, 4, 0, 2), ('simt', 32, 32, 8, 2, 2, 2, 0, 2)],
    'D': [('mma', 128, 64, 8, 64, 32, 1, 0, 1), ('mma', 64, 64, 16, 32, 32, 1, 0, 1), ('mma', 32, 32, 16, 16, 16, 1, 0, 2)],
    'Z': [('mma', 64, 32, 8, 32, 16, 1, 0, 2), ('mma', 32, 32, 8, 16, 16, 1, 0, 2), ('mma', 32, 32, 16, 16, 16, 1, 0, 2)],
    'H': [('mma', 128, 128, 32, 64, 32, 1, 1, 2), ('mma', 64, 64, 32, 32, 32, 1, 1, 1), ('mma', 32, 32, 16, 16, 16, 1, 1, 1)],
}


def ceil_div(a, b):
    return (a + b - 1) // b


def plan(t, m, n, k, refined):
    tiles = CATALOG[t]
    blocks = lambda x: ceil_div(m, x[1]) * ceil_div(n, x[2])
    slices = max(1, min(k // 128, 256))
    pick = next((x for x in tiles if blocks(x) >= SMS), tiles[-1])
    want, deep = 4 * SMS, False
    if blocks(pick) < SMS and k >= 16 * max(m, n):
        for x in tiles:
            if x[1] * x[2] > pick[1] * pick[2] and x[1] <= m and x[2] <= n and blocks(x) >= 4:
                pick, want, deep = x, 2 * SMS, True
                break
    simt = tiles[0][0] == 'simt'
    if refined and simt and not deep:
        for x in tiles:
            filled = m * n / (ceil_div(m, x[1]) * x[1] * ceil_div(n, x[2]) * x[2])
            if x[1] * x[2] > pick[1] * pick[2] and filled >= 0.75 and blocks(x) < SMS and blocks(x) * slices >= 2 * SMS:
                pick = x
                break
    kg = max(1, min(ceil_div(want, blocks(pick)), slices))
    if refined and not simt and blocks(pick) >= SMS and k < 4 * math.sqrt(m * n) and pick[1] * pick[2] * k >= (2 << 20):
        kg = 1
    return pick, kg


def main(path):
    timed = collections.defaultdict(dict)  # shape -> {(tile, kg): TFLOP/s}
    for t, ta, tb, m, n, k, name, spec, _kernel, _ms, tflops in csv.reader(open(path)):
        f = spec.split()
        tile = (f[0],) + tuple(int(x) for x in f[1:7]) + (int(f[8]), int(f[9]))
        timed[(t, ta, tb, int(m), int(n), int(k), name)][(tile, int(f[7]))] = float(tflops)
    for refined in (False, True):
        ratios = collections.defaultdict(list)
        for shape, d in timed.items():
            if shape[0] not in CATALOG:
                continue
            tile, kg = plan(shape[0], *shape[3:6], refined)
            kgs = [g for (x, g) in d if x == tile]
            if not kgs:
                continue
            near = min(kgs, key=lambda g: abs(math.log2(g) - math.log2(kg)))
            ratios[shape[0]].append(d[(tile, near)] / max(d.values()))
        print('refined' if refined else 'before ', '  '.join(
            f"{t} {math.exp(sum(map(math.log, r)) / len(r)):.3f} (worst {min(r):.2f})" for t, r in sorted(ratios.items())))


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'testing/reports/h100-oracle-log.csv')
