#!/usr/bin/env python3
"""CPU check of the generated GEMM and split-K reduction kernels, run in the PTX simulator.

Every case builds small random matrices in simulated global memory, runs the kernel(s) the way
dispatch/gemm_launch.cpp launches them, and compares C with a float64 reference. Memory
permissions make the contract checkable: A and B are readable only inside op(A) / op(B) (and not
at all when alpha == 0 or k == 0), C is readable only inside m x n and only when beta != 0,
writable only inside m x n, and untouched by a split-K GEMM launch (only the reduction writes C).
Padding rows of lda/ldb/ldc hold NaN. beta == 0 runs with NaN in C, which must not survive.

Leading dimensions beyond 2^31 elements check 64-bit addressing (memory is paged, so only the
touched columns exist). A shared-memory race check runs on some cases. Besides the fixed cases,
--fuzz random points of the whole tuning space (gen --space) run on random problems.

  check_gemm.py --gen build/bin/ptxblas_ptx_sim_gen       generate the kernels, run every case
  check_gemm.py --ptx-dir DIR                              use existing <kernel name>.ptx files
                                                           (e.g. hand-edited; no fuzz cases)
  check_gemm.py --gen ... --mutations                      plant the MUTATIONS bugs in copies of
                                                           the kernels: each must be caught
  options: --jobs N, --fuzz N, --seed S, --filter SUBSTRING (case or kernel names), --list,
           --verbose, --workdir DIR (keep the generated PTX there)

Exit status 0 when every case passes. Python 3 standard library only.
"""

import math
import os
import random
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402
import simcheck  # noqa: E402
from simcheck import NAN, TYPES, Matrix, kernel  # noqa: E402

REDUCE_THREADS = 256  # generator/simt_gemm_ptx.hpp kReduceThreads


def reduce_groups(mn, kg):
    """generator/simt_gemm_ptx.cpp reduce_groups: threads sharing an element's slices."""
    g = 1
    while g < 8 and 2 * g <= kg and mn * 2 * g <= (1 << 18):
        g *= 2
    return g
FILL_LOWER, FILL_UPPER, FILL_HERMITIAN = 1, 2, 4  # generator/kernel_abi.hpp kFill*
BAND_AL, BAND_AU, BAND_BL, BAND_BU = 1, 2, 3, 4  # generator/kernel_abi.hpp kBand*
BAND_SUFFIX = {BAND_AL: "al", BAND_AU: "au", BAND_BL: "bl", BAND_BU: "bu"}


# A tile: (ml, nl, u, ms, ns, vec, mma, store_pad, stages) — mma True for the tensor-core family
# (ms x ns is then the warp tile); shorter tuples take the defaults (simt, no store_pad, 1 stage).
def tile7(x):
    return tuple(x) + (False, False, 1)[len(x) - 6:]


