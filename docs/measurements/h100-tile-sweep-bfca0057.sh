#!/usr/bin/env bash
# Tile x kg sweep through ptxblas-bench --oracle-specs (oracle log -> best per tile).
set -u
out=${OUT:-/tmp}/tsweep
mkdir -p $out
kgs=${KGS:-"1 2 3 4 6 8"}
run() {  # "suite line" then "family ml nl u ms ns vec|pad stages" pairs
  local line=$1; shift
  local name=$(echo "$line" | awk '{print $1 "-" $NF}')
  echo "$line" > $out/$name.suite
  local specs=""
  for ts in "$@"; do
    local tile=${ts%|*} rest=${ts#*|}
    for kg in $kgs; do specs+="$tile $kg $rest;"; done
  done
  build/bin/ptxblas-bench --suite $out/$name.suite --oracle-ms 120000 --oracle-log $out/log.csv --csv $out/$name.csv \
    --oracle-specs "${specs%;}" --seed 1 > $out/$name.txt 2>&1 || echo "fail $name"
}
Z="mma 32 32 8 16 16 1|0 3;mma 32 32 16 16 16 1|0 3;mma 32 32 32 16 16 1|0 3;mma 32 32 16 16 16 1|0 4;mma 32 64 16 16 32 1|0 3;mma 64 32 16 32 16 1|0 3;mma 32 32 32 16 16 1|0 4"
D="mma 32 32 16 16 16 1|0 3;mma 32 32 32 16 16 1|0 3;mma 32 64 32 16 32 1|0 3;mma 64 32 32 32 16 1|0 3;mma 32 64 16 16 32 1|0 3;mma 64 64 32 32 32 1|0 3;mma 32 32 32 16 16 1|0 4"
IFS=';' read -ra ZT <<< "$Z"; IFS=';' read -ra DT <<< "$D"
for s in "Z T N 2560 64 2560 deepbench-b-64" "Z N N 2560 64 2560 deepbench-f-64" "Z T N 2560 128 2560 deepbench-b-128" "Z N N 2560 128 2560 deepbench-f-128" "Z T N 2560 32 2560 deepbench-b-32" "Z N T 256 256 60000 ica-256"; do run "$s" "${ZT[@]}"; done
for s in "D T N 2560 64 2560 deepbench-b-64" "D N N 2560 64 2560 deepbench-f-64" "D T N 2560 32 2560 deepbench-b-32" "D N N 2560 128 2560 deepbench-f-128"; do run "$s" "${DT[@]}"; done
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
    key = (t, name, ' '.join(f[:7]) + ' s' + f[9])
    rows.setdefault(key, []).append((int(f[7]), tf))
last = None
for (t, name, tile), v in rows.items():
    if (t, name) != last:
        p, c, cfg = base.get((t, name), (0, 0, '?'))
        print(f"== {t} {name}: cublas {c:.1f} dispatcher {p:.1f} ({cfg})")
        last = (t, name)
    best = max(v, key=lambda x: x[1])
    print(f"   [{tile}] best kg={best[0]} {best[1]:.1f} | " + ' '.join(f"{kg}:{tf:.1f}" for kg, tf in v))
PY
