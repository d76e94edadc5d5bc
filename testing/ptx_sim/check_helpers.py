#!/usr/bin/env python3
"""CPU check of the level-3 helper kernels (generator/matrix_helpers_ptx.hpp), run in the PTX
simulator and compared with a Python model of dispatch/blas3/cpu_engine.cpp.

Element-wise helpers (Copy, Scale, Symmetrize, Triangle, Blend) are launched as
dispatch/blas3/gpu_engine.cpp does (grid x = ceil(m / 256), 256 threads) but mostly with a small
gridDim.y (3) so that every thread walks several columns; some cases use the production
gridDim.y = n. The triangular inverse runs as one block of 32 threads with the race check on.

Memory permissions make the contract checkable (a forbidden access faults in the simulator):
  Copy        src readable inside m x n; dst writable (not readable) inside m x n
  Scale       dst writable inside m x n, readable only when s != 0 (s == 0 runs on NaN)
  Symmetrize  src readable only in the stored triangle and the diagonal; dst writable in n x n
  Triangle    src readable only in the stored triangle (and the diagonal unless unit)
  Blend       src readable, dst writable (and readable when s != 0) only in the stored triangle
              and the diagonal; nothing else of dst accessible (s == 0 runs with NaN there)
  Inverse     src readable only in the stored triangle (diagonal excluded for unit); dst writable
Padding rows of every leading dimension hold NaN and, with everything else a kernel may not
write, must be unchanged. Symmetrize, Triangle and Copy must be exact; Scale and Blend within a
few roundings of the compute type; the inverse X must satisfy |T X - I| <= c n eps |T| |X| and be
exactly zero in the other triangle.

  check_helpers.py --gen build/bin/ptxblas_ptx_sim_gen        generate the kernels, run every case
  check_helpers.py --ptx-dir DIR                               use existing <kernel name>.ptx files
  check_helpers.py --gen ... --mutations                       plant the MUTATIONS bugs in copies of
                                                               the kernels: each must be caught
  options: --jobs N, --filter SUBSTRING (case or kernel names), --list, --verbose,
           --workdir DIR (keep the generated PTX there)

Exit status 0 when every case passes. Python 3 standard library only.
"""

import argparse
import cmath
import math
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402

HELPER_THREADS = 256  # generator/matrix_helpers_ptx.hpp kHelperThreads
INVERSE_MAX = 32      # kInverseMax
MAX_GRID_Y = 65535    # dispatch/blas3/gpu_engine.cpp kMaxGridY
NAN = float("nan")


class TypeInfo:
    def __init__(self, letter, es, cplx, f64):
        self.letter, self.es, self.cplx, self.f64 = letter, es, cplx, f64
        self.eps = 2.0 ** -53 if f64 else 2.0 ** -24

    def round(self, z):
        """z as stored in this type (and as a host scalar in compute precision)."""
        if self.f64:
            return complex(z.real, z.imag if self.cplx else 0.0)
        return complex(ptxsim.f32(z.real), ptxsim.f32(z.imag) if self.cplx else 0.0)

    def put(self, mem, addr, z):
        if self.cplx:
            mem.pack("<2d" if self.f64 else "<2f", addr, z.real, z.imag)
        else:
            mem.pack("<d" if self.f64 else "<f", addr, z.real)

    def get(self, mem, addr):
        if self.cplx:
            return complex(*mem.unpack("<2d" if self.f64 else "<2f", addr))
        return complex(mem.unpack("<d" if self.f64 else "<f", addr)[0], 0)


TYPES = {"s": TypeInfo("s", 4, False, False), "d": TypeInfo("d", 8, False, True),
         "c": TypeInfo("c", 8, True, False), "z": TypeInfo("z", 16, True, True)}

KIND_NAMES = {"c": "copy", "s": "scale", "y": "symmetrize", "t": "triangle", "b": "blend", "i": "inverse"}


def kernel_name(kind, t, lower, herm, unit):
    """generator/matrix_helpers_ptx.cpp helper_name() / inverse_name()."""
    if kind == "i":
        return "tri_inv_%s_%s%s" % (t, "l" if lower else "u", "_unit" if unit else "")
    herm = herm and TYPES[t].cplx
    s = "mat_%s_%s" % (kind, t)
    if kind in "ytb":
        s += "_l" if lower else "_u"
    if kind in "yb" and herm:
        s += "_herm"
    if kind == "t" and unit:
        s += "_unit"
    return s


