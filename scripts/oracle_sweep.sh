#!/usr/bin/env bash
# On the lent GPU machine, with build/bin carried: times forced configurations of a few shapes
# through ptxblas-bench --oracle-specs (each candidate by 5-call bursts, as the oracle's search)
# and prints, per shape and tile (and KL), the best kg and every kg's TFLOP/s beside cuBLAS and
# the dispatcher's plan from the same process.
#   KGS="1 2 3 4 6 8" KLS="1 2 4" KSS="1 2" RASTERS="0 8" scripts/oracle_sweep.sh SWEEP_FILE OUTDIR
# SWEEP_FILE: "shape: T A B M N K NAME" lines (suite format), each followed by the
# "tile: family ml nl u ms ns vec pad stages" lines to force on it (docs/measurements/*.sweep);
# every tile runs with every kg of KGS, kl of KLS (default 1; KernelConfig::kl, perf notes §89),
# ks of KSS (default 1; KernelConfig::ks, §92) and raster of RASTERS (KernelConfig::raster, §91;
# unset: the dispatcher's rule).
# SUMMARY_ONLY=1 prints the tables of an OUTDIR's log.csv without running anything.
set -euo pipefail
cd "$(dirname "$0")/.."
sweep=$1 out=$2
kgs=${KGS:-"1 2 3 4 6 8"}
kls=${KLS:-1}
rasters=${RASTERS:--1}
kss=${KSS:-1}
mkdir -p "$out"
[ "${SUMMARY_ONLY:-0}" = 1 ] || : >"$out/log.csv"
run() {  # suite line, then specs
  local line=$1 specs=$2
  local name
  name=$(echo "$line" | awk '{print $1 "-" $NF}')
  echo "$line" >"$out/$name.suite"
  build/bin/ptxblas-bench --suite "$out/$name.suite" --oracle-ms 120000 --oracle-log "$out/log.csv" \
    --csv "$out/$name.csv" --oracle-specs "${specs%;}" --seed 1 >"$out/$name.txt" 2>&1 || echo "failed: $line"
}
line="" specs=""
while [ "${SUMMARY_ONLY:-0}" != 1 ] && IFS= read -r l; do
  case "$l" in
    shape:*) [ -n "$line" ] && run "$line" "$specs"; line=${l#shape: } specs="" ;;
    tile:*)
      read -r fam ml nl u ms ns vec pad stages <<<"${l#tile: }"
      for raster in $rasters; do
        for ks in $kss; do
          for kl in $kls; do
            for kg in $kgs; do specs+="$fam $ml $nl $u $ms $ns $vec $kg $pad $stages $kl $raster $ks;"; done
          done
        done
      done ;;
  esac
done <"$sweep"
[ -n "$line" ] && run "$line" "$specs"
python3 - "$out" <<'PY'
import collections, csv, glob, sys
out = sys.argv[1]
base = {}
for f in glob.glob(out + "/*.csv"):
    if not f.endswith("/log.csv"):
        for r in csv.DictReader(open(f)):
            base[(r["type"], r["name"])] = (float(r["ptxblas_tflops"]), float(r["cublas_tflops"]), r["config"])
rows = collections.OrderedDict()
for r in csv.reader(open(out + "/log.csv")):
    f = r[7].split()
    tile = (" ".join(f[:7]) + " s" + f[9] + (" kl" + f[10] if len(f) > 10 and f[10] != "1" else "") +
            (" r" + f[11] if len(f) > 11 and f[11] != "-1" else "") +
            (" ks" + f[12] if len(f) > 12 and f[12] != "1" else ""))
    rows.setdefault((r[0], r[6]), collections.OrderedDict()).setdefault(tile, []).append((int(f[7]), float(r[10])))
for (t, name), tiles in rows.items():
    p, c, cfg = base.get((t, name), (0, 0, "?"))
    print(f"== {t} {name}: cublas {c:.1f} dispatcher {p:.1f} ({cfg})")
    for tile, v in tiles.items():
        kg, tf = max(v, key=lambda x: x[1])
        print(f"   [{tile}] best kg={kg} {tf:.1f} | " + " ".join(f"{k}:{x:.1f}" for k, x in v))
PY
