#!/usr/bin/env python3
"""CPU check of the level-3 helper kernels (generator/matrix_helpers_ptx.hpp), run in the PTX
simulator and compared with a Python model of dispatch/blas3/cpu_engine.cpp.

Element-wise helpers (Copy, Scale, Symmetrize, Triangle) are launched as
dispatch/blas3/gpu_engine.cpp does (grid x = ceil(m / 256), 256 threads) but mostly with a small
gridDim.y (3) so that every thread walks several columns; some cases use the production
gridDim.y = n. The triangular inverse runs one block of W threads per diagonal block of W = 32,
64 or 128 rows (n = 70 at W = 32: three, the last 6 wide) with the race check on. The inverse
doubling gets the true H-wide inverses of a triangle's diagonal blocks (H = 32, 64, 128; whole
pairs, a ragged second block, a lone last block) and must return the 2H-wide ones, race check on.

Memory permissions make the contract checkable (a forbidden access faults in the simulator):
  Copy        src readable inside m x n; dst writable (not readable) inside m x n
  Scale       dst writable inside m x n, readable only when s != 0 (s == 0 runs on NaN)
  Symmetrize  src readable only in the stored triangle and the diagonal; dst writable in n x n
  Triangle    src readable only in the stored triangle (and the diagonal unless unit)
  Inverse     src readable only in the stored triangle (diagonal excluded for unit); dst writable
  Doubling    a readable only in the pairs' stored off-diagonal blocks, the H-wide strip only where
              its kernel wrote; dst writable only inside each pair's 2H block
Padding rows of every leading dimension hold NaN and, with everything else a kernel may not
write, must be unchanged. Symmetrize, Triangle and Copy must be exact; Scale within a few roundings of the compute type; the inverse X must satisfy |T X - I| <= c n eps |T| |X| and be
exactly zero in the other triangle (so must the doubled ones).

  check_helpers.py --gen build/bin/ptxblas_ptx_sim_gen        generate the kernels, run every case
  check_helpers.py --ptx-dir DIR                               use existing <kernel name>.ptx files
  check_helpers.py --gen ... --mutations                       plant the MUTATIONS bugs in copies of
                                                               the kernels: each must be caught
  options: --jobs N, --filter SUBSTRING (case or kernel names), --list, --verbose,
           --workdir DIR (keep the generated PTX there)

Exit status 0 when every case passes. Python 3 standard library only.
"""

import cmath
import math
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402
import simcheck  # noqa: E402
from simcheck import Matrix, kernel, uniform  # noqa: E402

HELPER_THREADS = 256  # generator/matrix_helpers_ptx.hpp kHelperThreads
MAX_GRID_Y = 65535    # dispatch/blas3/gpu_engine.cpp kMaxGridY

TYPES = {t: simcheck.TYPES[t] for t in "sdcz"}


KIND_NAMES = {"p": "pack", "c": "copy", "s": "scale", "y": "symmetrize", "t": "triangle", "i": "inverse", "x": "doubling",
              "w": "swap rows", "l": "lu columns"}
ROW_SWAP_THREADS = 256  # generator/matrix_helpers_ptx.hpp kRowSwapThreads
LU_THREADS = 256        # generator/matrix_helpers_ptx.hpp kLuThreads
PACK_THREADS = 256      # generator/operand_pack_ptx.hpp kPackThreads
COMPUTE_BYTES = {"s": 4, "d": 8, "c": 8, "z": 16}


