#!/usr/bin/env bash
# K-split sweep: for each shape, the dispatcher's tile (and a few others) forced with kg in a list,
# through ptxblas-bench's --oracle-specs; oracle log -> one line per shape and tile.
set -u
out=${OUT:-/tmp}/sweep
mkdir -p $out
kgs="1 2 3 4 5 6 7 8 10 12 13 16 20 26"
run() {  # "suite line" "tile base (family ml nl u ms ns vec)" "pad stages" ...
  local line=$1; shift
  local name=$(echo "$line" | awk '{print $1 "-" $NF}')
  echo "$line" > $out/$name.suite
  local specs=""
  while [ $# -ge 2 ]; do
    for kg in $kgs; do specs+="$1 $kg $2;"; done
    shift 2
  done
  build/bin/ptxblas-bench --suite $out/$name.suite --oracle-ms 120000 --oracle-log $out/log.csv --csv $out/$name.csv \
    --oracle-specs "${specs%;}" --seed 1 > $out/$name.txt 2>&1 || echo "fail $name"
}
run "S T N 2560 128 2560 deepbench-b-128" "simt 128 128 8 4 32 4" "0 3" "simt 128 128 8 8 8 4" "0 3"
run "S N N 2560 128 2560 deepbench-f-128" "simt 128 128 8 8 8 4" "0 3" "simt 128 128 8 4 32 4" "0 3"
run "S T N 2560 64 2560 deepbench-b-64" "simt 64 64 8 4 4 4" "0 3" "simt 128 64 8 8 4 4" "0 3"
run "D T N 2560 64 2560 deepbench-b-64" "mma 32 32 16 16 16 1" "0 3" "mma 64 64 16 32 32 1" "0 3"
run "D N N 2560 64 2560 deepbench-f-64" "mma 32 32 16 16 16 1" "0 3" "mma 64 64 16 32 32 1" "0 3"
run "D T N 2560 128 2560 deepbench-b-128" "mma 128 128 16 32 64 1" "0 4" "mma 64 64 16 32 32 1" "0 3"
run "D N N 2560 128 2560 deepbench-f-128" "mma 128 128 16 32 64 1" "0 4" "mma 64 64 16 32 32 1" "0 3"
run "Z T N 2560 64 2560 deepbench-b-64" "mma 32 32 8 16 16 1" "0 3" "mma 32 32 16 16 16 1" "0 3"
run "Z N N 2560 64 2560 deepbench-f-64" "mma 32 32 8 16 16 1" "0 3" "mma 32 32 16 16 16 1" "0 3"
run "Z T N 2560 128 2560 deepbench-b-128" "mma 64 32 8 32 16 1" "0 3" "mma 32 32 16 16 16 1" "0 3"
run "Z N N 2560 128 2560 deepbench-f-128" "mma 64 32 8 32 16 1" "0 3" "mma 32 32 16 16 16 1" "0 3"
python3 - $out <<'PY'
import csv, sys, glob, collections
out = sys.argv[1]
base = {}
for f in glob.glob(out + '/*.csv'):
    if f.endswith('log.csv'): continue
    for r in csv.DictReader(open(f)):
        base[(r['type'], r['name'])] = (float(r['ptxblas_tflops']), float(r['cublas_tflops']), r['config'])
rows = collections.OrderedDict()
for r in csv.reader(open(out + '/log.csv')):
    t, name, spec, kernel, tf = r[0], r[6], r[7], r[8], float(r[10])
    f = spec.split()
    key = (t, name, ' '.join(f[:7]) + ' pad' + f[8] + ' s' + f[9])
    rows.setdefault(key, []).append((int(f[7]), tf))
for (t, name, tile), v in rows.items():
    p, c, cfg = base.get((t, name), (0, 0, '?'))
    best = max(v, key=lambda x: x[1])
    print(f"{t} {name} [{tile}] cublas {c:.1f} dispatcher {p:.1f} ({cfg}) | best kg={best[0]} {best[1]:.1f} | " +
          ' '.join(f"{kg}:{tf:.1f}" for kg, tf in v))
PY
