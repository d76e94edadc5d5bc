"""What the PTX-simulator checkers (check_gemm.py, check_helpers.py) share: element types, matrices
in simulated memory with access permissions, the kernel cache, PTX generation through
ptxblas_ptx_sim_gen, the worker pool, planted-bug mutations and the command line.

A checker supplies its cases (objects with .name, .kernel and .cost()), a function running one
case (None when it passes, else a message), describe(), and a MUTATIONS list, and calls main().
Python 3 standard library only.
"""

import argparse
import multiprocessing
import os
import subprocess
import tempfile
import time

import ptxsim

NAN = float("nan")


class TypeInfo:
    def __init__(self, letter, es, cb, cplx, f64, out):
        self.letter, self.es, self.cb, self.cplx, self.f64, self.out = letter, es, cb, cplx, f64, out
        self.ct = "f64" if f64 else "f32"
        self.eps = 2.0 ** -53 if f64 else 2.0 ** -24           # unit roundoff of the compute type
        self.out_eps = {"h": 2.0 ** -11, "b": 2.0 ** -8}.get(letter, 0.0)  # of the stored result
        self.out_abs = {"h": 2.0 ** -24}.get(letter, 0.0)        # f16 subnormal spacing

    def round(self, x):
        """x (float) as stored in this type."""
        if self.out == "h":
            return ptxsim.f16_value(ptxsim.f16_bits(ptxsim.f32(x)))
        if self.out == "b":
            return ptxsim.bf16_value(ptxsim.bf16_bits(ptxsim.f32(x)))
        return x if self.f64 else ptxsim.f32(x)

    def rround(self, z):
        """z (complex) as stored in this type."""
        return complex(self.round(z.real), self.round(z.imag) if self.cplx else 0.0)

    def cround(self, z):
        """z in compute precision (host scalars)."""
        if self.f64:
            return complex(z.real, z.imag if self.cplx else 0.0)
        return complex(ptxsim.f32(z.real), ptxsim.f32(z.imag) if self.cplx else 0.0)

    def put(self, mem, addr, z):
        if self.out == "h":
            mem.pack("<H", addr, ptxsim.f16_bits(z.real) if z.real == z.real else 0x7E00)
        elif self.out == "b":
            mem.pack("<H", addr, ptxsim.bf16_bits(z.real) if z.real == z.real else 0x7FC0)
        elif self.cplx:
            mem.pack("<2d" if self.f64 else "<2f", addr, z.real, z.imag)
        else:
            mem.pack("<d" if self.f64 else "<f", addr, z.real)

    def get(self, mem, addr):
        if self.out == "h":
            return complex(ptxsim.f16_value(mem.unpack("<H", addr)[0]), 0)
        if self.out == "b":
            return complex(ptxsim.bf16_value(mem.unpack("<H", addr)[0]), 0)
        if self.cplx:
            return complex(*mem.unpack("<2d" if self.f64 else "<2f", addr))
        return complex(mem.unpack("<d" if self.f64 else "<f", addr)[0], 0)


TYPES = {
    "s": TypeInfo("s", 4, 4, False, False, "s"),
    "d": TypeInfo("d", 8, 8, False, True, "d"),
    "c": TypeInfo("c", 8, 8, True, False, "c"),
    "z": TypeInfo("z", 16, 16, True, True, "z"),
    "h": TypeInfo("h", 2, 4, False, False, "h"),
    "b": TypeInfo("b", 2, 4, False, False, "b"),
}


def uniform(rng, ti):
    """A random element in [-1, 1] (both parts of a complex one), not yet rounded."""
    return complex(rng.uniform(-1, 1), rng.uniform(-1, 1) if ti.cplx else 0.0)


def mutate(text, old, new, every, name):
    if old not in text:
        raise RuntimeError("mutation pattern %r not found in %s" % (old, name))
    return text.replace(old, new) if every else text.replace(old, new, 1)


_KERNELS = {}


def kernel(ptx_dir, name):
    k = _KERNELS.get((ptx_dir, name))
    if k is None:
        path = os.path.join(ptx_dir, name + ".ptx")
        with open(path) as fh:
            k = ptxsim.Kernel(fh.read(), source=path)
        _KERNELS[ptx_dir, name] = k
    return k