def threads_of(tile):
    ml, nl, u, ms, ns, vec, mma = tile[:7]
    return (ml // ms) * (nl // ns) * (32 if mma else 1)


def tile_label(tile):
    return ("%dx%dx%d_%dx%d_v%d" % tile[:6] + (" mma" if tile[6] else "") + (" pad" if tile[7] else "") +
            (" s%d" % tile[8] if tile[8] > 1 else ""))


def kernel_name(t, opa, opb, tile, f16):
    """generator/kernel_config.cpp kernel_name() of the canonical configuration."""
    if not TYPES[t].cplx:
        opa, opb = opa.replace("c", "t"), opb.replace("c", "t")
    ml, nl, u, ms, ns, vec, mma, pad, stages = tile
    s = "%s_%s%s_%s%s_%dx%dx%d_%dx%d" % ("mma" if mma else "simt", t, "16" if f16 and t == "h" else "", opa, opb,
                                        ml, nl, u, ms, ns)
    return s + ("_v%d" % vec if vec > 1 else "") + ("_p" if pad else "") + ("_s%d" % stages if stages > 1 else "")


def reduce_name(t, f16):
    return "splitk_reduce_%s%s" % (t, "16" if f16 and t == "h" else "")


def gemm_spec(t, opa, opb, tile, f16):
    ml, nl, u, ms, ns, vec, mma, pad, stages = tile
    return "gemm:%s:%s%s:%dx%dx%d:%dx%d:%d%s%s%s%s" % (t, opa, opb, ml, nl, u, ms, ns, vec, ":f16" if f16 else "",
                                                     ":mma" if mma else "", ":pad" if pad else "",
                                                     ":s%d" % stages if stages > 1 else "")


# ----------------------------------------------------------------------------------------------
# Cases

class Case:
    def __init__(self, name, t, opa, opb, tile, m, n, k, alpha, beta, f16=False, pads=(1, 2, 3),
                 dev_alpha=False, dev_beta=False, kchunk=None, kg=1, racecheck=False, seed=0, sm80=False,
                 fill=0, fill_diag=0, band=0, vc=False, ub=False, ce=False, lf=False, oop=False, at=False, kl=1, fused=False, counts=True,
                 raster=0, ks=1, batch=1, bcast_a=False, ptrs=False):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.tile = tile = tile7(tile)
        # sm80: the kernel as generated for sm_80 (f64 fragments through m8n8k4 instead of m16n8k8).
        # fill: the kernel's triangular-output variant (KernelConfig::fill, name suffix _tri).
        # band: its triangular-operand variant (KernelConfig::band; fill_diag is then the column
        # offset of op(B)'s triangle, as for a column chunk).
        # vc: its 16-byte vector copies (KernelConfig::vec_copy_a/_b, both; leading dimensions then whole vectors).
        # ub: a SIMT kernel's unbounded copies inside the matrix (KernelConfig::unbounded).
        # ce: edge blocks' copies unchecked too, slots past C clamped (KernelConfig::clamp_edges).
        # lf: Z's planar two-stage loop fetching the tile after next at the end of a K-step
        # (KernelConfig::late_fetch).
        # oop: its out-of-place variant (KernelConfig::out_of_place): the result goes to a
        # separate D (same ld), C is only read.
        # at: its atomic split-K variant (KernelConfig::atomic_add): the slices add alpha times
        # their sums into C, which the launcher has scaled by beta (here: the host does it).
        # counts=False: a fused kernel given no tile counts (as during graph capture): slices only, then
        # the reduction kernel.
        # kl: K split over kl groups of the block's threads (KernelConfig::kl), summed in shared memory.
        # fused: split-K whose last slice of each tile sums the slices and finishes C (tile counts,
        # kernel_abi.hpp), no reduction kernel.
        # raster: blocks walk groups of that many row tiles (KernelConfig::raster), not launch order.
        # ks: accumulator sets per thread (KernelConfig::ks), summed after the main loop.
        # batch: the strided-batch variant (KernelConfig::batched) over `batch` entries, stored
        # side by side as the columns of one matrix per operand (stride = ld x columns); bcast_a:
        # one A for every entry (stride 0). ptrs: the pointer-array variant (batch_pointers),
        # entry z given the operands of the batch's entry batch - 1 - z.
        band_name = "band_" + BAND_SUFFIX[band] if band else ""
        self.kernel = (kernel_name(t, opa, opb, tile, f16) + ("_kl%d" % kl if kl > 1 else "") +
                       ("_ks%d" % ks if ks > 1 else "") + ("_tri" if fill else "") +
                       ("_" + band_name if band else "") + ("_vc" if vc else "") + ("_ub" if ub else "") +
                       ("_ce" if ce else "") + ("_lf" if lf else "") + ("_oop" if oop else "") + ("_at" if at else "") + ("_fs" if fused else "") +
                       ("_r%d" % raster if raster else "") + (("_btp" if ptrs else "_bt") if batch > 1 else "") +
                       ("_sm80" if sm80 else ""))
        self.spec = (gemm_spec(t, opa, opb, tile, f16) + (":tri" if fill else "") + (":" + band_name if band else "") +
                     (":vc" if vc else "") + (":ub" if ub else "") + (":ce" if ce else "") + (":lf" if lf else "") + (":oop" if oop else "") +
                     (":at" if at else "") + (":kl%d" % kl if kl > 1 else "") + (":ks%d" % ks if ks > 1 else "") +
                     (":fs" if fused else "") + (":r%d" % raster if raster else "") + ((":btp" if ptrs else ":bt") if batch > 1 else "") +
                     (":sm80" if sm80 else ""))
        self.reduce = reduce_name(t, f16) if kchunk and not at and not (fused and counts) else None
        self.reduce_spec = ("reduce:%s%s" % (t, ":f16" if f16 else "")) if self.reduce else None

    def kernels(self):
        return {self.kernel, self.reduce} if self.reduce else {self.kernel}

    def specs(self):
        return {self.spec: self.kernel, self.reduce_spec: self.reduce} if self.reduce else {self.spec: self.kernel}

    def cost(self):
        ml, nl, u, ms, ns, vec, mma = self.tile[:7]
        blocks = max(1, -(-self.m // ml)) * max(1, -(-self.n // nl)) * self.kg * self.batch
        steps = -(-(self.kchunk or self.k) // u) if self.k else 0
        threads = threads_of(self.tile) * self.kl
        cells = ms * ns // 32 if mma else ms * ns
        per_thread = 60 + steps * (u * cells * (4 if TYPES[self.t].cplx else 1) + 40) + cells * 12
        return blocks * threads * per_thread * (3 if self.racecheck else 1)


def tile_lists(gen, flag):
    out = subprocess.run([gen, flag], check=True, capture_output=True, text=True).stdout
    tiles = {}
    for line in out.split("\n"):
        if line.strip():
            f = line.split()
            tiles.setdefault(f[0], []).append(tuple(int(x) for x in f[1:7]) + (f[7] == "mma", f[8] == "1", int(f[9])))
    return tiles


# Mirror of generator/tile_catalog.cpp for --ptx-dir runs (no generator to ask).
M, P, S = True, True, False
CATALOG = {
    "h": [(128, 128, 32, 64, 32, 1, M, P, 2), (64, 64, 32, 32, 32, 1, M, P, 1), (32, 32, 16, 16, 16, 1, M, P, 1)],
    "b": [(128, 128, 32, 64, 32, 1, M, P, 2), (64, 64, 32, 32, 32, 1, M, P, 1), (32, 32, 16, 16, 16, 1, M, P, 1)],
    "s": [(128, 128, 8, 8, 8, 4, S, False, 2), (64, 64, 8, 4, 4, 4, S, False, 2), (32, 32, 8, 2, 2, 2, S, False, 2)],
    "d": [(64, 128, 8, 32, 64, 1, M, False, 3), (128, 64, 8, 64, 32, 1, M, False, 1),
          (64, 64, 16, 32, 32, 1, M, False, 1), (32, 32, 16, 16, 16, 1, M, False, 2)],
    "c": [(64, 64, 8, 4, 4, 2, S, False, 2), (64, 32, 8, 4, 2, 2, S, False, 2), (32, 32, 8, 2, 2, 2, S, False, 2)],
    "z": [(64, 64, 8, 64, 16, 1, M, False, 3), (64, 32, 8, 32, 16, 1, M, False, 2),
          (32, 32, 8, 16, 16, 1, M, False, 2), (32, 32, 16, 16, 16, 1, M, False, 2)],
}

# Legal tiles outside the catalog (the tuner's space, generator/param_space.cpp): the tile copy
# without thread wrap-around (threads < ML or NL), u = 4 and 16, 1x1 thread tiles, vec 1,
# wide and narrow blocks.
# The narrow tiles of dispatch's plan_narrow (generator narrow_tile, and mirrored) last.
# The SIMT family of the types whose catalog is mma, and mma tiles with u = 2 mma steps, narrow
# warp tiles and the [mn][k] copy without thread wrap-around. Stages 3 and 4: the cp.async
# pipeline (conjugates taken on the fragments).
EXTRA_TILES = {
    "s": [(64, 64, 8, 4, 4, 4, S, False, 3), (32, 32, 8, 2, 2, 2, S, False, 4),(128, 32, 8, 8, 8, 4), (16, 16, 16, 1, 1, 1), (32, 32, 8, 2, 2, 1), (32, 32, 8, 2, 2, 2),
          (128, 128, 8, 8, 8, 4), (128, 128, 8, 8, 8, 4, S, False, 3),
          (256, 16, 8, 16, 4, 4, S, False, 3), (16, 128, 32, 4, 4, 4), (256, 32, 8, 8, 8, 4, S, False, 4),
          (32, 256, 8, 8, 8, 4), (128, 256, 8, 8, 16, 4, S, False, 3), (256, 128, 8, 16, 8, 4, S, False, 3)],
    # new tiles last: the op pair of a tile's split-K and race cases follows its place; the last two
    # are dispatch's wide f32 tiles (perf notes §146), which plain calls may run out of place too
    "d": [(128, 64, 8, 64, 32, 1, M, False, 3), (32, 32, 16, 16, 16, 1, M, False, 4), (32, 32, 8, 2, 2, 2), (32, 64, 16, 2, 4, 2), (128, 64, 8, 8, 4, 2), (64, 32, 16, 32, 8, 1, M),
          (16, 64, 8, 16, 32, 1, M), (32, 32, 8, 16, 16, 1, M, False, 2), (64, 16, 16, 16, 16, 1, M, False, 2),
          (32, 32, 16, 16, 16, 1, M), (64, 16, 32, 16, 16, 1, M, False, 4), (16, 64, 32, 16, 16, 1, M, False, 4),
          (128, 64, 32, 32, 32, 1, M, False, 3), (64, 128, 32, 32, 32, 1, M, False, 3),
          (64, 32, 16, 16, 32, 1, M, False, 3), (32, 64, 16, 32, 16, 1, M, False, 3)],  # f64's 81-96 skinny tile (§150)
    "c": [(32, 32, 8, 2, 2, 2, S, False, 3), (128, 16, 8, 8, 2, 2), (32, 32, 8, 2, 2, 2, False, False, 2)],
    "z": [(32, 32, 8, 16, 16, 1, M, False, 3), (64, 32, 8, 32, 16, 1, M, False, 4), (32, 32, 8, 2, 2, 1), (64, 64, 4, 4, 4, 1), (32, 16, 8, 16, 8, 1, M), (32, 32, 8, 16, 16, 1, M, False, 2),
          (32, 32, 16, 16, 16, 1, M), (32, 16, 16, 32, 8, 1, M, False, 3), (32, 32, 32, 16, 16, 1, M, False, 3),
          (64, 64, 8, 64, 16, 1, M, False, 2),  # the first tile as dispatch runs it (with_register_stages)
          # c64's skinny tiles wider than 64 (plan_skinny, perf notes §148) and their mirrors
          (64, 64, 8, 64, 16, 1, M, False, 4), (64, 64, 8, 16, 64, 1, M, False, 4), (32, 64, 8, 16, 32, 1, M, False, 4)],
    "h": [(32, 32, 8, 2, 2, 2), (64, 64, 16, 4, 4, 4), (64, 32, 32, 16, 32, 1, M),
          (32, 32, 16, 16, 16, 1, M, True, 2), (32, 32, 32, 16, 16, 1, M, False, 2), (32, 32, 16, 16, 16, 1, M)],
    "b": [(32, 32, 8, 2, 2, 2), (32, 64, 8, 2, 4, 2), (32, 64, 16, 32, 8, 1, M), (32, 32, 16, 16, 16, 1, M, True, 1)],
}


# Tiles run with KL (KernelConfig::kl) groups: (tile, kl), u a multiple of kl (mma: of kl * mma_k).
KL_TILES = {
    "s": [((32, 32, 16, 2, 2, 2), 2), ((32, 32, 8, 4, 4, 4), 4), ((64, 64, 8, 4, 4, 4, S, False, 3), 2)],
    "d": [((32, 32, 16, 16, 16, 1, M), 2), ((32, 32, 16, 16, 16, 1, M, False, 4), 2),
          ((64, 16, 32, 16, 16, 1, M, False, 4), 4)],
    "c": [((32, 32, 16, 2, 2, 2), 2), ((32, 32, 8, 4, 4, 2, S, False, 3), 2)],
    "z": [((32, 32, 16, 16, 16, 1, M), 2), ((32, 16, 16, 32, 8, 1, M, False, 3), 2)],
    "h": [((32, 32, 32, 16, 16, 1, M, False, 2), 2), ((64, 64, 16, 4, 4, 4), 2)],
    "b": [((32, 32, 16, 2, 2, 2), 2)],
}

# Tiles run with KS (KernelConfig::ks) accumulator sets: (tile, ks, kl), the K-step's rows (SIMT)
# or mma steps per kl group a multiple of ks.
KS_TILES = {
    "s": [((32, 32, 8, 2, 2, 2), 2, 1), ((32, 32, 8, 4, 4, 4), 4, 1), ((64, 64, 8, 4, 4, 4, S, False, 3), 2, 2)],
    "d": [((32, 32, 16, 16, 16, 1, M), 2, 1), ((64, 16, 32, 16, 16, 1, M, False, 4), 4, 1),
          ((32, 32, 32, 16, 16, 1, M, False, 3), 2, 2)],
    "c": [((32, 32, 16, 2, 2, 2), 2, 1), ((32, 32, 8, 4, 4, 2, S, False, 3), 4, 2)],
    "z": [((32, 32, 16, 16, 16, 1, M), 2, 1), ((32, 16, 32, 32, 8, 1, M, False, 3), 2, 2)],
    "h": [((32, 32, 32, 16, 16, 1, M, False, 2), 2, 1), ((64, 64, 16, 4, 4, 4), 4, 1)],
    "b": [((32, 32, 16, 2, 2, 2), 2, 1)],
}


def op_pairs(t):
    o = "ntc" if TYPES[t].cplx else "nt"
    return [a + b for a in o for b in o]


def build_cases(cat, space=None, fuzz=0, seed=1):
    cases = []
    rng = random.Random(20240611)

    def scal(t):
        re_ = rng.choice([1.0, -1.0]) * rng.uniform(0.5, 1.5)
        return complex(re_, rng.uniform(-1.5, 1.5) if TYPES[t].cplx else 0.0)

    def add(name, t, opa, opb, tile, m, n, k, **kw):
        kw.setdefault("alpha", scal(t))
        kw.setdefault("beta", scal(t))
        kw.setdefault("pads", (rng.randint(0, 3), rng.randint(0, 3), rng.randint(0, 3)))
        kw.setdefault("seed", len(cases))
        cases.append(Case("%s/%s" % (t, name), t, opa, opb, tile, m, n, k, **kw))
        # A split-K case runs both ways: slices and the reduction kernel, and fused (the kernel's
        # last slice of a tile finishes it: KernelConfig::fused_split, not with KL).
        if kw.get("kchunk") and not kw.get("at") and not kw.get("fused") and kw.get("kl", 1) == 1:
            kw = dict(kw, fused=True, seed=len(cases))
            cases.append(Case("%s/%s fused" % (t, name), t, opa, opb, tile, m, n, k, **kw))

    for t in "sdczhb":
        small = min(cat[t], key=lambda x: x[0] * x[1])
        ml, nl, u = small[:3]
        ops = op_pairs(t)
        # Every op pair on the smallest tile, ragged in m, n and k (beyond one tile in m and n).
        for o in ops:
            add("%s ragged" % o, t, o[0], o[1], small, ml + 5, nl + 3, 2 * u + 3)
        for f16 in ([False, True] if t == "h" else [False]):
            sfx = " f16" if f16 else ""
            o1, o2 = ("cn", "tc") if TYPES[t].cplx else ("tn", "nt")
            add("nn beta=0 NaN C" + sfx, t, "n", "n", small, ml + 1, 7, u + 1, beta=0j, f16=f16)
            add("%s alpha=0" % o1 + sfx, t, o1[0], o1[1], small, 9, nl + 2, 5, alpha=0j, f16=f16)
            add("%s alpha=0 beta=0" % o2 + sfx, t, o2[0], o2[1], small, 6, 5, 4, alpha=0j, beta=0j, f16=f16)
            add("nt k=0" + sfx, t, "n", "t", small, 11, 13, 0, f16=f16)
            add("tn k=0 alpha=inf" + sfx, t, "t", "n", small, 4, 3, 0, alpha=complex(math.inf, 0), f16=f16)
            add("%s k<u" % o2 + sfx, t, o2[0], o2[1], small, 10, 12, 3, f16=f16)
            add("tt 1x1x1" + sfx, t, "t", "t", small, 1, 1, 1, pads=(0, 0, 0), f16=f16)
            add("nn whole tiles" + sfx, t, "n", "n", small, ml, nl, 2 * u, pads=(0, 0, 0), f16=f16)
            add("%s device alpha beta" % o1 + sfx, t, o1[0], o1[1], small, 13, 9, u + 5, dev_alpha=True,
                dev_beta=True, f16=f16)
            add("nn device alpha, beta=0 NaN C" + sfx, t, "n", "n", small, 7, 8, 6, dev_alpha=True,
                beta=0j, f16=f16)
            add("%s device beta" % o2 + sfx, t, o2[0], o2[1], small, 5, 6, 7, dev_beta=True, f16=f16)
            # Split-K: kg slices of kchunk (a multiple of u), the last one partial.
            add("%s split-K 3 slices" % o1 + sfx, t, o1[0], o1[1], small, ml + 3, 6, 2 * u + 5, kchunk=u,
                kg=3, f16=f16)
            add("nn split-K 2 slices beta=0 NaN C device scalars" + sfx, t, "n", "n", small, 9, nl + 1,
                3 * u + 1, kchunk=2 * u, kg=2, beta=0j, dev_alpha=True, dev_beta=True, f16=f16)
            add("%s split-K empty last slice" % o2 + sfx, t, o2[0], o2[1], small, 7, 5, 2 * u, kchunk=u,
                kg=3, f16=f16)
            add("tn split-K alpha=0" + sfx, t, "t", "n", small, 6, 7, u + 2, kchunk=u, kg=2, alpha=0j,
                f16=f16)
            add("tt split-K device alpha=0" + sfx, t, "t", "t", small, 5, 9, u + 3, kchunk=u, kg=2,
                alpha=0j, dev_alpha=True, f16=f16)
            add("nt split-K device alpha, m*n > 256" + sfx, t, "n", "t", small, 23, 17, u + 1, kchunk=u,
                kg=2, dev_alpha=True, f16=f16)
            add("tn split-K fused kernel without counts" + sfx, t, "t", "n", small, ml + 4, nl + 1, 3 * u + 2,
                kchunk=u, kg=4, fused=True, counts=False, f16=f16)
        # The reduction's groups (8 warps) with four slices in flight, then the last 1-3 at once
        # (37 slices: tails of 1 and 0; 59: tails of 0 and 3).
        add("tn split-K 37 slices, m*n > 32", t, "t", "n", small, 7, 6, 37 * u - 3, kchunk=u, kg=37)
        add("nt split-K 59 slices", t, "n", "t", small, 5, 3, 59 * u - 1, kchunk=u, kg=59)
        add("nt race check", t, "n", "t", small, ml + 2, nl - 1, 2 * u + 1, racecheck=True)
        # Split-K with the race check (run fused too): the fused tail's flag word in the stage
        # memory and its barriers. (Blocks run one after another here, so the order in which the
        # slices arrive and the atomic's memory order are tested only on the GPU.)
        add("tn split-K race check", t, "t", "n", small, ml + 3, nl - 2, 3 * u + 1, kchunk=u, kg=4,
            racecheck=True)
        # Block rasterization: groups of 2 row tiles over 5 x 4 tiles (the last group one row tile
        # wide), of 4 over 3 x 2 (one group narrower than 4); split (also fused) and triangular.
        add("nt raster 2, 5x4 tiles", t, "n", "t", small, 4 * ml + 3, 3 * nl + 1, 2 * u + 1, raster=2)
        add("tn raster 4, 3x2 tiles", t, "t", "n", small, 2 * ml + 1, nl + 2, u + 3, raster=4)
        add("nn raster 2 split-K race check", t, "n", "n", small, 2 * ml + 5, 2 * nl + 3, 3 * u + 1, kchunk=u,
            kg=4, raster=2, racecheck=True)
        add("tt raster 2 fill lower", t, "t", "t", small, 3 * ml + 2, 3 * ml + 2, u + 2,
            fill=FILL_LOWER | (FILL_HERMITIAN if TYPES[t].cplx else 0), raster=2)
        # Strided batch (KernelConfig::batched): block z runs entry z; entries side by side, so a
        # block reading or writing past its own entry is caught by the reference or the padding.
        ob = ops[-1]
        add("%s batched 3 entries ragged" % ob, t, ob[0], ob[1], small, ml + 5, nl + 3, 2 * u + 1, batch=3)
        add("nn batched 2 entries shared A, beta=0 NaN C", t, "n", "n", small, ml + 2, 5, u + 3, batch=2,
            bcast_a=True, beta=0j)
        add("tn batched 4 entries device scalars", t, "t", "n", small, 6, nl + 1, 5, batch=4, dev_alpha=True,
            dev_beta=True)
        add("%s batched pointers 3 entries ragged" % ob, t, ob[0], ob[1], small, ml + 3, nl + 2, u + 5, batch=3,
            ptrs=True)
        add("nt batched pointers 2 entries shared A, beta=0 NaN C", t, "n", "t", small, 7, 9, 2 * u, batch=2,
            bcast_a=True, ptrs=True, beta=0j)
        # Triangular output (SYRK-type): only the fill's triangle of C is read or written; blocks
        # of tiles wholly outside it return at once (3 x 3 tiles: some of them are).
        big = max(ml, nl) * 2 + 5
        herm = FILL_HERMITIAN if TYPES[t].cplx else 0
        add("nt fill lower", t, "n", "t", small, big, big, u + 3, fill=FILL_LOWER | herm)
        add("tn fill upper beta=0 NaN C", t, "t", "n", small, big, big, 2 * u + 1, fill=FILL_UPPER, beta=0j)
        add("nn fill lower diagonal +3, not square", t, "n", "n", small, big, ml + 2, u, fill=FILL_LOWER,
            fill_diag=3)
        add("nt fill upper diagonal -5 alpha=0", t, "n", "t", small, ml + 4, big, u, fill=FILL_UPPER | herm,
            fill_diag=-5, alpha=0j)
        add("nt fill lower split-K", t, "n", "t", small, big, big, 2 * u + 3, kchunk=u, kg=3,
            fill=FILL_LOWER | herm)
        add("tn fill upper split-K device scalars", t, "t", "n", small, big, big, u + 1, kchunk=u, kg=2,
            fill=FILL_UPPER, fill_diag=2, dev_alpha=True, dev_beta=True)
        # Triangular operand (TRMM): each block may read only the K range its rows of op(A) or
        # columns of op(B) meet (the permissions check the narrowing), op(B)'s columns counted
        # from fill_diag; empty ranges of split-K slices write zeros for the reduction.
        if t in "sdcz":
            oc = "c" if TYPES[t].cplx else "t"
            ka, kb = ml + u + 3, nl + u + 3
            add("nn band A lower", t, "n", "n", small, 2 * ml + 5, nl + 3, ka, band=BAND_AL)
            add("%sn band A upper beta=0 NaN C" % oc, t, oc, "n", small, 2 * ml + 5, 7, 2 * ml + 5, band=BAND_AU,
                beta=0j)
            add("n%s band B lower" % oc, t, "n", oc, small, ml + 2, 2 * nl + 5, 2 * nl + 5, band=BAND_BL)
            add("nn band B upper", t, "n", "n", small, 9, 2 * nl + 5, kb, band=BAND_BU)
            add("nt band B lower, columns from 5", t, "n", "t", small, 6, nl + 7, nl + 12, band=BAND_BL, fill_diag=5)
            add("nn band B upper, columns from 5", t, "n", "n", small, 6, nl + 7, nl + 12, band=BAND_BU, fill_diag=5)
            add("tn band A lower split-K", t, "t", "n", small, 2 * ml + 5, 6, ka, band=BAND_AL, kchunk=u,
                kg=-(-ka // u))
            add("nn band A upper split-K device scalars", t, "n", "n", small, 2 * ml + 5, 5, 2 * ml + 5,
                band=BAND_AU, kchunk=2 * u, kg=-(-(2 * ml + 5) // (2 * u)), dev_alpha=True, dev_beta=True)
            add("nn band A lower alpha=0", t, "n", "n", small, ml + 3, 4, ka, band=BAND_AL, alpha=0j)
            add("nn band B upper race check", t, "n", "n", small, 5, nl + 3, kb, band=BAND_BU, racecheck=True)
            add("nt band B lower split-K, columns from 3", t, "n", "t", small, 7, nl + 6, nl + 9, band=BAND_BL,
                fill_diag=3, kchunk=u, kg=-(-(nl + 9) // u))
            add("nn band B upper split-K", t, "n", "n", small, 6, 2 * nl + 5, kb, band=BAND_BU, kchunk=u,
                kg=-(-kb // u))
        # Out of place (TRSM's updates): the result into a separate D, C only read (not at all
        # with beta = 0), ragged edges, a triangular fill too.
        if t in "sdcz":
            add("nn out of place", t, "n", "n", small, ml + 5, nl + 3, 2 * u + 3, oop=True)
            add("tn out of place beta=0 NaN C", t, "t", "n", small, 2 * ml + 1, 7, u + 1, beta=0j, oop=True)
            add("nt out of place fill lower", t, "n", "t", small, big, big, u + 3, fill=FILL_LOWER | herm, oop=True)
            add("nn out of place race check", t, "n", "n", small, 9, 7, 2 * u + 1, racecheck=True, oop=True)
            add("nn out of place split-K", t, "n", "n", small, 11, 9, 3 * u + 1, kchunk=u, kg=4, oop=True)
            add("tn out of place split-K fill upper beta=0", t, "t", "n", small, big, big, 2 * u + 3, kchunk=u,
                kg=3, fill=FILL_UPPER, beta=0j, oop=True)
        # Atomic split-K (f32, f64, c32, c64): the slices add alpha times their sums into C
        # (scaled by beta beforehand), ragged, NaN C with beta = 0, empty and alpha = 0 slices.
        if t in "sdcz":
            add("%s split-K atomic 3 slices" % o1, t, o1[0], o1[1], small, ml + 3, nl + 2, 2 * u + 5, kchunk=u,
                kg=3, at=True)
            add("nn split-K atomic beta=0 NaN C", t, "n", "n", small, 9, 7, 3 * u + 1, kchunk=2 * u, kg=2,
                beta=0j, at=True)
            add("%s split-K atomic empty last slice" % o2, t, o2[0], o2[1], small, 7, 5, 2 * u, kchunk=u, kg=3,
                at=True)
            add("tn split-K atomic alpha=0 device alpha", t, "t", "n", small, 6, 7, u + 2, kchunk=u, kg=2,
                alpha=0j, dev_alpha=True, at=True)
            add("nt split-K atomic race check", t, "n", "t", small, 11, 5, 2 * u + 1, kchunk=u, kg=3,
                racecheck=True, at=True)
            add("tt split-K atomic huge ldc", t, "t", "t", small, 6, 9, 2 * u + 1, kchunk=u, kg=3,
                pads=(1, 2, 2 ** 31 + 7), at=True)
        # KL: the K-step split over 2 or 4 groups of the block's threads, summed through shared
        # memory (static, or the cp.async stages' dynamic memory), on every path of the epilogue.
        for tile, kl in KL_TILES[t]:
            tile = tile7(tile)
            name = "%s kl%d" % (tile_label(tile), kl)
            tml, tnl, tu = tile[:3]
            for q in ops[:: max(1, len(ops) // 3)]:
                add("%s %s ragged" % (q, name), t, q[0], q[1], tile, tml + 5, tnl + 3, 3 * tu + 5, kl=kl)
            add("nn %s beta=0 NaN C" % name, t, "n", "n", tile, tml + 1, 7, tu + 1, beta=0j, kl=kl)
            add("nt %s alpha=0" % name, t, "n", "t", tile, 9, tnl + 2, 5, alpha=0j, kl=kl)
            add("tn %s k=0" % name, t, "t", "n", tile, 5, 4, 0, kl=kl)
            add("tn %s k < u / kl" % name, t, "t", "n", tile, 6, 9, tu // kl - 1 or 1, kl=kl)
            add("nt %s split-K device scalars" % name, t, "n", "t", tile, tml + 3, 6, 3 * tu + 1, kchunk=tu,
                kg=4, dev_alpha=True, dev_beta=True, kl=kl)
            add("tn %s deep K race check" % name, t, "t", "n", tile, 7, 6, (2 * tile[8] + 1) * tu + 3,
                racecheck=True, kl=kl)
            big2 = max(tml, tnl) * 2 + 5
            add("nt %s fill lower split-K" % name, t, "n", "t", tile, big2, big2, 2 * tu + 3, kchunk=tu, kg=3,
                fill=FILL_LOWER | herm, kl=kl)
            if t in "sdcz":
                add("nn %s band A lower" % name, t, "n", "n", tile, 2 * tml + 5, 6, tml + 2 * tu + 3, band=BAND_AL,
                    kl=kl)
                add("tn %s out of place" % name, t, "t", "n", tile, tml + 5, tnl + 3, 2 * tu + 3, oop=True, kl=kl)
                add("nt %s split-K atomic" % name, t, "n", "t", tile, tml + 3, 5, 2 * tu + 5, kchunk=tu, kg=3,
                    at=True, kl=kl)
            if tile[8] > 2 and t in "sdc":
                add("nn %s interior block vector copies" % name, t, "n", "n", tile, tml + 5, tnl + 3,
                    (tile[8] + 2) * tu + 3, vc=True, ub=not tile[6], kl=kl)
        # KS: accumulator sets taking the K-step's rows or mma steps in turn, summed in set order
        # after the main loop (and before KL's groups, where both).
        for tile, ks, kl in KS_TILES[t]:
            tile = tile7(tile)
            name = "%s ks%d%s" % (tile_label(tile), ks, " kl%d" % kl if kl > 1 else "")
            tml, tnl, tu = tile[:3]
            for q in ops[:: max(1, len(ops) // 3)]:
                add("%s %s ragged" % (q, name), t, q[0], q[1], tile, tml + 5, tnl + 3, 3 * tu + 5, ks=ks, kl=kl)
            add("nn %s beta=0 NaN C" % name, t, "n", "n", tile, tml + 1, 7, tu + 1, beta=0j, ks=ks, kl=kl)
            add("tn %s k=1" % name, t, "t", "n", tile, 6, 9, 1, ks=ks, kl=kl)
            add("nt %s split-K device scalars" % name, t, "n", "t", tile, tml + 3, 6, 3 * tu + 1, kchunk=tu,
                kg=4, dev_alpha=True, dev_beta=True, ks=ks, kl=kl)
            add("tn %s deep K race check" % name, t, "t", "n", tile, 7, 6, (2 * tile[8] + 1) * tu + 3,
                racecheck=True, ks=ks, kl=kl)
            big2 = max(tml, tnl) * 2 + 5
            add("nt %s fill lower" % name, t, "n", "t", tile, big2, big2, 2 * tu + 3,
                fill=FILL_LOWER | (FILL_HERMITIAN if TYPES[t].cplx else 0), ks=ks, kl=kl)
        # Leading dimensions beyond 2^31 elements: column offsets need 64-bit arithmetic.
        huge = (2 ** 31 + 3, 2 ** 32 + 1, 2 ** 31 + 7)
        add("nt huge lda/ldb/ldc", t, "n", "t", small, ml + 3, 5, u + 3, pads=huge)
        add("tn huge lda/ldb/ldc", t, "t", "n", small, 6, nl + 2, u + 1, pads=huge)
        add("nn split-K huge lda/ldb/ldc", t, "n", "n", small, 7, 4, 2 * u + 1, pads=huge, kchunk=u, kg=3)
        # Every op pair on every other catalogued tile and a few legal tiles of the tuning space.
        for i, tile in enumerate([x for x in cat[t] if x != small] + [tile7(x) for x in EXTRA_TILES[t]]):
            name = tile_label(tile)
            m = tile[0] + 3 if tile[0] <= 32 else tile[0] // 2 + 3
            n = tile[1] + 2 if tile[1] <= 32 else tile[1] // 2 - 3
            for o in ops:
                add("%s %s" % (o, name), t, o[0], o[1], tile, m, n, tile[2] + 3)
            o = ops[i % len(ops)]
            add("%s %s split-K" % (o, name), t, o[0], o[1], tile, 9, 10, 2 * tile[2] + 1, kchunk=tile[2], kg=3)
            add("%s %s race check" % (o, name), t, o[0], o[1], tile, 11, 5, tile[2] + 1, racecheck=True)
            if tile[8] > 2:  # cp.async stages: K long enough that each stage is refilled twice
                add("%s %s deep K race check" % (o, name), t, o[0], o[1], tile, 7, 6,
                    (2 * tile[8] + 1) * tile[2] + 3, racecheck=True)
                # ...and split (also fused: its tail's flag word lies in the stages, which the K
                # loop leaves without a barrier).
                add("%s %s split-K race check" % (o, name), t, o[0], o[1], tile, 9, 7, 2 * tile[2] + 1,
                    kchunk=tile[2], kg=3, racecheck=True)
                # ...and their triangular variant: blocks outside the fill return before any copy.
                tri = 2 * max(tile[0], tile[1]) + 5
                add("%s %s fill lower split-K" % (o, name), t, o[0], o[1], tile, tri, tri, 2 * tile[2] + 3,
                    kchunk=tile[2], kg=3, fill=FILL_LOWER | herm)
                add("%s %s fill upper diagonal -3" % (o, name), t, o[0], o[1], tile, tri, tri, 3 * tile[2] + 1,
                    fill=FILL_UPPER | herm, fill_diag=-3)
                # ...and their triangular-operand variant (TRMM): a block's copies start mid-K.
                if t in "sdcz":
                    add("%s %s band A upper" % (o, name), t, o[0], o[1], tile, tile[0] + 5, 6,
                        tile[0] + 3 * tile[2] + 1, band=BAND_AU)
                    add("%s %s band B lower" % (o, name), t, o[0], o[1], tile, 5, tile[1] + 5,
                        tile[1] + 3 * tile[2] + 1, band=BAND_BL)
                    add("%s %s band A lower" % (o, name), t, o[0], o[1], tile, tile[0] + 5, 4,
                        tile[0] + 3 * tile[2] + 1, band=BAND_AL)
                    add("%s %s band B upper" % (o, name), t, o[0], o[1], tile, 4, tile[1] + 5,
                        tile[1] + 3 * tile[2] + 1, band=BAND_BU)
                # ...and a block whose tile lies inside M and N (the others at the edges), with K
                # deep enough that its loop refills whole K-steps: the unbounded copies (§51).
                for q in ops:
                    add("%s %s interior block" % (q, name), t, q[0], q[1], tile, tile[0] + 5, tile[1] + 3,
                        (tile[8] + 2) * tile[2] + 3, vc=t in "sdc")
                    if not tile[6]:  # SIMT: the variant that copies unbounded there too
                        add("%s %s interior block unbounded" % (q, name), t, q[0], q[1], tile, tile[0] + 5,
                            tile[1] + 3, (tile[8] + 2) * tile[2] + 3, vc=t in "sdc", ub=True)
                    # ...and with clamped edges (§151): edge blocks unchecked where their copies
                    # are whole elements (M and N odd: vectors along them stay checked), and
                    # f64's element copies as dispatch launches them where an operand is unaligned.
                    for vc in ({t in "sdc", False} if t == "d" else {t in "sdc"}):
                        add("%s %s interior block clamped edges%s" % (q, name, "" if vc else " element copies"), t,
                            q[0], q[1], tile, tile[0] + 5, tile[1] + 3, (tile[8] + 2) * tile[2] + 3, vc=vc,
                            ub=not tile[6], ce=True)
                add("%s %s clamped edges split-K" % (o, name), t, o[0], o[1], tile, tile[0] + 6, tile[1] + 2,
                    2 * (tile[8] + 1) * tile[2] + 5, kchunk=(tile[8] + 1) * tile[2], kg=3, vc=t in "sdc",
                    ub=not tile[6], ce=True)
                # ...and in the variants dispatch does not ask it for but the generator allows:
                # triangular output and operand, out of place, strided batches (whole vectors).
                big = 2 * max(tile[0], tile[1]) + 4
                deep = (tile[8] + 2) * tile[2] + 3
                for extra, kw in (("fill lower", dict(m=big, n=big, fill=FILL_LOWER | herm)),
                                  ("band A lower", dict(m=tile[0] + 4, n=6, band=BAND_AL)),
                                  ("band B upper", dict(m=4, n=tile[1] + 4, band=BAND_BU)),
                                  ("out of place", dict(m=tile[0] + 4, n=tile[1] + 2, oop=True)),
                                  ("batched 3 entries", dict(m=tile[0] + 4, n=tile[1] + 2, batch=3))):
                    if "band" in extra and t not in "sdcz":
                        continue
                    m_, n_ = kw.pop("m"), kw.pop("n")
                    add("%s %s clamped edges %s" % (o, name, extra), t, o[0], o[1], tile, m_, n_,
                        deep + (max(m_, n_) if "band" in extra else 0), vc=t in "sdc", ub=not tile[6], ce=True, **kw)
                # ...and so under a K split (dispatch's f32 split plans, perf notes §145): slices
                # deeper than the pipeline, the last one partial, refills past a slice's end inside K.
                if not tile[6]:
                    add("%s %s interior block unbounded split-K" % (o, name), t, o[0], o[1], tile, tile[0] + 5,
                        tile[1] + 3, 2 * (tile[8] + 1) * tile[2] + 5, kchunk=(tile[8] + 1) * tile[2], kg=3,
                        vc=t in "sdc", ub=True)
                # ...and their 16-byte vector copies: every op pair with M, N and K ending mid-vector,
                # then split-K, a band and a race check (4- and 8-byte types; c64 copies 16 already).
                if t in "sdc":
                    for q in ops:
                        add("%s %s vector copies ragged" % (q, name), t, q[0], q[1], tile, tile[0] + 5,
                            tile[1] // 2 + 3, 2 * tile[2] * tile[8] + 3, vc=True)
                    add("%s %s vector copies split-K" % (o, name), t, o[0], o[1], tile, 13, 10, 3 * tile[2] + 1,
                        kchunk=tile[2], kg=4, vc=True)
                    # ...and clamped edges (§151): with M and N ending on whole vectors the edge
                    # blocks' loops copy unchecked too, their slots past C clamped to its last vector.
                    for q in ops:
                        add("%s %s vector copies clamped edges" % (q, name), t, q[0], q[1], tile,
                            tile[0] + 4, tile[1] // 2 + 4, (tile[8] + 2) * tile[2] + 3, vc=True, ub=not tile[6],
                            ce=True)
                    add("nn %s vector copies out of place" % name, t, "n", "n", tile, tile[0] + 5, tile[1] // 2 + 3,
                        2 * tile[2] * tile[8] + 3, vc=True, ub=not tile[6], oop=True)
                    add("%s %s vector copies band A lower" % (o, name), t, o[0], o[1], tile, tile[0] + 5, 6,
                        tile[0] + 3 * tile[2] + 1, band=BAND_AL, vc=True)
                    add("%s %s vector copies race check" % (o, name), t, o[0], o[1], tile, 9, 7,
                        (tile[8] + 1) * tile[2] + 3, racecheck=True, vc=True)
        # The sm_80 form of the f64/c64 mma tiles: each op pair, ragged, and a split-K.
        for tile in [x for x in cat[t] if x[6] and t in "dz"]:
            for o in ops:
                add("%s %s sm_80" % (o, tile_label(tile)), t, o[0], o[1], tile, tile[0] + 3, tile[1] // 2 + 1,
                    tile[2] + 3, sm80=True)
            add("nt %s sm_80 split-K" % tile_label(tile), t, "n", "t", tile, 9, 10, 2 * tile[2] + 1,
                kchunk=tile[2], kg=3, sm80=True)

    # Z's square kernel: planes, two register stages: K of one step, one step and a bit, whole
    # steps, and the split, fill, band, batch and race variants (after the per-type cases, which
    # keep their random draws); then its late-fetch loop (perf notes §156-§157) the same ways.
    sq = (64, 64, 8, 64, 16, 1, M, False, 2)
    for q, k in (("nn", 1), ("nt", 8), ("cn", 9), ("tc", 16), ("ct", 29), ("tt", 3)):
        add("%s planes s2 k=%d" % (q, k), "z", q[0], q[1], sq, 70, 67, k)
    add("nc planes s2 k=0", "z", "n", "c", sq, 9, 70, 0)
    add("cn planes s2 split-K", "z", "c", "n", sq, 67, 9, 21, kchunk=8, kg=3)
    add("nc planes s2 fill lower", "z", "n", "c", sq, 133, 133, 25, fill=FILL_LOWER | FILL_HERMITIAN)
    add("nn planes s2 band A lower", "z", "n", "n", sq, 133, 9, 133, band=BAND_AL)
    add("nt planes s2 batched 2 entries", "z", "n", "t", sq, 66, 65, 17, batch=2)
    add("tn planes s2 race check", "z", "t", "n", sq, 65, 66, 25, racecheck=True)
    for q, k in (("nn", 1), ("nt", 8), ("tn", 9), ("tt", 16), ("nn", 29)):
        add("%s planes s2 late fetch k=%d" % (q, k), "z", q[0], q[1], sq, 70, 67, k, lf=True)
    add("nt planes s2 late fetch k=0", "z", "n", "t", sq, 9, 70, 0, lf=True)
    add("tn planes s2 late fetch split-K", "z", "t", "n", sq, 67, 9, 21, kchunk=8, kg=3, lf=True)
    add("nt planes s2 late fetch fill lower", "z", "n", "t", sq, 133, 133, 25, fill=FILL_LOWER, lf=True)
    add("nn planes s2 late fetch band A lower", "z", "n", "n", sq, 133, 9, 133, band=BAND_AL, lf=True)
    add("nn planes s2 late fetch race check", "z", "n", "n", sq, 65, 66, 25, racecheck=True, lf=True)

    # Random points of the whole tuning space with random problems and scalars.
    frng = random.Random(seed)
    for i in range(fuzz if space else 0):
        t = "sdczhb"[i % 6]
        tile = frng.choice(space[t])
        ml, nl, u, ms, ns, vec = tile[:6]
        o = frng.choice(op_pairs(t))
        if frng.random() < 0.2:  # more than one block along both M and N
            m, n = ml + frng.randint(1, 8), nl + frng.randint(1, 8)
            k = frng.randint(1, 24)
        else:
            m, n = frng.randint(1, 40), frng.randint(1, 40)
            k = 0 if frng.random() < 0.05 else frng.randint(1, 24) if frng.random() < 0.8 else frng.randint(25, 70)
        kw = dict(pads=(frng.randint(0, 3), frng.randint(0, 3), frng.randint(0, 3)), seed=10000 * seed + i)
        if frng.random() < 0.1:
            kw["pads"] = (2 ** 31 + frng.randint(0, 9), 2 ** 32 + frng.randint(0, 9), 2 ** 31 + frng.randint(0, 9))
        kw["alpha"] = 0j if frng.random() < 0.1 else scal(t)
        kw["beta"] = 0j if frng.random() < 0.25 else scal(t)
        kw["dev_alpha"] = frng.random() < 0.3
        kw["dev_beta"] = frng.random() < 0.3
        kw["f16"] = t == "h" and frng.random() < 0.5
        if k > 0 and frng.random() < 0.35:
            kw["kchunk"] = u * frng.randint(1, 2)
            kw["kg"] = -(-k // kw["kchunk"]) + (1 if frng.random() < 0.2 else 0)
        kw["racecheck"] = frng.random() < 0.15
        name = "fuzz%d %s %s %dx%dx%d" % ((i, o, tile_label(tile)) + (m, n, k))
        cases.append(Case("%s/%s" % (t, name), t, o[0], o[1], tile, m, n, k, **kw))
    return cases


# Deliberate bugs planted in copies of the GEMM and reduction kernels (--mutations; entries as
# simcheck.run_mutations describes them).
MUTATIONS = [
    ("mma_d_nn_32x32x16_16x16_s2_bt", "mad.lo.s64 %v_gc, %v_boff, 8, %v_gc;", "", False,
     "batched: every entry writes entry 0's C"),
    ("simt_s_tn_32x32x8_2x2_v2_s2_bt", "mad.lo.s64 %v_gb, %v_boff, 4, %v_gb;", "mad.lo.s64 %v_gb, %v_boff, 2, %v_gb;",
     False, "batched: B's stride taken in 2-byte units"),
    ("mma_h_nn_32x32x16_16x16_p_bt", "mov.u32 %v_bz, 0;", "mov.u32 %v_bz, %ctaid.z;", False,
     "batched: the entry also taken as a K slice"),
    ("simt_c_nt_32x32x8_2x2_v2_s2_btp", "mul.wide.u32 %v_bslot, %v_batch, 8;", "mul.wide.u32 %v_bslot, %v_batch, 4;",
     False, "pointer arrays: entries read 4 bytes apart"),
    ("mma_d_nt_32x32x16_16x16_s2_fs", "@%v_p_t0 st.global.u32 [%v_tc], 0;", "", False,
     "fused split-K: the tile count not reset for the next launch"),
    ("mma_d_nt_32x32x16_16x16_s2_fs", "sub.u32 %v_tc_last, %v_tc_last, 1;", "sub.u32 %v_tc_last, %v_tc_last, 2;",
     False, "fused split-K: the next-to-last slice finishes the tile"),
    ("mma_d_nt_32x32x16_16x16_s2_fs", "add.s64 %v_tc_ptr, %v_tc_ptr, %v_tc_slice;", "", True,
     "fused split-K: the tail sums the first slice kg times"),
    ("simt_s_tn_64x64x8_4x4_v4_s3_fs", "  mov.u32 %v_tc_flag, smem_dyn;\n  bar.sync 0;", "  mov.u32 %v_tc_flag, smem_dyn;",
     False, "fused split-K: the flag word written over a stage other warps may still read (no barrier)"),
    ("mma_d_nt_32x32x16_16x16_s2_fs", "and.pred %v_p_zero_alpha, %v_p_skip, !%v_p_split;",
     "mov.pred %v_p_zero_alpha, %v_p_skip;", False,
     "fused split-K: a slice with no K finishing its tile with alpha = 0"),
    ("simt_s_nt_32x32x8_2x2_v2_s2_r2", "min.u32 %v_rs_width, %v_rs_width, 2;", "", False,
     "raster: the last, narrower group of row tiles taken as whole"),
    ("mma_d_tn_32x32x16_16x16_s2_r4", "div.u32 %v_by, %v_rs_local, %v_rs_width;",
     "div.u32 %v_by, %v_rs_local, 4;", False, "raster: column tile from the group's full width, not its own"),
    ("mma_d_nn_32x32x16_16x16_ks2", "add.rn.f64 %v_acc_0_0_r, %v_acc_0_0_r, %v_acs1_0_0_r;", "", False,
     "KS: set 1 of one accumulator not added"),
    ("simt_s_nn_32x32x8_4x4_v4_ks4", "add.rn.f32 %v_acc_1_2_r, %v_acc_1_2_r, %v_acs3_1_2_r;",
     "add.rn.f32 %v_acc_1_2_r, %v_acc_1_2_r, %v_acs2_1_2_r;", False, "KS: set 2 of one accumulator added twice, set 3 never"),
    ("mma_z_nn_32x32x16_16x16_ks2", "mov.f64 %v_acs1_0_0_r, 0d0000000000000000;", "", False,
     "KS: set 1 of one accumulator not zeroed"),
    ("mma_d_nn_32x32x16_16x16_kl2", "add.rn.f64 %v_acc_0_0_r, %v_acc_0_0_r, %v_kl_part;", "", False,
     "KL: group 1's sum of one accumulator not added"),
    ("mma_d_nn_32x32x16_16x16_kl2", "mad.lo.u32 %v_ra, %v_kgrp, 2304, %v_ra;", "", False,
     "KL: every group multiplies the first group's rows of A"),
    ("simt_s_nn_32x32x8_4x4_v4_kl4", "@%v_p_kgrp_rest ret;", "", False,
     "KL: groups 1..3 run the epilogue too (partial sums stored over C)"),
    ("mma_d_tn_32x32x16_16x16_s4_kl2", "  bar.sync 0;\n  @!%v_p_kgrp_rest bra L_kl_stored;",
     "  @!%v_p_kgrp_rest bra L_kl_stored;", False,
     "KL: no barrier between the last K-step's reads of the stages and the sums stored over them"),
    ("simt_s_tn_32x32x16_2x2_v2_kl2", "L_kl_stored:\n  bar.sync 0;", "L_kl_stored:", False,
     "KL: group 0 reads the sums before the other groups stored them"),
    ("mma_z_cn_32x32x8_16x16_s2_at", "@%v_p_out red.global.add.f64 [%v_c_col0+8], %v_out_i;",
     "@%v_p_out st.global.f64 [%v_c_col0+8], %v_out_i;", False,
     "atomic split-K: one imaginary part stored over C instead of added to it"),
    ("simt_c_nn_32x32x8_2x2_v2_s2", "%v_fa0_i, %v_fb0_ni, %v_acc_0_0_r", "%v_fa0_i, %v_fb0_i, %v_acc_0_0_r", False,
     "complex product: sign of ai*bi in one accumulator (swapped fma operand)"),
    ("simt_s_nn_32x32x8_2x2_v2", "setp.lt.s32 %v_pm1, %v_ri1, %v_m;", "setp.le.s32 %v_pm1, %v_ri1, %v_m;", True,
     "off-by-one row bound in the epilogue"),
    ("simt_d_nt_32x32x8_2x2_v2", "  bar.sync 0;\n  setp.gt.s32 %v_p_more", "  setp.gt.s32 %v_p_more", True,
     "second bar.sync of the K loop removed (shared-memory WAR race)"),
    ("simt_c_nt_64x64x8_4x4_v2_s2", "  bar.sync 0;\n  mov.u32 %v_stage_a, 0;", "  mov.u32 %v_stage_a, 0;", True,
     "first bar.sync (after the first tile's stores) removed (shared-memory RAW race)"),
    ("simt_z_tn_32x32x8_2x2", "setp.lt.and.s32 %v_a0_ok,", "setp.le.and.s32 %v_a0_ok,", True,
     "off-by-one K bound on A's tile loads"),
    ("mma_h_nn_32x32x16_16x16_p", "and.pred %v_p_read, %v_p_out, !%v_p_beta_zero;",
     "and.pred %v_p_read, %v_p_out, %v_p_out;", True, "C read although beta == 0"),
    ("simt_b_tn_32x32x8_2x2_v2", "shl.b32 %v_wide_bits, %v_wide_bits, 16;",
     "shl.b32 %v_wide_bits, %v_wide_bits, 15;", False, "bf16 widening shift"),
    ("simt_s_tn_32x32x8_2x2_v2", "setp.gt.s32 %v_p_more, %v_krem, 0;", "setp.gt.s32 %v_p_more, %v_krem, 8;",
     True, "last (partial) K step skipped"),
    ("simt_c_tc_32x32x8_2x2_v2_s2", "neg.f32 %v_b0_vi, %v_b0_vi;", "mov.f32 %v_b0_vi, %v_b0_vi;", True,
     "op C: conjugate of B dropped"),
    ("simt_s_tn_32x32x8_2x2_v2_s2", "@!%v_p_alpha_dev bra L_alpha_ready;", "bra L_alpha_ready;", True,
     "device alpha ignored (host value used)"),
    ("mma_d_nt_32x32x16_16x16_s2", "mul.wide.s32 %v_w_t, %v_bz, 1;", "mul.wide.s32 %v_w_t, %v_bz, 0;", True,
     "split-K: every slice written to slice 0 of the workspace"),
    ("splitk_reduce_z", "add.s32 %v_z, %v_z_last, %v_groups;", "add.s32 %v_z, %v_z_last, %v_z_last;", True,
     "split-K reduction: a group skips slices after its first four"),
    ("splitk_reduce_d", "@%v_p_tail1 add.rn.f64 %v_sum_r, %v_sum_r, %v_part1_r;",
     "add.rn.f64 %v_sum_r, %v_sum_r, %v_part1_r;", True,
     "split-K reduction: a tail slice past the last one added anyway"),
    ("splitk_reduce_d", "add.u32 %v_s_part, %v_s_part, %v_s_gstep;", "add.u32 %v_s_part, %v_s_part, 0;",
     True, "split-K reduction: the first group's partial sum added in place of the others'"),
    ("splitk_reduce_h16", "cvt.rn.f16.f32 %v_oh, %v_out_r;", "cvt.rn.f16.f32 %v_oh, %v_sum_r;", True,
     "split-K reduction stores the raw sum (alpha and beta not applied)"),
    ("simt_z_nn_32x32x8_2x2", "ld.global.v2.f64 {%v_a0_vr, %v_a0_vi}", "ld.global.v2.f64 {%v_a0_vi, %v_a0_vr}",
     True, "real and imaginary parts of A swapped"),
    ("simt_s_nt_32x32x8_2x2_v2_s2", "mul.lo.s64 %v_a_tmp, %v_a_tmp, %v_a_ld_bytes;",
     "mul.lo.s64 %v_a_tmp, %v_a_tmp, %v_a_ld_bytes;\n  and.b64 %v_a_tmp, %v_a_tmp, 4294967295;", True,
     "A's column offset truncated to 32 bits"),
    ("splitk_reduce_c", "mul.lo.s64 %v_w_t, %v_w_t, %v_ldc;",
     "mul.lo.s64 %v_w_t, %v_w_t, %v_ldc;\n  and.b64 %v_w_t, %v_w_t, 4294967295;", True,
     "split-K reduction: C's column offset truncated to 32 bits"),
    ("mma_h_nn_32x32x16_16x16", "{%v_fa0_0, %v_fa0_1, %v_fa0_2, %v_fa0_3}, {%v_fb0_0",
     "{%v_fa0_0, %v_fa0_2, %v_fa0_1, %v_fa0_3}, {%v_fb0_0", False,
     "m16n8k16: A fragment registers (row + 8, k + 8) swapped"),
    ("mma_h_nn_32x32x16_16x16", "add.s32 %v_ri1, %v_rowbase, 8;", "add.s32 %v_ri1, %v_rowbase, 16;", False,
     "mma epilogue: second accumulator row written 16 rows down instead of 8"),
    ("mma_z_cn_32x32x16_16x16", "neg.f64 %v_fb0_ni, %v_fb0_i;", "mov.f64 %v_fb0_ni, %v_fb0_i;", False,
     "complex DMMA: sign of ai*bi"),
    ("mma_d_tn_32x32x16_16x16", "  bar.sync 0;\n  add.s64", "  add.s64", True,
     "mma kernel: first bar.sync of the K loop removed (shared-memory RAW race)"),
    ("mma_d_tn_32x32x8_16x16_s2", "  bar.sync 0;\n  setp.gt.s32 %v_p_more", "  setp.gt.s32 %v_p_more", True,
     "double buffer: the K loop's only barrier removed"),
    ("simt_s_nt_32x32x8_2x2_v2_s2", "sub.u32 %v_stage_a, 1024, %v_stage_a;", "sub.u32 %v_stage_a, 0, %v_stage_a;",
     True, "double buffer: A's stage offset not toggled"),
    ("mma_d_nt_32x32x16_16x16_s2_tri", "setp.ge.s32 %v_p_in_fill, %v_fd, %v_flo;", "setp.ge.s32 %v_p_in_fill, %v_fd, %v_fd;",
     True, "fill: the triangle's lower bound dropped from the stores"),
    ("simt_c_nt_32x32x8_2x2_v2_s2_tri", "@%v_p_fill_real mov.f32 %v_out_i, 0f00000000;", "", True,
     "fill: a Hermitian diagonal keeps its imaginary part"),
    ("splitk_reduce_s", "@!%v_p_in_fill ret;", "", True, "split-K reduction writes outside the fill"),
    ("mma_z_tn_32x32x8_16x16_s2_tri", "sub.s32 %v_tile_dmin, %v_tile_dmax, 31;", "sub.s32 %v_tile_dmin, %v_tile_dmax, 0;",
     True, "fill: blocks that hold part of the upper triangle skipped"),
    ("mma_d_nt_64x128x8_32x64_s3_vc", "min.s32 %v_a0_bytes, %v_a0_bytes, 2;", "mov.s32 %v_a0_bytes, 2;", True,
     "vector copies along M: a vector crossing M's end read whole"),
    ("mma_d_nn_64x128x8_32x64_s3_vc", "min.s32 %v_cp_elems, %v_cp_elems, 2;", "mov.s32 %v_cp_elems, 2;", True,
     "vector copies along K: a vector crossing K's end read whole"),
    ("simt_s_tn_64x64x8_4x4_v4_s3", "cp.async.wait_group 1;", "cp.async.wait_group 2;", True,
     "cp.async: the K loop does not wait for the tile it multiplies"),
    ("mma_d_nt_128x64x8_64x32_s3", "  cp.async.wait_group 1;\n  bar.sync 0;", "  cp.async.wait_group 1;", True,
     "cp.async: no barrier between the copies landing and other warps reading them"),
    ("simt_s_tt_32x32x8_2x2_v2_s4", "@%v_p_wrap mov.u32 %v_load_a, 0;", "", True,
     "cp.async: A's copies run past the last stage"),
    ("mma_z_cn_32x32x8_16x16_s3", "neg.f64 %v_fa0_i, %v_fa0_i;", "", True,
     "cp.async: conjugate of A dropped from the fragments"),
    ("mma_d_tn_32x32x16_16x16_s4", "setp.lt.and.s32 %v_b0_ok, %v_b0_kidx, %v_kload, %v_b0_mnok;",
     "setp.lt.and.s32 %v_b0_ok, %v_b0_kidx, %v_keff, %v_b0_mnok;", True,
     "cp.async: B's K bound not advanced with the copies (no zero fill past K)"),
    ("simt_c_nt_32x32x8_2x2_v2_s3", "cp.async.wait_all;", "", True,
     "cp.async: block exits with copies in flight"),
    ("mma_d_nt_64x128x8_32x64_s3_vc", "setp.ge.and.s32 %v_p_copy_fast, %v_kload, 8, %v_a_inner;",
     "setp.ge.and.s32 %v_p_copy_fast, %v_kload, 1, %v_a_inner;", True,
     "cp.async: unbounded copies on a K-step that ends past K (no zero fill)"),
    ("simt_s_nt_64x64x8_4x4_v4_s3_vc_ub", "setp.ge.and.s32 %v_p_copy_fast, %v_kload, 8, %v_a_inner;",
     "setp.ge.and.s32 %v_p_copy_fast, %v_kload, 1, %v_a_inner;", True,
     "SIMT unbounded copies on a K-step that ends past K (no zero fill)"),
    ("mma_d_nt_64x128x8_32x64_s3_vc", "[%v_b_sdst+2112], [%v_b1_ptr], 16;", "[%v_b_sdst+2112], [%v_b0_ptr], 16;",
     True, "cp.async: an unbounded copy reads another slot's source"),
    ("mma_d_nn_64x32x16_16x32_s3_vc_ce", "sub.s32 %v_clamp_back, %v_clamp_back, 1;",
     "sub.s32 %v_clamp_back, %v_clamp_back, 0;", True, "clamped edges: B's slots past N moved to column N, not N - 1"),
    ("mma_d_nn_64x32x16_16x32_s3_vc_ce", "setp.eq.or.s32 %v_a_inner, %v_a_mnpart, 0, %v_a_inner;",
     "setp.eq.or.s32 %v_a_inner, 0, 0, %v_a_inner;", True,
     "clamped edges: edge blocks copy A unchecked where M ends mid-vector (the clamped vector misaligned)"),
    ("mma_d_nn_64x128x8_32x64_s3_vc_oop", "add.s64 %v_d_col, %v_c_col0, %v_d_off;", "mov.u64 %v_d_col, %v_c_col0;",
     True, "out of place: the result written over C (every other column)"),
    ("mma_z_nt_64x64x8_64x16_s3", "[%v_cp_src+8], 8,", "[%v_cp_src], 8,", True,
     "c64 planes: the imaginary plane filled with real parts at the matrix's edges"),
    ("mma_z_nt_64x64x8_64x16_s3", "ld.shared.f64 %v_fa0_i, [%v_ra_cur+4352];",
     "ld.shared.f64 %v_fa0_i, [%v_ra_cur+0];", True, "c64 planes: a fragment's imaginary part read from the real plane"),
    ("mma_d_nn_64x128x8_32x64_s3_vc", "ld.global.f64 %v_cv_r1_0, [%v_c_col1+0];",
     "ld.global.f64 %v_cv_r0_0, [%v_c_col1+0];", True,
     "epilogue: the next column's C read into the registers of the column being stored"),
    ("splitk_reduce_d", "add.s64 %v_d_ptr, %v_c_ptr, %v_d_off;", "mov.u64 %v_d_ptr, %v_c_ptr;", True,
     "split-K reduction: an out-of-place result written over C"),
    ("simt_s_nn_32x32x8_2x2_v2_s2_oop", "add.s64 %v_d_col, %v_c_col0, %v_d_off;",
     "add.s64 %v_d_col, %v_c_col0, %v_d_off;\n  add.s64 %v_d_col, %v_d_col, 4;", True,
     "out of place: the result one row down in D"),
    ("simt_s_nn_128x128x8_8x8_v4", "{%v_fa4_r, %v_fa5_r, %v_fa6_r, %v_fa7_r}, [%v_ra+256]",
     "{%v_fa4_r, %v_fa5_r, %v_fa6_r, %v_fa7_r}, [%v_ra+240]", False,
     "vec-4 run stride of A's fragments in shared memory"),
    ("simt_s_nn_32x32x8_2x2_v2_s2_band_al", "min.s32 %v_band_kend, %v_band_kend, %v_band_edge;",
     "max.s32 %v_band_kend, %v_band_kend, %v_band_edge;", False,
     "band: op(A)-lower blocks' K range not narrowed (read past the triangle and K)"),
    ("simt_s_nn_32x32x8_2x2_v2_s2_band_al", "rem.u32 %v_by, %v_block_lin, %v_grid_y;",
     "rem.u32 %v_by, %v_block_lin, %v_grid_x;", False, "band: launch order mapped onto the wrong tiles"),
    ("mma_d_nn_32x32x16_16x16_s2_band_bu", "ld.param.s32 %v_band_edge, [p_fill_diag];", "mov.s32 %v_band_edge, 0;",
     False, "band: the column offset (fill_diag) of op(B)'s triangle ignored"),
    ("mma_z_nn_32x32x8_16x16_s2_band_au", "max.s32 %v_kstart, %v_kstart, %v_band_edge;",
     "max.s32 %v_kstart, %v_kstart, %v_band_edge;\n  add.s32 %v_kstart, %v_kstart, 8;", False,
     "band: op(A)-upper blocks start a K-step past their triangle"),
    ("mma_z_nn_64x64x8_64x16_s2_lf", "setp.gt.s32 %v_p_more, %v_krem, 0;", "setp.gt.s32 %v_p_more, %v_krem, 8;", False,
     "Z planes, two register stages, late fetch: the loop leaves a K-step early"),
]


def _run_case(c, ptx_dir):
    ti = TYPES[c.t]
    rng = random.Random(c.seed * 7919 + 1)
    ml, nl, u, ms, ns, vec = c.tile[:6]
    m, n, k = c.m, c.n, c.k
    a_rows, a_cols = (m, k) if c.opa == "n" else (k, m)
    b_rows, b_cols = (k, n) if c.opb == "n" else (n, k)
    lda, ldb, ldc = max(1, a_rows + c.pads[0]), max(1, b_rows + c.pads[1]), max(1, m + c.pads[2])
    if c.vc:  # vector copies need whole 16-byte vectors per column of A and B (dispatch checks it)
        v = 16 // ti.es
        lda, ldb = -(-lda // v) * v, -(-ldb // v) * v
    mem = ptxsim.Memory()
    # A band kernel's triangular operand holds explicit zeros in its other triangle (TRMM's
    # materialised triangle); op indices (i, l) of op(A), (l, j) of op(B).
    def a_op(r, s):
        return (r, s) if c.opa == "n" else (s, r)

    def b_op(r, s):
        return (r, s) if c.opb == "n" else (s, r)

    def a_zero(i, l):
        return (c.band == BAND_AL and l > i) or (c.band == BAND_AU and l < i)

    def b_zero(l, j):
        return (c.band == BAND_BL and l < j + c.fill_diag) or (c.band == BAND_BU and l > j + c.fill_diag)

    a_entries = 1 if c.bcast_a else c.batch
    A = Matrix(mem, ti, a_rows, a_cols * a_entries, lda,
               lambda r, s: simcheck.uniform(rng, ti) * (0 if a_zero(*a_op(r, s)) else 1))
    B = Matrix(mem, ti, b_rows, b_cols * c.batch, ldb,
               lambda r, s: simcheck.uniform(rng, ti) * (0 if b_zero(*b_op(r, s)) else 1))
    beta_zero = c.beta == 0
    C = Matrix(mem, ti, m, n * c.batch, ldc, lambda i, j: None if beta_zero else simcheck.uniform(rng, ti))
    # Out of place: the result's matrix, NaN-poisoned, writable only where C's result goes.
    D = Matrix(mem, ti, m, n, ldc, lambda i, j: None) if c.oop else C

    # Scalars as the kernel sees them: host values in compute precision, device values in
    # compute precision or f16. Host parameters are NaN when a device pointer replaces them.
    def scalar(z, dev):
        if not dev:
            v = ti.cround(z)
            return v, [v.real, v.imag], 0
        if c.f16:
            v = complex(ptxsim.f16_value(ptxsim.f16_bits(ptxsim.f32(z.real))), 0)
            p = mem.alloc(2)
            mem.pack("<H", p, ptxsim.f16_bits(v.real))
            mem.set_perm(p, 2, mem.R)
        else:
            v = ti.cround(z)
            fmt = "<2" + ("d" if ti.f64 else "f")
            p = mem.alloc(2 * (8 if ti.f64 else 4))
            mem.pack(fmt, p, v.real, v.imag)
            mem.set_perm(p, (2 if ti.cplx else 1) * (8 if ti.f64 else 4), mem.R)
        return v, [NAN, NAN], p

    alpha, alpha_host, alpha_ptr = scalar(c.alpha, c.dev_alpha)
    beta, beta_host, beta_ptr = scalar(c.beta, c.dev_beta)

    # Entry e of a batch: its operands' columns start e times their widths in (A's at 0 if shared).
    def opa(i, l, e=0):
        o = 0 if c.bcast_a else e * a_cols
        if c.opa == "n":
            return A.val[i, o + l]
        return A.val[l, o + i].conjugate() if c.opa == "c" else A.val[l, o + i]

    def opb(l, j, e=0):
        o = e * b_cols
        if c.opb == "n":
            return B.val[l, o + j]
        return B.val[j, o + l].conjugate() if c.opb == "c" else B.val[j, o + l]

    # The K range [lo, hi) a band kernel's block may read (kernel_abi.hpp kBand*): whole K-steps
    # around where its rows of op(A) / columns of op(B) meet the triangle.
    def a_band(i, l):
        m0 = i // ml * ml
        if c.band == BAND_AL:
            return l < -(-(m0 + ml) // u) * u
        return c.band != BAND_AU or l >= m0 // u * u

    def b_band(l, j):
        n0 = j // nl * nl + c.fill_diag
        if c.band == BAND_BL:
            return l >= n0 // u * u
        return c.band != BAND_BU or l < -(-(n0 + nl) // u) * u

    product_read = alpha != 0 and k > 0
    if product_read:
        A.allow(mem, mem.R, (lambda r, s: a_band(*a_op(r, s))) if c.band in (BAND_AL, BAND_AU) else None)
        B.allow(mem, mem.R, (lambda r, s: b_band(*b_op(r, s))) if c.band in (BAND_BL, BAND_BU) else None)
    scalars = alpha_host + beta_host + [alpha_ptr, beta_ptr]
    # The elements of C that exist: all, or the fill's triangle (kernel_abi.hpp).
    def inside(i, j):
        d = i - j
        return not ((c.fill & FILL_LOWER and d < c.fill_diag) or (c.fill & FILL_UPPER and d > c.fill_diag))

    # The kernel that writes the result (the GEMM, or the split-K reduction after the slices) may
    # read C (beta != 0) and write the result's elements that exist, in C or, out of place, in D.
    def open_output():
        C.allow(mem, (mem.W if D is C else 0) | (0 if beta_zero else mem.R), inside)
        if D is not C:
            D.allow(mem, mem.W, inside)

    fill_args = [c.fill, c.fill_diag]  # band kernels read fill_diag as their column offset
    fill_args += [D.addr - C.addr]     # d_offset, read by out-of-place kernels only
    no_counts = [0]                    # tile_counts: 0 (not fused)
    gemm = kernel(ptx_dir, c.kernel)
    threads = threads_of(c.tile) * c.kl
    grid = (-(-m // ml), -(-n // nl), c.kg)
    batch_args = []
    if c.batch > 1:
        grid = (grid[0], grid[1], c.batch)
        batch_args = [0 if c.bcast_a else lda * a_cols, ldb * b_cols, ldc * n]  # strides in elements
    operands = [A.addr, B.addr, C.addr]
    if c.ptrs:
        # Arrays of the entries' pointers, in reverse: entry z works on block batch - 1 - z (each
        # block's result depends only on its own operands, so the reference is unchanged).
        operands = []
        for M, stride in zip((A, B, C), batch_args):
            arr = mem.alloc(8 * c.batch)
            mem.pack("<%dQ" % c.batch, arr, *[M.addr + (c.batch - 1 - z) * stride * ti.es for z in range(c.batch)])
            mem.set_perm(arr, 8 * c.batch, mem.R)
            operands.append(arr)
        batch_args = []
    if c.at:
        # The launcher's scaling of C by beta (zeros without reading it for beta == 0), then the
        # slices' atomic adds: C read and written inside m x n, whatever beta is.
        for j in range(n):
            for i in range(m):
                ti.put(mem, C.at(i, j), 0 if beta_zero else ti.cround(beta * C.val[i, j]))
        C.allow(mem, mem.W | mem.R, None)
        ptxsim.launch(gemm, [A.addr, B.addr, C.addr, lda, ldb, ldc, m, n, k] + scalars + [0, c.kchunk or k] +
                      fill_args + no_counts, mem, grid, (threads, 1, 1), racecheck=c.racecheck)
    elif c.fused and c.counts:
        ws_bytes = c.kg * m * n * ti.cb
        ws = mem.alloc(ws_bytes, fill=b"\xff")
        tiles = grid[0] * grid[1]
        counts = mem.alloc(4 * tiles, fill=b"\0")
        open_output()
        ptxsim.launch(gemm, [A.addr, B.addr, C.addr, lda, ldb, ldc, m, n, k] + scalars + [ws, c.kchunk] +
                      fill_args + [counts], mem, grid, (threads, 1, 1), racecheck=c.racecheck)
        left = mem.unpack("<%dI" % tiles, counts)
        if any(left):
            return simcheck.wrong(["tile counts not back to 0 after the launch: %s" % (left,)])
    elif c.kchunk:
        ws_bytes = c.kg * m * n * ti.cb
        ws = mem.alloc(ws_bytes, fill=b"\xff")
        ptxsim.launch(gemm, [A.addr, B.addr, C.addr, lda, ldb, ldc, m, n, k] + scalars + [ws, c.kchunk] +
                      fill_args + no_counts, mem, grid, (threads, 1, 1), racecheck=c.racecheck)
        mem.set_perm(ws, ws_bytes, mem.R)
        open_output()
        groups = reduce_groups(m * n, c.kg)
        elems = REDUCE_THREADS // groups
        ptxsim.launch(kernel(ptx_dir, c.reduce), [ws, C.addr, ldc, m, n, c.kg] + scalars + fill_args, mem,
                      (-(-(m * n) // elems), 1, 1), (elems, groups, 1))
    else:
        open_output()
        ptxsim.launch(gemm, operands + [lda, ldb, ldc, m, n, k] + scalars + [0, k] + fill_args +
                      no_counts + batch_args, mem, grid, (threads, 1, 1), racecheck=c.racecheck)

    # Reference and comparison.
    bad = []
    for j in range(n * c.batch):
        e, jj = divmod(j, n)
        for i in range(m):
            if not inside(i, j):
                continue
            prods = [opa(i, l, e) * opb(l, jj, e) for l in range(k)]
            s = complex(math.fsum(p.real for p in prods), math.fsum(p.imag for p in prods))
            mag = sum(abs(opa(i, l, e)) * abs(opb(l, jj, e)) for l in range(k))
            cij = C.val[i, j]
            # BLAS: alpha == 0 or k == 0 leaves C = beta C, whatever alpha is (also infinite).
            ref = (alpha * s if product_read else 0) + (0 if beta_zero else beta * cij)
            if c.fill & FILL_HERMITIAN and i - j == c.fill_diag:
                ref = complex(ref.real, 0)  # a Hermitian result's diagonal is real
            bound = (abs(alpha) * mag if product_read else 0) + (0 if beta_zero else abs(beta) * abs(cij))
            if c.at and not beta_zero:  # beta C rounded to C's type before the slices add to it
                bound += abs(beta) * abs(cij)
            tol = 4 * (k + c.kg + 4) * ti.eps * bound + ti.out_eps * abs(ref) + ti.out_abs
            got = ti.get(mem, D.at(i, j))
            err = abs(got - ref)
            if not err <= tol:
                bad.append("C(%d,%d) = %r, expected %r (|err| %.3g > tol %.3g)" % (i, j, got, ref, err, tol))
    # A, B, the padding rows of C and C outside the fill must be unchanged.
    kept = [(A, "A", lambda i, j: True), (B, "B", lambda i, j: True),
            (D, "C padding or outside the fill", lambda i, j: i >= m or not inside(i, j))]
    if D is not C:
        kept.append((C, "C (read only: out of place)", lambda i, j: True))
    for M, what, keep in kept:
        bad += ["%s element (%d,%d) changed" % (what, i, j) for i, j in M.changed(mem, keep)]
    return simcheck.wrong(bad)


def describe(c):
    s = "%s: %s m=%d n=%d k=%d lda/ldb/ldc pads=%s alpha=%s beta=%s" % (
        c.name, c.kernel, c.m, c.n, c.k, c.pads, c.alpha, c.beta)
    if c.dev_alpha or c.dev_beta:
        s += " device%s%s%s" % (" alpha" if c.dev_alpha else "", " beta" if c.dev_beta else "",
                                " (f16)" if c.f16 else "")
    if c.kchunk:
        s += " split-K kchunk=%d kg=%d (+%s)" % (c.kchunk, c.kg, c.reduce)
    if c.fill:
        s += " fill=%d diag=%d" % (c.fill, c.fill_diag)
    if c.band:
        s += " band=%s columns from %d" % (BAND_SUFFIX[c.band], c.fill_diag)
    if c.oop:
        s += " out of place"
    if c.at:
        s += " atomic split-K"
    if c.kl > 1:
        s += " kl=%d" % c.kl
    if c.batch > 1:
        s += " batch=%d%s%s" % (c.batch, " (one A)" if c.bcast_a else "", " pointer arrays" if c.ptrs else "")
    if c.fused:
        s += " fused" if c.counts else " fused kernel, no counts"

    if c.racecheck:
        s += " racecheck"
    return s


def cases_for(args):
    if args.gen:
        cat = tile_lists(args.gen, "--catalog")
        # The mirror --ptx-dir runs use must not drift from the generator's catalog.
        if {t: [tile7(x) for x in v] for t, v in CATALOG.items()} != cat:
            raise SystemExit("check_gemm.py: CATALOG differs from the generator's tile catalog (%s --catalog)"
                             % args.gen)
        return build_cases(cat, tile_lists(args.gen, "--space"), 0 if args.mutations else args.fuzz, args.seed)
    return build_cases({t: [tile7(x) for x in v] for t, v in CATALOG.items()})


def add_arguments(ap):
    ap.add_argument("--fuzz", type=int, default=150, help="random cases from the tuning space (default 150)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random cases")


if __name__ == "__main__":
    sys.exit(simcheck.main(
        __doc__, title="ptx_sim", mutations_title="ptx_sim mutations", tmp_prefix="ptx_sim_",
        ptx_dir_help="read <kernel>.ptx from here instead of generating (no fuzz cases)",
        build_cases=cases_for, run=_run_case, describe=describe, specs_of=Case.specs, kernels_of=Case.kernels,
        mutations=MUTATIONS, add_arguments=add_arguments))