def doubling_strip_width(t, half):
    """generator/inverse_doubling_ptx.cpp doubling_strip_width()."""
    return min(16 if half * COMPUTE_BYTES[t] >= 1024 else 8, 32768 // (2 * half * COMPUTE_BYTES[t]))


def kernel_name(kind, t, lower, herm, unit, width=32):
    """generator/matrix_helpers_ptx.cpp helper_name() / inverse_name()."""
    if kind == "i":
        return "tri_inv%d_%s_%s%s" % (width, t, "l" if lower else "u", "_unit" if unit else "")
    if kind == "x":
        return "tri_dbl%d_%s_%s" % (2 * width, t, "l" if lower else "u")
    if kind == "w":
        return "swap_rows_%s" % t
    if kind == "l":
        return "lu_columns_%s" % t
    if kind == "p":
        return "pack_b16"
    herm = herm and TYPES[t].cplx
    s = "mat_%s_%s" % (kind, t)
    if kind in "yt":
        s += "_l" if lower else "_u"
    if kind == "y" and herm:
        s += "_herm"
    if kind == "t" and unit:
        s += "_unit"
    return s


def kernel_spec(kind, t, lower, herm, unit, width=32):
    if kind == "i":
        return "inverse:%s:%d:%s%s" % (t, width, "l" if lower else "u", ":unit" if unit else "")
    if kind == "x":
        return "doubling:%s:%d:%s" % (t, width, "l" if lower else "u")
    if kind == "w":
        return "swap:%s" % t
    if kind == "l":
        return "lu:%s" % t
    if kind == "p":
        return "pack"
    s = "helper:%s:%s" % (kind, t)
    if kind in "yt":
        s += ":l" if lower else ":u"
    if kind == "y" and herm:
        s += ":herm"
    if kind == "t" and unit:
        s += ":unit"
    return s


class Case:
    def __init__(self, name, kind, t, m, n, lower=True, herm=False, unit=False, s=0j, gy=None,
                 pads=(1, 2), seed=0, width=32, left=0, ties=False):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.herm = herm and TYPES[t].cplx
        if gy is None:
            self.gy = 1 if kind in "ix" else min(n, MAX_GRID_Y)
        self.kernel = kernel_name(kind, t, lower, herm, unit, width)
        self.spec = kernel_spec(kind, t, lower, herm, unit, width)

    def kernels(self):
        return {self.kernel}

    def specs(self):
        return {self.spec: self.kernel}

    def cost(self):
        if self.kind == "i":
            return self.width * 40 + self.n * min(self.n, self.width) ** 2
        if self.kind == "x":
            return 2 * self.n * self.width * 256 // 8
        if self.kind == "w":
            return self.n * self.m
        if self.kind == "l":
            return (self.n + 1) * 256 * -(-self.m // 256) * (self.n + 8)
        if self.kind == "p":
            return (self.m + 8) * self.n
        return self.m * self.n + 256 * -(-self.m // 256) * self.gy // 8


def build_cases():
    cases = []
    rng = random.Random(20240917)

    def scal(t):
        re_ = rng.choice([1.0, -1.0]) * rng.uniform(0.5, 1.5)
        return complex(re_, 0.0 if not TYPES[t].cplx else rng.uniform(-1.5, 1.5))

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
            for unit in (False, True):
                us = " unit" if unit else ""
                add("%s%s n=21 gy=3" % (lu, us), "t", t, 21, 21, lower=lower, unit=unit, gy=3)
                add("%s%s n=4 gy=n" % (lu, us), "t", t, 4, 4, lower=lower, unit=unit)
                for n in (1, 2, 5, 17, 32, 70):  # 70: three diagonal blocks, the last 6 wide
                    pads = (0, 0) if n == 1 else (rng.randint(1, 3), rng.randint(1, 3))
                    add("%s%s n=%d" % (lu, us, n), "i", t, n, n, lower=lower, unit=unit, pads=pads)
                # The wider kernels: two blocks, the second 6 wide (128: Z's tile does not fit).
                for width in (64, 128) if t != "z" else (64,):
                    add("%s%s W=%d n=%d" % (lu, us, width, width + 6), "i", t, width + 6, width + 6,
                        lower=lower, unit=unit, width=width)
                # A second 128-wide block wider than half of it (a ragged 100-wide block).
                if t in ("s", "d"):
                    add("%s%s W=128 n=228" % (lu, us), "i", t, 228, 228, lower=lower, unit=unit, width=128)
        # Doubling from H = 32: one whole pair; a second pair whose second block is 13 wide; a
        # lone last block (20 wide). H = 64 for every type, H = 128 (S, D upper; C lower).
        for lower in (True, False):
            lu = "lower" if lower else "upper"
            for n in (64, 109, 84):
                add("%s H=32 n=%d" % (lu, n), "x", t, n, n, lower=lower, width=32)
            add("%s H=64 n=198" % lu, "x", t, 198, 198, lower=lower, width=64)
        if t in "sd":
            add("upper H=128 n=200", "x", t, 200, 200, lower=False, width=128)
        if t == "c":
            add("lower H=128 n=256", "x", t, 256, 256, lower=True, width=128)
    # Row interchanges: every type; n > 256 columns (two blocks, the second partial); pivots that
    # repeat rows, point at themselves, and reach the last row.
    for t in "sdcz":
        add("m=11 n=5 count=7", "w", t, 11, 5, width=7)
    add("m=9 n=300 count=9", "w", "d", 9, 300, width=9)
    # LU column steps: a block of n columns inside a wider panel (left / right of it swapped too);
    # m > 256 rows (two blocks find candidates, the last one picks), m == n (no final launch);
    # ties, a zero column (no scaling, the factorization goes on) and NaN (never a pivot).
    for t in "sdcz":
        add("m=300 w=5 panel 9 at 2", "l", t, 300, 5, width=9, left=2)
    add("m=7 w=7 panel 7", "l", "d", 7, 7, width=7, left=0)
    # The update's columns in two batches (Z: 8, others: 16 a batch), the second partial.
    add("m=30 w=11 panel 13 at 1", "l", "z", 30, 11, width=13, left=1)
    add("m=45 w=20 panel 22 at 2", "l", "d", 45, 20, width=22, left=2)
    add("m=40 w=6 ties zero NaN", "l", "d", 40, 6, width=8, left=1, ties=True)
    add("m=520 w=3 ties zero NaN", "l", "c", 520, 3, width=3, left=0, ties=True)
    # Operand packing (16-bit elements, generator/operand_pack_ptx.hpp): rows not a multiple of 8,
    # a source column starting at an odd element (left: the base one element in), more rows
    # than one block's 2048, gridDim.y below the columns, a leading dimension past 2^32 bytes,
    # a destination already aligned (rows a multiple of 8) and one with a spare 8 rows.
    add("rows=13 lds=13 gy=n", "p", "h", 13, 5, pads=(0, 0))
    add("rows=13 lds=14 base+1 gy=2", "p", "h", 13, 6, pads=(1, 8), gy=2, left=1)
    add("rows=2053 lds=2054 gy=3", "p", "h", 2053, 4, pads=(1, 0), gy=3)
    add("rows=16 lds=17 base+1", "p", "h", 16, 3, pads=(1, 0), left=1)
    add("rows=1 lds=1", "p", "h", 1, 9, pads=(0, 0), gy=4)
    add("rows=7 huge lds", "p", "h", 7, 3, pads=(2 ** 31 + 5, 0), gy=2, left=1)
    # n > 256: the square helpers across blocks in x (one of each kind, cheap types).
    add("lower n=258 gy=2", "t", "s", 258, 258, lower=True, gy=2)
    add("upper hermitian n=257 gy=2", "y", "c", 257, 257, lower=False, herm=True, gy=2)
    return cases


# Deliberate bugs planted in copies of the helper and inverse kernels (--mutations; entries as
# simcheck.run_mutations describes them).
MUTATIONS = [
    ("pack_b16", "mov.b16 %v_h5, 0;", "", True,
     "pack: a padding row left unset (garbage below the matrix)"),
    ("pack_b16", "@%v_p_in7 ld.global.b16", "ld.global.b16", True,
     "pack: a row past the matrix read (outside the source)"),
    ("pack_b16", "shl.b32 %v_hi1, %v_hi1, 16;", "shl.b32 %v_hi1, %v_hi1, 8;", True,
     "pack: the upper row of a word shifted into the wrong bits"),
    ("pack_b16", "mad.lo.s64 %v_src_el, %v_j64, %v_lds, %v_i64;", "mad.lo.s64 %v_src_el, %v_j64, %v_ldd, %v_i64;", True,
     "pack: source columns stepped by the destination's leading dimension"),
    ("lu_columns_d", "setp.eq.u32 %v_p_last, %v_done, %v_nb1;", "setp.eq.u32 %v_p_last, %v_done, 0;", True,
     "LU: the first block to finish picks the pivot (before the others left their candidates)"),
    ("lu_columns_d", "setp.lt.and.s32 %v_p_eq, %v_idx2, %v_idx, %v_p_eq;",
     "setp.gt.and.s32 %v_p_eq, %v_idx2, %v_idx, %v_p_eq;", True, "LU: the last of equal candidates chosen"),
    ("lu_columns_z", "sub.s32 %v_sc, %v_sc, %v_left;", "", True,
     "LU: the panel's columns left of the block not swapped"),
    ("lu_columns_s", "@%v_p_t0 st.global.u32 [%v_work], 0;", "", True,
     "LU: the block counter not reset for the next launch"),
    ("lu_columns_z", "add.s32 %v_c, %v_c, 8;", "add.s32 %v_c, %v_c, 7;", True,
     "LU: the update's batches overlap (a column updated twice)"),
    ("lu_columns_d", "add.s32 %v_c, %v_c, 16;", "add.s32 %v_c, %v_c, 17;", True,
     "LU: a column skipped between the update's batches"),
    ("mat_y_c_l_herm", "  neg.f32 %v_v_i, %v_v_i;\n", "", True,
     "Hermitian mirror without conjugation"),
    ("swap_rows_d", "st.global.b64 [%v_other_at], %v_x;", "", True,
     "row interchange: the pivot row not written"),
    ("swap_rows_z", "add.u64 %v_piv_at, %v_piv_at, 4;", "add.u64 %v_piv_at, %v_piv_at, 8;", True,
     "row interchange: the pivot list walked with the wrong stride"),
    ("mat_y_z_u_herm", "@%v_p_diag mov.f64 %v_v_i, 0d0000000000000000;", "", True,
     "Hermitian diagonal imaginary part kept"),
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
    ("tri_inv32_s_l", "neg.f32 %v_ms_t, %v_t0_r;", "mov.f32 %v_ms_t, %v_t0_r;", True,
     "inverse: wrong sign in the substitution"),
    ("tri_inv32_c_u", "@!%v_p_dv_re_big neg.f32 %v_dv_ni, %v_dv_ni;", "", True,
     "inverse: complex division, sign of the imaginary part when |im d| > |re d|"),
    ("tri_inv32_z_l_unit", "setp.gt.s32 %v_p_tri0, %v_j, %v_c0;", "setp.ge.s32 %v_p_tri0, %v_j, %v_c0;", True,
     "unit inverse reads the diagonal (the first column of each group of eight loads)"),
    ("tri_inv64_d_u", "  bar.sync 0;\n  @!%v_p_row bra L_solved;", "  @!%v_p_row bra L_solved;", False,
     "inverse: barrier after the load removed (shared-memory race)"),
    ("tri_inv128_s_l", "L_solved:\n  bar.sync 0;", "L_solved:", False,
     "inverse: barrier before the write-out removed (shared-memory race)"),
    ("tri_inv32_z_u", "  mad.lo.s64 %v_dst, %v_boff64, 16, %v_dst;\n", "", True,
     "inverse: every diagonal block written to the strip's first rows"),
    ("tri_inv32_s_l_unit", "  mul.lo.s64 %v_diag_step, %v_diag_step, %v_boff64;\n", "", True,
     "inverse: diagonal blocks read one row apart instead of one block apart"),
    ("tri_inv32_d_l", "L_write:\n  mov.f64 %v_v_r, 0d0000000000000000;", "L_write:", False,
     "inverse: zeros of the other triangle not written"),
    ("tri_inv128_d_l", "add.f64 %v_s0_r, %v_s0_r, %v_s1_r;", "", True,
     "inverse: one of the eight running sums dropped"),
    ("tri_inv64_c_l", "sub.s32 %v_left, %v_hi, %v_l;", "sub.s32 %v_left, %v_hi, %v_l;\n  sub.s32 %v_left, %v_left, 1;",
     True, "inverse: the last term of each row's sum skipped"),
    ("tri_inv64_s_u", "setp.gt.s32 %v_p_term7, %v_left, 7;", "setp.gt.s32 %v_p_term7, %v_left, -1;", True,
     "inverse: the last group's terms past the row's end loaded (other threads' X, unsynchronised)"),
    ("tri_inv128_c_u_unit", "min.s32 %v_n, %v_n, 128;", "", True,
     "inverse: block width not capped at W (the strip overrun)"),
    ("tri_dbl64_s_l", "neg.f32 %v_acc0_r, %v_acc0_r;", "", True,
     "doubling: the off-diagonal block not negated"),
    ("tri_dbl64_d_u", "  bar.sync 0;\n  add.s32 %v_lrow,", "  add.s32 %v_lrow,", False,
     "doubling: barrier before the second product removed (shared-memory race)"),
    ("tri_dbl64_d_u", "  bar.sync 0;\n  add.s32 %v_orow,", "  add.s32 %v_orow,", False,
     "doubling: barrier before the first product removed (shared-memory race)"),
    ("tri_dbl64_s_l", "st.global.f32 [%v_z_dst0], %v_zero_r;", "", True,
     "doubling: the zero quadrant left unwritten"),
    ("tri_dbl64_s_l", "mul.lo.s64 %v_off_step, %v_lda, 4;", "mov.s64 %v_off_step, 4;", True,
     "doubling: the off-diagonal block read down a column instead of along a row"),
    ("tri_dbl128_c_l", "setp.lt.s32 %v_p_out0, %v_r, %v_h2;", "setp.le.s32 %v_p_out0, %v_r, %v_h2;", True,
     "doubling: one row past a narrower second block stored"),
]


def _fmt(z):
    return "(%.9g%+.9gj)" % (z.real, z.imag)


def _run_swaps(c, ptx_dir):
    """LAPACK's laswp: rows r and piv[r] swapped for r = 0 .. count - 1 in turn, in each of n
    columns. The matrix may be read and written in its m rows, the pivots only read; padding rows
    must not change; the result must be the exact permutation."""
    ti = TYPES[c.t]
    rng = random.Random(c.seed * 7919 + 5)
    m, n, count = c.m, c.n, c.width
    mem = ptxsim.Memory()
    A = Matrix(mem, ti, m, n, m + c.pads[0], lambda i, j: uniform(rng, ti))
    A.allow(mem, mem.R | mem.W)
    piv = [rng.randint(r, m - 1) for r in range(count)]
    piv[0], piv[1], piv[-1] = 0, m - 1, m - 1  # itself, the last row, the last row again
    pa = mem.alloc(4 * count, perm=mem.R)
    mem.set_perm(pa, 4 * count, mem.R | mem.W)
    mem.write(pa, b"".join(p.to_bytes(4, "little", signed=True) for p in piv))
    mem.set_perm(pa, 4 * count, mem.R)
    want = {(i, j): A.val[i, j] for i in range(m) for j in range(n)}
    for j in range(n):
        for r, p in enumerate(piv):
            want[r, j], want[p, j] = want[p, j], want[r, j]
    ptxsim.launch(kernel(ptx_dir, c.kernel), [A.addr, A.ld, pa, n, count], mem,
                  (-(-n // ROW_SWAP_THREADS), 1, 1), (ROW_SWAP_THREADS, 1, 1))
    bad = ["a(%d,%d) = %s, expected %s" % (i, j, _fmt(ti.get(mem, A.at(i, j))), _fmt(want[i, j]))
           for j in range(n) for i in range(m) if ti.get(mem, A.at(i, j)) != want[i, j]]
    bad += ["padding (%d,%d) changed" % ij for ij in A.changed(mem, lambda i, j: i >= m)]
    return simcheck.wrong(bad)


def _lu_model(P, m, w, width, left, offset, ti):
    """LAPACK's getf2 on columns left .. left + w - 1 of the m x width panel P (a dict), the
    kernel's rules: pivot = first largest |re| + |im| of rows j .. m - 1 (NaN never), rows
    swapped across the panel, the column divided by a nonzero pivot (real: times its reciprocal
    unless below the safe minimum), rank-1 update of the block's columns to the right."""
    tiny = 2.0 ** -1022 if ti.f64 else 2.0 ** -126
    piv = []
    for j in range(w):
        col = left + j
        best, idx = -2.0, None
        for i in range(j, m):
            v = P[i, col]
            k = abs(v.real) + abs(v.imag)
            if k != k:
                k = -1.0
            if k > best:
                best, idx = k, i
        piv.append(idx + offset)
        for c in range(width):
            P[j, c], P[idx, c] = P[idx, c], P[j, c]
        d = P[j, col]
        if d != 0:
            for i in range(j + 1, m):
                if ti.cplx or abs(d.real) < tiny:
                    P[i, col] = P[i, col] / d
                else:
                    P[i, col] = P[i, col] * (1.0 / d.real)
        for c in range(col + 1, left + w):
            for i in range(j + 1, m):
                P[i, c] = P[i, c] - P[i, col] * P[j, c]
    return piv


def _run_lu(c, ptx_dir):
    """The LU column kernel launched as dispatch/blas3/gpu_engine.cpp does (j = 0 .. w, the last
    only when m > w), on a block inside a wider panel; pivots exact, values within rounding of
    the model; nothing outside the panel's m rows, the w pivots and the work array touched."""
    ti = TYPES[c.t]
    rng = random.Random(c.seed * 7919 + 11)
    m, w, width, left, offset = c.m, c.n, c.width, c.left, 3
    mem = ptxsim.Memory()

    def value(i, j):
        if c.ties and j == left:      # column 0: the largest magnitude twice, the first must win
            return {4: 2.0, 9: -2.0, 2: complex(1.5, 0.5) if ti.cplx else 2.0}.get(i, uniform(rng, ti))
        if c.ties and j == left + 2:  # column 2 all zero: pivot 0, no scaling
            return 0j
        if c.ties and j == left + 1 and i == 12:  # NaN in column 1 (and its row from then on)
            return complex(float("nan"), 0)
        return uniform(rng, ti)

    A = Matrix(mem, ti, m, width, m + c.pads[0], value)
    A.allow(mem, mem.R | mem.W)
    pa = mem.alloc(4 * w, perm=mem.W)
    mem.set_perm(pa, 4 * w, mem.R | mem.W)
    mem.write(pa, b"\xff" * (4 * w))
    mem.set_perm(pa, 4 * w, mem.W)
    blocks = -(-m // LU_THREADS)
    wb = 16 * (1 + blocks)
    work = mem.alloc(wb, perm=mem.R | mem.W)
    mem.write(work, b"\x00" * 4 + b"\xee" * (wb - 4))
    P = dict(A.val)
    want_piv = _lu_model(P, m, w, width, left, offset, ti)
    k = kernel(ptx_dir, c.kernel)
    block_at = A.at(0, left)
    for j in range(w + 1):
        if j == w and m == w:
            break
        ptxsim.launch(k, [block_at, A.ld, m, w, j, pa, offset, left, width, work], mem,
                      (-(-(m - j) // LU_THREADS), 1, 1), (LU_THREADS, 1, 1))
    mem.set_perm(pa, 4 * w, mem.R)
    got_piv = [int.from_bytes(mem.read_bytes(pa + 4 * i, 4), "little", signed=True) for i in range(w)]
    bad = [] if got_piv == want_piv else ["pivots %s, expected %s" % (got_piv, want_piv)]
    for j in range(width):
        for i in range(m):
            got, want = ti.get(mem, A.at(i, j)), P[i, j]
            if want != want:  # NaN (complex NaN compares unequal to itself)
                if got == got:
                    bad.append("a(%d,%d) = %s, expected NaN" % (i, j, _fmt(got)))
                continue
            if abs(got - want) > 64 * m * ti.eps * (1 + abs(want)):
                bad.append("a(%d,%d) = %s, expected %s" % (i, j, _fmt(got), _fmt(want)))
    bad += ["padding (%d,%d) changed" % ij for ij in A.changed(mem, lambda i, j: i >= m)]
    if mem.read_bytes(work, 4) != b"\x00" * 4:
        bad.append("work counter not left at 0")
    return simcheck.wrong(bad)


def _run_pack(c, ptx_dir):
    """The source's rows x cols 16-bit elements, read only inside the matrix (its column starts at
    any even address: `left` elements in), land bit for bit in a destination of ldd = rows
    rounded up to 8 (+ pads[1]) rows a column, zeros below row rows; nothing outside the
    destination written, the source unchanged."""
    ti = simcheck.TYPES["h"]
    rng = random.Random(c.seed * 7919 + 11)
    rows, cols, left = c.m, c.n, c.left
    mem = ptxsim.Memory()
    lds = left + rows + c.pads[0]
    S = Matrix(mem, ti, left + rows, cols, lds, lambda i, j: uniform(rng, ti))
    S.allow(mem, mem.R, lambda i, j: i >= left)
    ldd = -(-rows // 8) * 8 + c.pads[1]
    D = Matrix(mem, ti, ldd, cols, ldd, lambda i, j: None)
    D.allow(mem, mem.W)
    gx = -(-ldd // (8 * PACK_THREADS))
    ptxsim.launch(kernel(ptx_dir, c.kernel), [S.at(left, 0), lds, D.addr, ldd, rows, cols], mem, (gx, c.gy, 1),
                  (PACK_THREADS, 1, 1))
    bad = []
    for j in range(cols):
        for i in range(ldd):
            got = mem.read_bytes(D.at(i, j), 2)
            want = mem.read_bytes(S.at(left + i, j), 2) if i < rows else b"\x00\x00"
            if got != want:
                bad.append("dst(%d,%d) = %s, expected %s" % (i, j, got.hex(), want.hex()))
    bad += ["src element (%d,%d) changed" % ij for ij in S.changed(mem, lambda i, j: True)]
    return simcheck.wrong(bad)


def _run_case(c, ptx_dir):
    if c.kind == "p":
        return _run_pack(c, ptx_dir)
    if c.kind == "l":
        return _run_lu(c, ptx_dir)
    if c.kind == "w":
        return _run_swaps(c, ptx_dir)
    if c.kind == "i":
        return _run_inverse(c, ptx_dir)
    if c.kind == "x":
        return _run_doubling(c, ptx_dir)
    ti = TYPES[c.t]
    rng = random.Random(c.seed * 7919 + 3)
    m, n, lower = c.m, c.n, c.lower
    mem = ptxsim.Memory()
    s = ti.cround(c.s)
    s_zero = s == 0

    def stored(i, j):  # strictly inside the stored triangle
        return i > j if lower else i < j

    def tri(i, j):  # the stored triangle with the diagonal
        return i == j or stored(i, j)

    lds, ldd = m + c.pads[0], m + c.pads[1]
    if c.kind == "s":  # in place: src is dst
        D = Matrix(mem, ti, m, n, ldd, lambda i, j: None if s_zero else uniform(rng, ti))
        S = D
        lds = ldd
    else:
        S = Matrix(mem, ti, m, n, lds, lambda i, j: uniform(rng, ti))
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

    def ref(i, j):
        """(value, bound on |value| terms for rounding, exact?) after the kernel."""
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

    kn = kernel(ptx_dir, c.kernel)
    gx = -(-m // HELPER_THREADS)
    ptxsim.launch(kn, [S.addr, lds, D.addr, ldd, m, n, c.s.real, c.s.imag], mem, (gx, c.gy, 1),
                  (HELPER_THREADS, 1, 1))

    bad = []
    for j in range(n):
        for i in range(m):
            want, bound, exact = ref(i, j)
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
    keep = lambda i, j: i >= m  # noqa: E731
    if S is not D:
        bad += ["src element (%d,%d) changed" % ij for ij in S.changed(mem, lambda i, j: True)]
    bad += ["dst element (%d,%d) changed (must not be written)" % ij for ij in D.changed(mem, keep)]
    return simcheck.wrong(bad)


def _inverse_errors(where, T, X, w, stored, ti):
    """What is wrong with X (w x w, X[i, j]) as the inverse of the triangle T(i, j): exact zeros in
    the other triangle, no NaN, then |T X - I| within 4 (w + 4) eps |T| |X| element by element."""
    bad = []
    for (i, j), x in X.items():
        if i != j and not stored(i, j) and x != 0:
            bad.append("%s: X(%d,%d) = %s, expected 0 (other triangle)" % (where, i, j, _fmt(x)))
        elif x != x:
            bad.append("%s: X(%d,%d) = %s" % (where, i, j, _fmt(x)))
    if bad:
        return bad
    for j in range(w):
        for i in range(w):
            prods = [T(i, l) * X[l, j] for l in range(w)]
            r = complex(math.fsum(p.real for p in prods), math.fsum(p.imag for p in prods))
            r -= 1 if i == j else 0
            bound = sum(abs(T(i, l)) * abs(X[l, j]) for l in range(w))
            tol = 4 * (w + 4) * ti.eps * bound
            if not abs(r) <= tol:
                bad.append("%s: (T X - I)(%d,%d) = %s (|.| %.3g > tol %.3g)" % (where, i, j, _fmt(r), abs(r), tol))
    return bad


def _run_inverse(c, ptx_dir):
    """Every diagonal block of W (the last one narrower) inverted into its rows of the n x W
    strip, one block of W threads each; reads only the blocks' triangles, writes only the strip."""
    ti = TYPES[c.t]
    rng = random.Random(c.seed * 7919 + 5)
    n, lower, unit = c.n, c.lower, c.unit
    blocks = -(-n // c.width)
    width = lambda b: min(c.width, n - c.width * b)  # noqa: E731
    mem = ptxsim.Memory()

    def stored(i, j):
        return i > j if lower else i < j

    def same_block(i, j):
        return i // c.width == j // c.width

    def src_val(i, j):
        if i == j:
            return _triangle_value(rng, ti)
        return uniform(rng, ti) / min(n, c.width)  # off the diagonal: well conditioned

    cols = min(n, c.width)
    S = Matrix(mem, ti, n, n, n + c.pads[0], src_val)
    D = Matrix(mem, ti, n, cols, n + c.pads[1], lambda i, j: None)
    S.allow(mem, mem.R, lambda i, j: same_block(i, j) and (stored(i, j) if unit else (i == j or stored(i, j))))
    D.allow(mem, mem.W)
    ptxsim.launch(kernel(ptx_dir, c.kernel), [S.addr, S.ld, D.addr, D.ld, n], mem, (blocks, 1, 1),
                  (c.width, 1, 1), racecheck=True)
    bad = []
    for b in range(blocks):
        r0, w = c.width * b, width(b)

        def T(i, j):
            if i == j:
                return 1 + 0j if unit else S.val[r0 + i, r0 + i]
            return S.val[r0 + i, r0 + j] if stored(i, j) else 0j

        X = {(i, j): ti.get(mem, D.at(r0 + i, j)) for j in range(w) for i in range(w)}
        bad += _inverse_errors("block %d" % b, T, X, w, stored, ti)
    bad += ["src element (%d,%d) changed" % ij for ij in S.changed(mem, lambda i, j: True)]
    outside = lambda i, j: i >= n or j >= width(i // c.width)  # noqa: E731
    bad += ["dst (%d,%d) outside its block's inverse changed" % ij for ij in D.changed(mem, outside)]
    return simcheck.wrong(bad)


def _triangle_value(rng, ti):
    """A diagonal element (magnitude 2..3, any phase: both branches of the complex division)."""
    mag = rng.uniform(2, 3)
    if ti.cplx:
        return cmath.rect(mag, rng.uniform(0, 2 * math.pi))
    return complex(rng.choice([1, -1]) * mag, 0)


def _inverse_of(T, w, lower):
    """The inverse of the w x w triangle T(i, j) by substitution in double precision."""
    X = {}
    for j in range(w):
        rows = range(j, w) if lower else range(j, -1, -1)
        for i in rows:
            acc = 1 + 0j if i == j else 0j
            terms = range(j, i) if lower else range(i + 1, j + 1)
            for l in terms:
                acc -= T(i, l) * X[l, j]
            X[i, j] = acc / T(i, i)
    return lambda i, j: X.get((i, j), 0j)


def _run_doubling(c, ptx_dir):
    """The 2H-wide inverses from the H-wide ones: the strip of H-inverses (true inverses of the
    diagonal blocks, rounded to the type) goes in, the n x 2H strip must hold the inverse of every
    2H block (|T X - I| small, exact zeros in the other triangle). Reads a only in the pairs'
    off-diagonal blocks, the strip only where the H-wide kernel wrote; writes only the 2H blocks."""
    ti = TYPES[c.t]
    rng = random.Random(c.seed * 7919 + 11)
    n, lower, h = c.n, c.lower, c.width
    pairs = -(-n // (2 * h))
    mem = ptxsim.Memory()

    def stored(i, j):
        return i > j if lower else i < j

    def src_val(i, j):
        if i == j:
            return _triangle_value(rng, ti)
        return uniform(rng, ti) / min(n, 2 * h)

    S = Matrix(mem, ti, n, n, n + c.pads[0], src_val)

    def T_of(r0):
        return lambda i, j: S.val[r0 + i, r0 + j] if (i == j or stored(i, j)) else 0j

    inverses = {}
    for b in range(-(-n // h)):
        w = min(h, n - h * b)
        inverses[b] = _inverse_of(T_of(h * b), w, lower)
    half_width = lambda i: min(h, n - h * (i // h))  # noqa: E731
    Hs = Matrix(mem, ti, n, min(n, h), n + c.pads[1],
                lambda i, j: inverses[i // h](i % h, j) if j < half_width(i) else None)
    cols = min(n, 2 * h)
    D = Matrix(mem, ti, n, cols, n + c.pads[0] + 1, lambda i, j: None)
    pair_width = lambda i: min(2 * h, n - 2 * h * (i // (2 * h)))  # noqa: E731

    def off_block(i, j):
        if i // (2 * h) != j // (2 * h):
            return False
        bi, bj = (i % (2 * h)) // h, (j % (2 * h)) // h
        return (bi, bj) == ((1, 0) if lower else (0, 1))

    S.allow(mem, mem.R, off_block)
    Hs.allow(mem, mem.R, lambda i, j: j < half_width(i))
    D.allow(mem, mem.W, lambda i, j: j < pair_width(i))
    grid = (h // doubling_strip_width(c.t, h), pairs, 1)
    ptxsim.launch(kernel(ptx_dir, c.kernel), [S.addr, S.ld, Hs.addr, Hs.ld, D.addr, D.ld, n], mem, grid, (256, 1, 1),
                  racecheck=True)
    bad = []
    for p in range(pairs):
        r0, w = 2 * h * p, pair_width(2 * h * p)
        T = T_of(r0)
        X = {(i, j): ti.get(mem, D.at(r0 + i, j)) for j in range(w) for i in range(w)}
        bad += _inverse_errors("pair %d" % p, T, X, w, stored, ti)
    bad += ["src element (%d,%d) changed" % ij for ij in S.changed(mem, lambda i, j: True)]
    bad += ["half strip element (%d,%d) changed" % ij for ij in Hs.changed(mem, lambda i, j: True)]
    outside = lambda i, j: i >= n or j >= pair_width(i)  # noqa: E731
    bad += ["dst (%d,%d) outside its pair's inverse changed" % ij for ij in D.changed(mem, outside)]
    return simcheck.wrong(bad)


def describe(c):
    s = "%s: %s m=%d n=%d lds/ldd pads=%s gridDim.y=%d" % (c.name, c.kernel, c.m, c.n, c.pads, c.gy)
    if c.kind == "s":
        s += " s=%s" % c.s
    return s


if __name__ == "__main__":
    sys.exit(simcheck.main(
        __doc__, title="ptx_sim helpers", mutations_title="ptx_sim helper mutations", tmp_prefix="ptx_sim_helpers_",
        ptx_dir_help="read <kernel>.ptx from here instead of generating", build_cases=lambda args: build_cases(),
        run=_run_case, describe=describe, specs_of=Case.specs, kernels_of=Case.kernels, mutations=MUTATIONS))
