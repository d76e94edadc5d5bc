#!/usr/bin/env python3
"""Writes the GPU report (testing/reports/h100.md) from what scripts/gpu_check.sh collected.

Inputs: the gtest XML files of the GPU and CPU tests, the benchmark's CSV and its stdout log
(ptxblas-bench), the GPU name and driver (queried from nvidia-smi when not given). The report
carries the source fingerprint the before-stop hook compares against the working tree.
Standard library only.
"""

import argparse
import collections
import csv
import datetime
import math
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET

FINGERPRINT_DIRS = ("shim", "dispatch", "generator", "models")

# Floor of a GEMM on the H100 SXM (../shared/DESIGN.md): max(bytes / bandwidth, flops / peak).
# The H200 is the same chip with faster memory: its copy bandwidth is the 4.3 TB/s (read + write)
# measured on the lent H200s (the device tool's KINDS.md); main() picks by the GPU's name.
COPY_BYTES_PER_S = 3.0e12
H200_COPY_BYTES_PER_S = 4.3e12
PEAK_FLOPS = {"S": 66.9e12, "C": 66.9e12, "D": 66.9e12, "Z": 66.9e12, "H": 989e12}
ELEM_BYTES = {"H": 2, "S": 4, "D": 8, "C": 8, "Z": 16}

# One row of ptxblas-bench's table: type ta tb m n k name ptx_TF cublas_TF ratio check config
TABLE_ROW = re.compile(r"^([SDCZH])\s+([NTC])\s+([NTC])\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+\S+\s+\S+\s+\S+\s+(\S+)")