def kernel_spec(kind, t, lower, herm, unit):
    if kind == "i":
        return "inverse:%s:%s%s" % (t, "l" if lower else "u", ":unit" if unit else "")
    s = "helper:%s:%s" % (kind, t)
    if kind in "ytb":
        s += ":l" if lower else ":u"
    if kind in "yb" and herm:
        s += ":herm"
    if kind == "t" and unit:
        s += ":unit"
    return s


class Case:
    def __init__(self, name, kind, t, m, n, lower=True, herm=False, unit=False, s=0j, gy=None,
                 pads=(1, 2), seed=0):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.herm = herm and TYPES[t].cplx
        if gy is None:
            self.gy = 1 if kind == "i" else min(n, MAX_GRID_Y)
        self.kernel = kernel_name(kind, t, lower, herm, unit)
        self.spec = kernel_spec(kind, t, lower, herm, unit)

    def cost(self):
        if self.kind == "i":
            return 32 * 40 + self.n ** 3
        return self.m * self.n + 256 * -(-self.m // 256) * self.gy // 8


def build_cases():
    cases = []
    rng = random.Random(20240917)

    def scal(t, real=False):
        re_ = rng.choice([1.0, -1.0]) * rng.uniform(0.5, 1.5)
        return complex(re_, 0.0 if real or not TYPES[t].cplx else rng.uniform(-1.5, 1.5))

    def add(name, kind, t, m, n, **kw):
        kw.setdefault("pads", (rng.randint(1, 3), rng.randint(1, 3)))
        kw.setdefault("seed", len(cases))
        cases.append(Case("%s/%s %s" % (t, KIND_NAMES[kind], name), kind, t, m, n, **kw))

    for t in "sdcz":
        cplx = TYPES[t].cplx
        # Copy and Scale: m beyond one block of 256 rows and not a multiple of it, n > gridDim.y.
        add("m=261 n=7 gy=3", "c", t, 261, 7, gy=3)
        add("m=5 n=4 gy=n", "c", t, 5, 4)
        add("1x1 no padding", "c", t, 1, 1, pads=(0, 0))
        add("huge lds/ldd", "c", t, 3, 4, gy=3, pads=(2 ** 31 + 5, 2 ** 32 + 3))
        add("m=259 n=5 gy=3 s=%s" % ("complex" if cplx else "real"), "s", t, 259, 5, gy=3, s=scal(t))
        add("m=17 n=6 s=0 NaN dst", "s", t, 17, 6, s=0j)
        add("m=9 n=8 gy=3 s=-0", "s", t, 9, 8, gy=3, s=complex(-0.0, -0.0))
        for lower in (True, False):
            lu = "lower" if lower else "upper"
            for herm in ([False, True] if cplx else [False]):
                hs = " hermitian" if herm else ""
                add("%s%s n=19 gy=3" % (lu, hs), "y", t, 19, 19, lower=lower, herm=herm, gy=3)
                add("%s%s n=6 gy=n" % (lu, hs), "y", t, 6, 6, lower=lower, herm=herm)
                s_nz = scal(t, real=herm)  # the Hermitian routines pass a real beta
                add("%s%s n=18 gy=3 s=%s" % (lu, hs, "complex" if cplx and not herm else "real"), "b", t, 18, 18,
                    lower=lower, herm=herm, gy=3, s=s_nz)
                add("%s%s n=7 s=0 NaN dst" % (lu, hs), "b", t, 7, 7, lower=lower, herm=herm, s=0j)
            if cplx:  # the non-Hermitian kernel with a complex s on the diagonal
                add("%s n=5 gy=n complex s" % lu, "b", t, 5, 5, lower=lower, s=scal(t))
            for unit in (False, True):
                us = " unit" if unit else ""
                add("%s%s n=21 gy=3" % (lu, us), "t", t, 21, 21, lower=lower, unit=unit, gy=3)
                add("%s%s n=4 gy=n" % (lu, us), "t", t, 4, 4, lower=lower, unit=unit)
                for n in (1, 2, 5, 17, 32):
                    pads = (0, 0) if n == 1 else (rng.randint(1, 3), rng.randint(1, 3))
                    add("%s%s n=%d" % (lu, us, n), "i", t, n, n, lower=lower, unit=unit, pads=pads)
    # n > 256: the square helpers across blocks in x (one of each kind, cheap types).
    add("lower n=258 gy=2", "t", "s", 258, 258, lower=True, gy=2)
    add("upper hermitian n=257 gy=2", "y", "c", 257, 257, lower=False, herm=True, gy=2)
    add("lower n=257 gy=2 s=real", "b", "d", 257, 257, lower=True, gy=2, s=complex(-0.75, 0))
    return cases


# Deliberate bugs planted in copies of generated kernels (--mutations): each must make at least
# one case of its kernel fail, or the checker has lost its teeth.
#   (kernel, text to replace, replacement, all occurrences?, what it breaks)
MUTATIONS = [
    ("mat_y_c_l_herm", "  neg.f32 %v_v_i, %v_v_i;\n", "", True,
     "Hermitian mirror without conjugation"),
    ("mat_y_z_u_herm", "@%v_p_diag mov.f64 %v_v_i, 0d0000000000000000;", "", True,
     "Hermitian diagonal imaginary part kept"),
    ("mat_b_d_l", "@!%v_p_tri bra L_done;", "", True,
     "Blend touching the other triangle"),
    ("mat_b_c_u_herm", "@%v_p_diag mov.f32 %v_c_i, 0f00000000;", "", True,
     "Hermitian Blend: dst diagonal imaginary part not dropped"),
    ("mat_b_s_u", "@%v_p_s_zero bra L_store;", "", True,
     "Blend reads dst although s == 0"),
    ("mat_s_z", "@%v_p_s_zero bra L_store;", "", True,
     "Scale reads dst although s == 0"),
    ("mat_s_c", "neg.f32 %v_neg_s_im, %v_s_im;", "mov.f32 %v_neg_s_im, %v_s_im;", True,
     "Scale: complex product with the wrong sign of s_im c_im"),
    ("mat_t_c_u_unit", "@%v_p_in bra L_load;", "@%v_p_in bra L_load;\n  @%v_p_diag bra L_load;", True,
     "unit Triangle reads the diagonal"),
    ("mat_t_d_l", "setp.gt.s32 %v_p_in, %v_i, %v_j;", "setp.lt.s32 %v_p_in, %v_i, %v_j;", True,
     "Triangle keeps the wrong triangle"),
    ("mat_c_s", "mov.u32 %v_jstep, %nctaid.y;", "mov.u32 %v_jstep, %nctaid.y;\n  shl.b32 %v_jstep, %v_jstep, 1;",
     True, "column loop steps by 2 gridDim.y (columns skipped)"),
    ("mat_c_d", "setp.ge.s32 %v_p_out, %v_i, %v_m;", "setp.gt.s32 %v_p_out, %v_i, %v_m;", True,
     "off-by-one row bound"),
    ("mat_c_z", "mul.lo.s64 %v_src_at_t, %v_src_at_t, %v_lds;",
     "mul.lo.s64 %v_src_at_t, %v_src_at_t, %v_lds;\n  and.b64 %v_src_at_t, %v_src_at_t, 4294967295;", True,
     "src column offset truncated to 32 bits"),
    ("tri_inv_s_l", "neg.f32 %v_ms_t, %v_v_r;", "mov.f32 %v_ms_t, %v_v_r;", True,
     "inverse: wrong sign in the substitution"),
    ("tri_inv_c_u", "@!%v_p_dv_re_big neg.f32 %v_dv_ni, %v_dv_ni;", "", True,
     "inverse: complex division, sign of the imaginary part when |im d| > |re d|"),
    ("tri_inv_z_l_unit", "setp.ne.and.s32 %v_p_tri, %v_i, %v_j, %v_p_tri;", "", True,
     "unit inverse reads the diagonal"),
    ("tri_inv_d_u", "  bar.sync 0;\n", "", True,
     "inverse: bar.sync removed (shared-memory race)"),
    ("tri_inv_d_l", "mov.s32 %v_i, 0;\nL_write:", "mov.s32 %v_i, %v_j;\nL_write:", False,
     "inverse writes each column from the diagonal on (zeros of the other triangle missing)"),
]

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
    """rows x cols column-major with leading dimension ld in simulated memory. Each column is
    mapped for its first min(ld, rows + 3) rows: the elements, then NaN padding; nothing of it is
    accessible until allow(). vals(i, j) gives element values (None: NaN)."""

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
                z = complex(NAN, NAN) if z is None else ti.round(z)
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


def run_case(job):
    c, ptx_dir = job
    t0 = time.time()
    try:
        msg = _run_case(c, ptx_dir)
    except ptxsim.SimFault as e:
        msg = "fault: %s" % e
    except ptxsim.PtxError as e:
        msg = "untranslatable PTX: %s" % e
    return c.name, msg, time.time() - t0


def _uniform(rng, ti):
    return complex(rng.uniform(-1, 1), rng.uniform(-1, 1) if ti.cplx else 0.0)


def _fmt(z):
    return "(%.9g%+.9gj)" % (z.real, z.imag)


def _run_case(c, ptx_dir):
    if c.kind == "i":
        return _run_inverse(c, ptx_dir)
    ti = TYPES[c.t]
    rng = random.Random(c.seed * 7919 + 3)
    m, n, lower = c.m, c.n, c.lower
    mem = ptxsim.Memory()
    s = ti.round(c.s)
    s_zero = s == 0

    def stored(i, j):  # strictly inside the stored triangle
        return i > j if lower else i < j

    def tri(i, j):  # the stored triangle with the diagonal
        return i == j or stored(i, j)

    lds, ldd = m + c.pads[0], m + c.pads[1]
    if c.kind == "s":  # in place: src is dst
        D = Matrix(mem, ti, m, n, ldd, lambda i, j: None if s_zero else _uniform(rng, ti))
        S = D
        lds = ldd
    else:
        S = Matrix(mem, ti, m, n, lds, lambda i, j: _uniform(rng, ti))
        if c.kind == "b":  # dst's triangle NaN when s == 0 (must not be read), values elsewhere
            D = Matrix(mem, ti, m, n, ldd, lambda i, j: None if s_zero and tri(i, j) else _uniform(rng, ti))
        else:
            D = Matrix(mem, ti, m, n, ldd, lambda i, j: None)

    # What the kernel may read and write; the reference result where it writes.
    R, W = mem.R, mem.W
    if c.kind == "c":
        S.allow(mem, R)
        D.allow(mem, W)
    elif c.kind == "s":
        D.allow(mem, W | (0 if s_zero else R))
    elif c.kind == "y":
        S.allow(mem, R, tri)
        D.allow(mem, W)
    elif c.kind == "t":
        S.allow(mem, R, (lambda i, j: stored(i, j)) if c.unit else tri)
        D.allow(mem, W)
    elif c.kind == "b":
        S.allow(mem, R, tri)
        D.allow(mem, W | (0 if s_zero else R), tri)

    def ref(i, j):
        """(value, bound on |value| terms for rounding, exact?) after the kernel; None: untouched."""
        a = S.val[i, j]
        if c.kind == "c":
            return a, 0, True
        if c.kind == "s":
            d = D.val[i, j]
            return (0j, 0, True) if s_zero else (s * d, abs(s) * abs(d), False)
        if c.kind == "y":
            if i == j:
                return (complex(a.real, 0) if c.herm else a), 0, True
            if stored(i, j):
                return a, 0, True
            b = S.val[j, i]
            return (b.conjugate() if c.herm else b), 0, True
        if c.kind == "t":
            if i == j:
                return (1 + 0j if c.unit else a), 0, True
            return (a if stored(i, j) else 0j), 0, True
        # Blend
        if not tri(i, j):
            return None
        d = D.val[i, j]
        if c.herm and i == j:
            a, d = complex(a.real, 0), complex(d.real, 0)
        if s_zero:
            return a, 0, True
        return a + s * d, abs(a) + abs(s) * abs(d), False

    kn = kernel(ptx_dir, c.kernel)
    gx = -(-m // HELPER_THREADS)
    ptxsim.launch(kn, [S.addr, lds, D.addr, ldd, m, n, c.s.real, c.s.imag], mem, (gx, c.gy, 1),
                  (HELPER_THREADS, 1, 1))

    bad = []
    for j in range(n):
        for i in range(m):
            r = ref(i, j)
            if r is None:
                continue
            want, bound, exact = r
            got = ti.get(mem, D.at(i, j))
            if exact:
                ok = got == want
            else:
                err = abs(got - want)
                ok = err <= 6 * ti.eps * bound
            if ok and c.herm and i == j and got.imag != 0:
                ok = False
            if not ok:
                bad.append("dst(%d,%d) = %s, expected %s" % (i, j, _fmt(got), _fmt(want)))
    # src unchanged everywhere; dst unchanged in the padding and wherever the kernel may not write.
    if c.kind == "b":
        keep = lambda i, j: i >= m or not tri(i, j)  # noqa: E731
    else:
        keep = lambda i, j: i >= m  # noqa: E731
    if S is not D:
        bad += ["src element (%d,%d) changed" % ij for ij in S.changed(mem, lambda i, j: True)]
    bad += ["dst element (%d,%d) changed (must not be written)" % ij for ij in D.changed(mem, keep)]
    if bad:
        return "%d wrong: %s" % (len(bad), "; ".join(bad[:4]))
    return None


def _run_inverse(c, ptx_dir):
    ti = TYPES[c.t]
    rng = random.Random(c.seed * 7919 + 5)
    n, lower, unit = c.n, c.lower, c.unit
    mem = ptxsim.Memory()

    def stored(i, j):
        return i > j if lower else i < j

    def src_val(i, j):
        if i == j:  # magnitude 2..3, any phase: both branches of the complex division
            mag = rng.uniform(2, 3)
            if ti.cplx:
                return cmath.rect(mag, rng.uniform(0, 2 * math.pi))
            return complex(rng.choice([1, -1]) * mag, 0)
        return _uniform(rng, ti) / n  # off the diagonal: well conditioned

    S = Matrix(mem, ti, n, n, n + c.pads[0], src_val)
    D = Matrix(mem, ti, n, n, n + c.pads[1], lambda i, j: None)
    S.allow(mem, mem.R, (lambda i, j: stored(i, j)) if unit else (lambda i, j: i == j or stored(i, j)))
    D.allow(mem, mem.W)
    ptxsim.launch(kernel(ptx_dir, c.kernel), [S.addr, S.ld, D.addr, D.ld, n], mem, (1, 1, 1),
                  (INVERSE_MAX, 1, 1), racecheck=True)

    def T(i, j):
        if i == j:
            return 1 + 0j if unit else S.val[i, i]
        return S.val[i, j] if stored(i, j) else 0j

    X = {(i, j): ti.get(mem, D.at(i, j)) for j in range(n) for i in range(n)}
    bad = []
    for (i, j), x in X.items():
        if i != j and not stored(i, j) and x != 0:
            bad.append("X(%d,%d) = %s, expected 0 (other triangle)" % (i, j, _fmt(x)))
        elif x != x:
            bad.append("X(%d,%d) = %s" % (i, j, _fmt(x)))
    if not bad:
        for j in range(n):
            for i in range(n):
                prods = [T(i, l) * X[l, j] for l in range(n)]
                r = complex(math.fsum(p.real for p in prods), math.fsum(p.imag for p in prods))
                r -= 1 if i == j else 0
                bound = sum(abs(T(i, l)) * abs(X[l, j]) for l in range(n))
                tol = 4 * (n + 4) * ti.eps * bound
                if not abs(r) <= tol:
                    bad.append("(T X - I)(%d,%d) = %s (|.| %.3g > tol %.3g)" % (i, j, _fmt(r), abs(r), tol))
    bad += ["src element (%d,%d) changed" % ij for ij in S.changed(mem, lambda i, j: True)]
    bad += ["dst padding (%d,%d) changed" % ij for ij in D.changed(mem, lambda i, j: i >= n)]
    if bad:
        return "%d wrong: %s" % (len(bad), "; ".join(bad[:4]))
    return None


def describe(c):
    s = "%s: %s m=%d n=%d lds/ldd pads=%s gridDim.y=%d" % (c.name, c.kernel, c.m, c.n, c.pads, c.gy)
    if c.kind in "sb":
        s += " s=%s" % c.s
    return s


def run_all(pool, cases, ptx_dir, verbose):
    work = [(c, ptx_dir) for c in sorted(cases, key=lambda c: -c.cost())]
    results = []
    it = pool.imap_unordered(run_case, work, chunksize=1) if pool else map(run_case, work)
    for r in it:
        results.append(r)
        if verbose:
            print("%-6s %6.2fs %s" % ("ok" if r[1] is None else "FAIL", r[2], r[0]), flush=True)
    return results


def generate(gen, ptx_dir, cases):
    specs = {c.spec: c.kernel for c in cases}
    out = subprocess.run([gen, ptx_dir] + sorted(specs), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("kernel generation failed:\n" + out.stderr)
    for line in out.stdout.split("\n"):
        if line.strip():
            spec, name, _path = line.split(" ", 2)
            if specs[spec] != name:
                raise RuntimeError("kernel name mismatch: %s gave %s, expected %s" % (spec, name, specs[spec]))


def run_mutations(pool, cases, ptx_dir, verbose):
    """Plant each MUTATIONS bug in a copy of its kernel; every one must fail some case."""
    missed = 0
    for n, (name, old, new, every, what) in enumerate(MUTATIONS):
        subset = [c for c in cases if c.kernel == name]
        if not subset:
            print("mutation %d (%s): no case uses %s" % (n, what, name))
            missed += 1
            continue
        mdir = os.path.join(ptx_dir, "mutation%d" % n)
        os.makedirs(mdir, exist_ok=True)
        with open(os.path.join(ptx_dir, name + ".ptx")) as fh:
            text = mutate(fh.read(), old, new, every, name)
        with open(os.path.join(mdir, name + ".ptx"), "w") as fh:
            fh.write(text)
        results = run_all(pool, subset, mdir, False)
        failed = [(r[0], r[1]) for r in results if r[1] is not None]
        missed += not failed
        print("mutation %2d %-6s %s: %s (%d of %d cases fail)" % (
            n, "caught" if failed else "MISSED", name, what, len(failed), len(subset)))
        if failed and verbose:
            print("     e.g. %s: %s" % (failed[0][0], failed[0][1][:300]))
    print("ptx_sim helper mutations: %d planted, %d caught" % (len(MUTATIONS), len(MUTATIONS) - missed))
    return 1 if missed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", help="ptxblas_ptx_sim_gen executable")
    ap.add_argument("--ptx-dir", help="read <kernel>.ptx from here instead of generating")
    ap.add_argument("--workdir", help="where generated PTX goes (default: a temporary folder)")
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (default: CPU count)")
    ap.add_argument("--filter", action="append", default=[], help="run cases whose name or kernel contains this")
    ap.add_argument("--mutations", action="store_true",
                    help="instead: plant known bugs in copies of the kernels and require each to be caught")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if bool(args.gen) == bool(args.ptx_dir):
        ap.error("give exactly one of --gen and --ptx-dir")

    t_start = time.time()
    cases = build_cases()
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
            tmp = tempfile.TemporaryDirectory(prefix="ptx_sim_helpers_")
            ptx_dir = tmp.name
        os.makedirs(ptx_dir, exist_ok=True)
        try:
            generate(args.gen, ptx_dir, cases)
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
            rc = run_mutations(pool, cases, ptx_dir, args.verbose)
            print("(%.1fs)" % (time.time() - t_start))
            return rc
        results = run_all(pool, cases, ptx_dir, args.verbose)
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
    print("ptx_sim helpers: %d cases over %d kernels, %d passed, %d failed (%.1fs wall, %.1fs simulated, %d jobs)"
          % (len(results), len({c.kernel for c in cases}), len(results) - len(failed), len(failed),
             time.time() - t_start, sum(r[2] for r in results), jobs))
    print("  per type: " + ", ".join("%s %d/%d" % (t, p[1], p[0]) for t, p in sorted(per_type.items())))
    for name, msg in sorted(failed):
        print("FAIL " + describe(by_name[name]))
        print("     " + msg)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