class Matrix:
    """rows x cols column-major with leading dimension ld, in simulated memory. Each column is
    mapped for its first `window` rows (all of ld, or rows + 3 of a huge ld): the elements, then
    NaN padding; nothing of it is accessible until allow(). vals(i, j) gives the element values,
    rounded to the type here (None: NaN), column by column."""

    def __init__(self, mem, ti, rows, cols, ld, vals):
        self.ti, self.rows, self.cols, self.ld = ti, rows, cols, ld
        self.window = min(ld, rows + 3)
        self.addr = mem.alloc(ld * cols * ti.es, lazy=True)
        self.val = {}
        self.snapshot = []
        for j in range(cols):
            mem.fill(self.at(0, j), self.window * ti.es, b"\xff")  # 0xff..: NaN in every type
            mem.set_perm(self.at(0, j), self.window * ti.es, 0)
            for i in range(rows):
                z = vals(i, j)
                z = complex(NAN, NAN) if z is None else ti.rround(z)
                self.val[i, j] = z
                ti.put(mem, self.at(i, j), z)
            self.snapshot.append(mem.read_bytes(self.at(0, j), self.window * ti.es))

    def at(self, i, j):
        return self.addr + (i + j * self.ld) * self.ti.es

    def allow(self, mem, mode, where=None):
        """Give `mode` to the elements (i, j) with where(i, j) (all when None), column runs at once."""
        es = self.ti.es
        for j in range(self.cols):
            if where is None:
                mem.set_perm(self.at(0, j), self.rows * es, mode)
                continue
            i = 0
            while i < self.rows:
                if not where(i, j):
                    i += 1
                    continue
                e = i
                while e < self.rows and where(e, j):
                    e += 1
                mem.set_perm(self.at(i, j), (e - i) * es, mode)
                i = e

    def changed(self, mem, keep):
        """(i, j) in the mapped window with keep(i, j) whose bytes differ from the start."""
        es = self.ti.es
        out = []
        for j in range(self.cols):
            now = mem.read_bytes(self.at(0, j), self.window * es)
            if now == self.snapshot[j]:
                continue
            for i in range(self.window):
                if keep(i, j) and now[i * es:(i + 1) * es] != self.snapshot[j][i * es:(i + 1) * es]:
                    out.append((i, j))
        return out


def wrong(bad):
    """A case's result from its list of mismatches: None when there are none."""
    if bad:
        return "%d wrong: %s" % (len(bad), "; ".join(bad[:4]))
    return None


def run_case(job):
    run, c, ptx_dir = job
    t0 = time.time()
    try:
        msg = run(c, ptx_dir)
    except ptxsim.SimFault as e:
        msg = "fault: %s" % e
    except ptxsim.PtxError as e:
        msg = "untranslatable PTX: %s" % e
    return c.name, msg, time.time() - t0


def run_all(pool, run, cases, ptx_dir, verbose):
    """(name, message or None, seconds) of every case, the costliest started first."""
    work = [(run, c, ptx_dir) for c in sorted(cases, key=lambda c: -c.cost())]
    results = []
    it = pool.imap_unordered(run_case, work, chunksize=1) if pool else map(run_case, work)
    for r in it:
        results.append(r)
        if verbose:
            print("%-6s %6.2fs %s" % ("ok" if r[1] is None else "FAIL", r[2], r[0]), flush=True)
    return results