def fingerprint(repo):
    """The hook's pipeline, run on the folders that exist (LC_ALL=C: sort order must not depend on
    the machine's locale; it equals C.UTF-8's for these names)."""
    dirs = [d for d in FINGERPRINT_DIRS if os.path.isdir(os.path.join(repo, d))]
    if not dirs:
        return "none"
    cmd = ("find " + " ".join(shlex.quote(d) for d in dirs) +
           " -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16")
    env = dict(os.environ, LC_ALL="C")
    out = subprocess.run(["bash", "-c", cmd], cwd=repo, env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def query_gpu():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    line = out.strip().splitlines()[0] if out.strip() else ""
    name, _, driver = line.rpartition(",")
    return (name.strip() or None), (driver.strip() or None)


def neutral(text):
    """Free text (kernel configs) must not read as a test failure count to the hook's grep."""
    text = re.sub(r"(?i)failed:(\s*)(?=[1-9])", r"failed -\1", text)
    return re.sub(r"(?i)([1-9][0-9]*)(\s+)(failed)", r"\1\2(\3)", text)


def gtest_counts(path):
    """passed, failed, skipped (disabled counted as skipped), names of failing tests."""
    root = ET.parse(path).getroot()
    passed = failed = skipped = 0
    failing = []
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            failing.append(f"{case.get('classname', '')}.{case.get('name', '')}")
        elif (case.find("skipped") is not None or case.get("result") in ("skipped", "suppressed")
              or case.get("status") == "notrun"):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, failing


def test_lines(label, xml_paths, rc, note):
    """The report's lines for one group of test binaries."""
    if note:
        return [f"{label} tests — not run: {note}"]
    present = [p for p in xml_paths if os.path.isfile(p)]
    if not present:
        if rc not in (None, 0):
            return [f"{label} tests — incomplete: exit status {rc} and no result file; counted as failed: 1"]
        return [f"{label} tests — not run (no result file)"]
    passed = failed = skipped = 0
    failing = []
    for p in present:
        a, b, c, names = gtest_counts(p)
        passed, failed, skipped = passed + a, failed + b, skipped + c
        failing += names
    missing = len(xml_paths) - len(present)
    if failed == 0 and (missing or rc not in (None, 0)):
        # The binary ended badly without a failing test in its results: still a failure.
        failed = 1
        failing.append(f"(a test binary ended with exit status {rc}"
                       f"{f', {missing} result file(s) missing' if missing else ''})")
    lines = [f"{label} tests — passed: {passed}, failed: {failed}, skipped: {skipped}"]
    if failing:
        shown = ", ".join(failing[:20]) + (f" and {len(failing) - 20} more" if len(failing) > 20 else "")
        lines.append(f"Failing {label} tests: {shown}")
    return lines


def read_bench_log(path):
    info = {"device": None, "cublas_version": None, "noise": None, "skipped": None, "checks": {}}
    if not path or not os.path.isfile(path):
        return info
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("device "):
                info["device"] = line[len("device "):]
            elif line.startswith("cublas_version "):
                info["cublas_version"] = line.split()[1]
            elif line.startswith("noise: "):
                info["noise"] = line[len("noise: "):]
            elif line.startswith("no GPU: benchmark skipped"):
                info["skipped"] = line
            else:
                m = TABLE_ROW.match(line)
                if m:
                    info["checks"][m.groups()[:7]] = m.group(8)
    return info


def cublas_text(version):
    try:
        v = int(version)
    except (TypeError, ValueError):
        return None
    return f"{v // 10000}.{v // 100 % 100}.{v % 100} ({v})"


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def floor_ms(row):
    t = row["type"]
    m, n, k = int(row["m"]), int(row["n"]), int(row["k"])
    rows_a, cols_a = (m, k) if row["transa"] == "N" else (k, m)
    rows_b, cols_b = (k, n) if row["transb"] == "N" else (n, k)
    nbytes = (rows_a * cols_a + rows_b * cols_b + m * n) * ELEM_BYTES[t]
    flops = (8.0 if t in "CZ" else 2.0) * m * n * k
    return 1e3 * max(nbytes / COPY_BYTES_PER_S, flops / PEAK_FLOPS[t]), flops


def time_over_floor(row, col):
    """The row's time in column `col` (TFLOP/s) over floor_ms's floor."""
    fl_ms, flops = floor_ms(row)
    tf = number(row[col])
    return (flops / (tf * 1e12) * 1e3) / fl_ms if tf > 0 else math.nan


def ratio_to_cublas(row, col):
    ref = number(row["cublas_tflops"])
    return number(row[col]) / ref if ref > 0 else math.nan


def bench_section(csv_path, info, rc):
    lines = ["## Benchmark", ""]
    if info["skipped"]:
        return lines + [f"Not run: {info['skipped']}", ""]
    if not csv_path or not os.path.isfile(csv_path):
        return lines + [f"Not run: no benchmark CSV{f' (exit status {rc})' if rc not in (None, 0) else ''}.", ""]
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if info["device"]:
        lines += [f"Device as the benchmark saw it: {info['device']}.", ""]
    lines += ["Median of individually event-timed calls, rotating operand sets larger than twice the L2, "
              "ptxblas and cuBLAS alternating in blocks on the same buffers and stream; "
              f"TFLOP/s count 2mnk (8mnk for complex). Floor: max(bytes / {COPY_BYTES_PER_S / 1e12:.1f} TB/s, flops / peak), peaks "
              "S/C/D/Z 66.9, H 989 TFLOP/s; \"time / floor\" is ptxblas's time over it.", "",
              "| type | ops | m | n | k | name | ptxblas TFLOP/s | cuBLAS TFLOP/s | ratio | time / floor | check"
              " | config | oracle TFLOP/s | oracle config |",
              "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- | ---: | --- |"]
    per_type = {}
    at_least = 0
    for r in rows:
        ptx, ref = number(r["ptxblas_tflops"]), number(r["cublas_tflops"])
        ratio = ratio_to_cublas(r, "ptxblas_tflops")
        over_floor = time_over_floor(r, "ptxblas_tflops")
        if math.isfinite(ratio) and ratio > 0:
            per_type.setdefault(r["type"], []).append(math.log(ratio))
            at_least += ratio >= 1
        key = (r["type"], r["transa"], r["transb"], r["m"], r["n"], r["k"], r["name"])
        check = info["checks"].get(key, "?")
        config = neutral(r["config"]).replace("|", "\\|")
        oracle = number(r.get("oracle_tflops") or "nan")
        oracle_config = neutral(r.get("oracle_config") or "").replace("|", "\\|")
        lines.append(f"| {r['type']} | {r['transa']}{r['transb']} | {r['m']} | {r['n']} | {r['k']} | {r['name']} "
                     f"| {ptx:.2f} | {ref:.2f} | {ratio:.3f} | {over_floor:.1f} | {check} | `{config}` "
                     f"| {oracle:.2f} | `{oracle_config}` |")
    geo = ", ".join(f"{t} {math.exp(sum(v) / len(v)):.3f}" for t, v in sorted(per_type.items()))
    lines += ["", f"Summary: geometric mean of ratio per type: {geo or 'none'}; "
              f"ptxblas ≥ cuBLAS on {at_least} of {len(rows)} shapes."]
    if info["noise"]:
        lines.append(f"Timing noise: {info['noise']}.")
    bad = {c: n for c, n in collections.Counter(info["checks"].values()).items() if c != "ok"}
    if bad:
        lines.append("Rows not ok: " + ", ".join(f"{c} {n}" for c, n in sorted(bad.items())) + ".")
    if rc not in (None, 0):
        lines.append(f"The benchmark ended with exit status {rc}"
                     f"{' (a row was not ok)' if rc == 1 else ' (timed out)' if rc in (124, 137) else ''}"
                     "; the table holds the rows it finished.")
    return lines + [""]


IRREGULAR = ("deepbench", "ica", "lapack")
SQUARE_TARGET = {"S": 0.90, "D": 0.90, "Z": 0.90, "H": 0.85}
IRREGULAR_TARGET, IRREGULAR_FLOOR = 1.3, 0.9


def geomean(values):
    values = [v for v in values if math.isfinite(v) and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def targets_section(csv_path):
    """Issue 3's targets against this run's CSV: large squares (M = N = K >= 4096) and the irregular
    shapes (deepbench, ica, lapack), oracle column (the dispatcher's beside it). For the irregular
    geomean, how far cuBLAS itself is from the floor, and the ratio ptxblas would reach if every
    irregular shape ran as close to its floor as ptxblas's best large square of the type does."""
    if not csv_path or not os.path.isfile(csv_path):
        return []
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    lines = ["## Targets (issue 3, oracle column; the dispatcher's in brackets)", "",
             "| type | squares >= 4096: worst ratio (target) | irregular geomean (target 1.3) | irregular shapes"
             " below 0.9 | cuBLAS time / floor, irregular geomean | geomean at the best square's time / floor |",
             "| --- | --- | --- | --- | ---: | ---: |"]
    for t in sorted({r["type"] for r in rows}):
        mine = [r for r in rows if r["type"] == t]
        squares = [r for r in mine if r["m"] == r["n"] == r["k"] and int(r["m"]) >= 4096]
        irregular = [r for r in mine if r["name"].split("-")[0] in IRREGULAR]
        if not irregular and not squares:
            continue
        sq = "-"
        if squares:
            worst = min(ratio_to_cublas(r, "oracle_tflops") for r in squares)
            worst_d = min(ratio_to_cublas(r, "ptxblas_tflops") for r in squares)
            target = SQUARE_TARGET.get(t, 0.9)
            sq = f"{worst:.2f} ({worst_d:.2f}) vs {target:.2f}: {'met' if worst >= target else 'missed'}"
        oracle = [(ratio_to_cublas(r, "oracle_tflops"), r["name"]) for r in irregular]
        g = geomean([v for v, _ in oracle])
        g_d = geomean([ratio_to_cublas(r, "ptxblas_tflops") for r in irregular])
        below = sorted((v, n) for v, n in oracle if v < IRREGULAR_FLOOR)
        cub = geomean([time_over_floor(r, "cublas_tflops") for r in irregular])
        best_sq = min((time_over_floor(r, "ptxblas_tflops") for r in squares), default=math.nan)
        listed = (": " + ", ".join(f"{n} {v:.2f}" for v, n in below)) if below else ""
        lines.append(f"| {t} | {sq} | {g:.2f} ({g_d:.2f}): {'met' if g >= IRREGULAR_TARGET else 'missed'} "
                     f"| {len(below)} of {len(irregular)}{listed} | {cub:.2f} | {cub / best_sq:.2f} |")
    lines += ["", "The last column divides cuBLAS's distance from the floor by ptxblas's own on its best large "
              "square of the type: the geomean ratio every irregular shape would give if it ran that close to "
              "its floor. Where it is below 1.3, the irregular target asks for more than the squares reach.", ""]
    return lines


def optional_int(text):
    return None if text in (None, "") else int(text)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="testing/reports/h100.md")
    ap.add_argument("--repo", default=os.path.dirname(here), help="repository root (for the fingerprint)")
    ap.add_argument("--title", default=None, help="default: ptxblas on the lent <GPU name>")
    ap.add_argument("--gpu-xml", nargs="+", default=None, help="gtest XML of ptxblas_gpu_tests (one per shard)")
    ap.add_argument("--gpu-rc", type=optional_int, default=None, help="exit status of ptxblas_gpu_tests")
    ap.add_argument("--gpu-note", default=None, help="why the GPU tests did not run (e.g. binary missing)")
    ap.add_argument("--cpu-xml", action="append", default=[], help="gtest XML of a CPU test binary (repeat)")
    ap.add_argument("--cpu-rc", type=optional_int, default=None, help="worst exit status of the CPU test binaries")
    ap.add_argument("--cpu-note", default=None, help="why the CPU tests did not run")
    ap.add_argument("--bench-csv", default=None)
    ap.add_argument("--bench-log", default=None, help="ptxblas-bench's stdout")
    ap.add_argument("--bench-rc", type=optional_int, default=None)
    ap.add_argument("--gpu-name", default=None, help="default: nvidia-smi")
    ap.add_argument("--driver", default=None, help="default: nvidia-smi")
    ap.add_argument("--cublas-version", default=None, help="default: `cublas_version N` in the bench log")
    a = ap.parse_args()

    gpu_name, driver = a.gpu_name, a.driver
    if not gpu_name or not driver:
        q_name, q_driver = query_gpu()
        gpu_name, driver = gpu_name or q_name or "unknown", driver or q_driver or "unknown"
    global COPY_BYTES_PER_S
    if "H200" in gpu_name:
        COPY_BYTES_PER_S = H200_COPY_BYTES_PER_S
    info = read_bench_log(a.bench_log)
    now = datetime.datetime.now(datetime.timezone.utc)

    lines = [f"# {a.title or 'ptxblas on the lent ' + gpu_name}", "",
             f"date: {now:%Y-%m-%d %H:%M} UTC  ",
             f"gpu: {gpu_name}  ",
             f"driver: {driver}  "]
    cublas = cublas_text(a.cublas_version or info["cublas_version"])
    if cublas:
        lines.append(f"cublas: {cublas}  ")
    lines += [f"fingerprint: {fingerprint(a.repo)}", "",
              "The fingerprint is the hash of the files under " +
              ", ".join(f"`{d}/`" for d in FINGERPRINT_DIRS) + " the report was made from.", "",
              "## Tests", ""]
    lines += [l + "  " for l in test_lines("GPU", a.gpu_xml or [], a.gpu_rc, a.gpu_note)]
    lines += [l + "  " for l in test_lines("CPU", a.cpu_xml, a.cpu_rc, a.cpu_note)]
    lines += [""] + bench_section(a.bench_csv, info, a.bench_rc)
    lines += targets_section(a.bench_csv)

    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