def generate(gen, ptx_dir, specs):
    """Write the kernels of specs ({generator spec: kernel name}) into ptx_dir."""
    names = sorted(specs)
    for i in range(0, len(names), 200):  # keep command lines short
        out = subprocess.run([gen, ptx_dir] + names[i:i + 200], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("kernel generation failed:\n" + out.stderr)
        for line in out.stdout.split("\n"):
            if line.strip():
                spec, name, _path = line.split(" ", 2)
                if specs[spec] != name:
                    raise RuntimeError("kernel name mismatch: %s gave %s, expected %s" % (spec, name, specs[spec]))


def run_mutations(pool, run, cases, ptx_dir, verbose, mutations, kernels_of, title):
    """Plant each bug of mutations in a copy of its kernel: each must make at least one case of
    its kernel fail, or the checker has lost its teeth. An entry is
      (kernel, text to replace, replacement, all occurrences?, what it breaks)."""
    missed = 0
    for n, (name, old, new, every, what) in enumerate(mutations):
        subset = [c for c in cases if name in kernels_of(c)]
        if not subset:
            print("mutation %d (%s): no case uses %s" % (n, what, name))
            missed += 1
            continue
        mdir = os.path.join(ptx_dir, "mutation%d" % n)
        os.makedirs(mdir, exist_ok=True)
        for k in set().union(*(kernels_of(c) for c in subset)):
            with open(os.path.join(ptx_dir, k + ".ptx")) as fh:
                text = fh.read()
            if k == name:
                text = mutate(text, old, new, every, name)
            with open(os.path.join(mdir, k + ".ptx"), "w") as fh:
                fh.write(text)
        results = run_all(pool, run, subset, mdir, False)
        failed = [(r[0], r[1]) for r in results if r[1] is not None]
        missed += not failed
        print("mutation %2d %-6s %s: %s (%d of %d cases fail)" % (
            n, "caught" if failed else "MISSED", name, what, len(failed), len(subset)))
        if failed and verbose:
            print("     e.g. %s: %s" % (failed[0][0], failed[0][1][:300]))
    print("%s: %d planted, %d caught" % (title, len(mutations), len(mutations) - missed))
    return 1 if missed else 0


def main(doc, *, title, mutations_title, tmp_prefix, ptx_dir_help, build_cases, run, describe, specs_of,
         kernels_of, mutations, add_arguments=None):
    """The command line of a checker; returns the exit status.

    build_cases(args) gives the cases, run(case, ptx_dir) checks one, specs_of(case) gives the
    {generator spec: kernel name} a case needs and kernels_of(case) the set of kernel names;
    add_arguments(ap) adds the checker's own options (after --jobs)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", help="ptxblas_ptx_sim_gen executable")
    ap.add_argument("--ptx-dir", help=ptx_dir_help)
    ap.add_argument("--workdir", help="where generated PTX goes (default: a temporary folder)")
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (default: CPU count)")
    if add_arguments:
        add_arguments(ap)
    ap.add_argument("--filter", action="append", default=[], help="run cases whose name or kernel contains this")
    ap.add_argument("--mutations", action="store_true",
                    help="instead: plant known bugs in copies of the kernels and require each to be caught")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if bool(args.gen) == bool(args.ptx_dir):
        ap.error("give exactly one of --gen and --ptx-dir")

    t_start = time.time()
    cases = build_cases(args)
    if args.filter:
        cases = [c for c in cases if any(f in c.name or f in c.kernel for f in args.filter)]
    if args.list:
        for c in cases:
            print(describe(c))
        return 0
    if not cases:
        print("no cases selected")
        return 1

    tmp = None
    if args.gen:
        ptx_dir = args.workdir
        if not ptx_dir:
            tmp = tempfile.TemporaryDirectory(prefix=tmp_prefix)
            ptx_dir = tmp.name
        os.makedirs(ptx_dir, exist_ok=True)
        specs = {}
        for c in cases:
            specs.update(specs_of(c))
        try:
            generate(args.gen, ptx_dir, specs)
        except RuntimeError as e:
            print(e)
            return 1
    else:
        ptx_dir = args.ptx_dir

    jobs = args.jobs or os.cpu_count() or 1
    pool = None
    if jobs > 1:
        try:
            pool = multiprocessing.Pool(jobs)
        except OSError as e:  # e.g. no /dev/shm: run in this process
            print("no worker processes (%s): running serially" % e)
    try:
        if args.mutations:
            rc = run_mutations(pool, run, cases, ptx_dir, args.verbose, mutations, kernels_of, mutations_title)
            print("(%.1fs)" % (time.time() - t_start))
            return rc
        results = run_all(pool, run, cases, ptx_dir, args.verbose)
    finally:
        if pool:
            pool.close()
            pool.join()

    by_name = {c.name: c for c in cases}
    failed = [(name, msg) for name, msg, _ in results if msg is not None]
    per_type = {}
    for name, msg, _ in results:
        p = per_type.setdefault(name.split("/")[0], [0, 0])
        p[0] += 1
        p[1] += msg is None
    kernels = set().union(*(kernels_of(c) for c in cases))
    print("%s: %d cases over %d kernels, %d passed, %d failed (%.1fs wall, %.1fs simulated, %d jobs)" % (
        title, len(results), len(kernels), len(results) - len(failed), len(failed), time.time() - t_start,
        sum(r[2] for r in results), jobs))
    print("  per type: " + ", ".join("%s %d/%d" % (t, p[1], p[0]) for t, p in sorted(per_type.items())))
    for name, msg in sorted(failed):
        print("FAIL " + describe(by_name[name]))
        print("     " + msg)
    return 1 if failed else 0
