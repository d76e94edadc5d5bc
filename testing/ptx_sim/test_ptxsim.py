#!/usr/bin/env python3
"""Unit tests of the PTX simulator itself (ptxsim.py): instruction semantics on edge values,
checked against independent references, and the faults it must raise. Standard library only."""

import math
import os
import struct
import sys
import unittest
from fractions import Fraction

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxsim  # noqa: E402
from ptxsim import Kernel, Memory, PtxError, SimFault, launch  # noqa: E402

HEADER = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(
  .param .u64 p_in, .param .u64 p_out, .param .s32 p_n)
{
"""


def kernel(body, regs):
    decl = "".join("  .reg .%s %%%s;\n" % (t, r) for r, t in regs.items())
    return Kernel(HEADER + decl + body + "}\n")


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def ref_round(v, mant_bits, emin, emax):
    """Nearest-even of exact rational v in a binary format with mant_bits fraction bits; None = inf."""
    if v == 0:
        return Fraction(0)
    a = abs(v)
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    q = Fraction(2) ** (max(e, emin) - mant_bits)
    r = round(a / q) * q  # round() of a Fraction is half-even
    if r >= Fraction(2) ** (emax + 1):
        return None
    return r if v > 0 else -r


class Conversions(unittest.TestCase):
    VALUES = [0.0, -0.0, 1.0, -1.0, 65504.0, 65519.99, 65520.0, 1e6, -1e6, 2.0 ** -24, 2.0 ** -25,
              3 * 2.0 ** -26, 2.0 ** -14, 2.0 ** -15 * 1.5, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11,
              1.0 + 2.0 ** -11 + 2.0 ** -20, 0.1, -0.3333333, 3.4e38, 1e-45, 1.1754942e-38, math.inf,
              -math.inf, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 1.00390625 + 2.0 ** -20, 255.5, 2.0 ** -133,
              2.0 ** -134, 3 * 2.0 ** -135]

    def run_cvt(self, body, regs, inputs, in_fmt, out_fmt):
        k = kernel(body, regs)
        mem = Memory(1 << 16)
        n = len(inputs)
        src = mem.alloc(8 * n)
        dst = mem.alloc(8 * n)
        for i, v in enumerate(inputs):
            mem.pack(in_fmt, src + i * struct.calcsize(in_fmt), v)
        launch(k, [src, dst, n], mem, (1, 1, 1), (n, 1, 1))
        res = [mem.unpack(out_fmt, dst + i * struct.calcsize(out_fmt)) for i in range(n)]
        return [r[0] if len(r) == 1 else r for r in res]

    PRE = """  ld.param.u64 %pi, [p_in];
  ld.param.u64 %po, [p_out];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %o4, %t, 4;
  mul.wide.u32 %o2, %t, 2;
  add.s64 %ai, %pi, %o4;
"""
    REGS = {"pi": "u64", "po": "u64", "t": "u32", "o4": "u64", "o2": "u64", "ai": "u64", "ao": "u64",
            "f": "f32", "h": "b16", "u": "b32", "g": "f32"}

    def test_f32_to_f16_round_nearest_even(self):
        vals = [ptxsim.f32(v) for v in self.VALUES]
        got = self.run_cvt(self.PRE + """  ld.global.f32 %f, [%ai];
  cvt.rn.f16.f32 %h, %f;
  add.s64 %ao, %po, %o2;
  st.global.b16 [%ao], %h;
""", self.REGS, vals, "<f", "<H")
        for v, g in zip(vals, got):
            r = ref_round(Fraction(v), 10, -14, 15) if math.isfinite(v) else None
            if r is None:
                want = 0x7C00 if v > 0 else 0xFC00
            else:
                want = struct.unpack("<H", struct.pack("<e", float(r)))[0]  # exact: r is an f16 value
                if r == 0 and math.copysign(1, v) < 0:
                    want = 0x8000
            self.assertEqual(g, want, "cvt.rn.f16.f32(%r)" % v)

    def test_f32_to_bf16_round_nearest_even(self):
        vals = [ptxsim.f32(v) for v in self.VALUES] + [bits_f32(0x3F808000), bits_f32(0x3F818000),
                                                        bits_f32(0x7F7FFFFF)]
        got = self.run_cvt(self.PRE + """  ld.global.f32 %f, [%ai];
  cvt.rn.bf16.f32 %h, %f;
  add.s64 %ao, %po, %o2;
  st.global.b16 [%ao], %h;
""", self.REGS, vals, "<f", "<H")
        for v, g in zip(vals, got):
            r = ref_round(Fraction(v), 7, -126, 127) if math.isfinite(v) else None
            if r is None:
                want = 0x7F80 if v > 0 else 0xFF80
            else:
                want = f32_bits(float(r)) >> 16  # exact: r is a bf16 value
                if r == 0 and math.copysign(1, v) < 0:
                    want = 0x8000
            self.assertEqual(g, want, "cvt.rn.bf16.f32(%r)" % v)
        self.assertEqual(got[vals.index(bits_f32(0x3F808000))], 0x3F80)  # tie to even, down
        self.assertEqual(got[vals.index(bits_f32(0x3F818000))], 0x3F82)  # tie to even, up

    def test_nan_conversions_stay_nan(self):
        got = self.run_cvt(self.PRE + """  ld.global.f32 %f, [%ai];
  cvt.rn.bf16.f32 %h, %f;
  add.s64 %ao, %po, %o2;
  st.global.b16 [%ao], %h;
""", self.REGS, [0x7FC00000, 0x7F800001, 0xFFC00000, 0x7FFFFFFF], "<I", "<H")
        for g in got:
            self.assertEqual(g & 0x7F80, 0x7F80)
            self.assertNotEqual(g & 0x7F, 0)

    def test_f16_and_bf16_widening(self):
        halves = [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x7BFF, 0x7C00, 0xFC00, 0xC000, 0x3555]
        got = self.run_cvt(self.PRE + """  add.s64 %ai, %pi, %o2;
  ld.global.b16 %h, [%ai];
  cvt.f32.f16 %f, %h;
  cvt.u32.u16 %u, %h;
  shl.b32 %u, %u, 16;
  mov.b32 %g, %u;
  add.s64 %ao, %po, %o4;
  add.s64 %ao, %ao, %o4;
  st.global.v2.f32 [%ao], {%f, %g};
""", self.REGS, halves, "<H", "<2f")
        for h, (f, g) in zip(halves, got):
            want = struct.unpack("<e", struct.pack("<H", h))[0]
            self.assertEqual(f, want)
            self.assertEqual(math.copysign(1, f), math.copysign(1, want))
            self.assertEqual(f32_bits(g), h << 16)  # bf16 widening of the same bits
        self.assertEqual(ptxsim.bf16_value(0x3F80), 1.0)
        self.assertEqual(ptxsim.bf16_value(0xC040), -3.0)


class Arithmetic(unittest.TestCase):
    def eval(self, body, regs, out_type="s64", params=(0, 0, 0)):
        """Run one thread; `body` leaves its result in %r (of out_type); returns it."""
        regs = dict(regs)
        regs["r"] = out_type
        regs["po"] = "u64"
        fmt = {"s64": "<q", "u64": "<Q", "s32": "<i", "u32": "<I", "f32": "<f", "f64": "<d", "b32": "<I",
               "pred": None}[out_type]
        k = kernel(body + "  ld.param.u64 %%po, [p_out];\n  st.global.%s [%%po], %%r;\n" % out_type, regs)
        mem = Memory(1 << 12)
        out = mem.alloc(8)
        launch(k, [params[0], out, params[2]], mem, (1, 1, 1), (1, 1, 1))
        return mem.unpack(fmt, out)[0]

    def test_signed_division_truncates(self):
        regs = {"a": "s32", "b": "s32"}
        self.assertEqual(self.eval("  mov.s32 %a, -7;\n  mov.s32 %b, 2;\n  div.s32 %r, %a, %b;\n", regs, "s32"), -3)
        self.assertEqual(self.eval("  mov.s32 %a, -7;\n  mov.s32 %b, 2;\n  rem.s32 %r, %a, %b;\n", regs, "s32"), -1)
        self.assertEqual(self.eval("  mov.s32 %a, 7;\n  mov.s32 %b, -2;\n  rem.s32 %r, %a, %b;\n", regs, "s32"), 1)
        regs = {"a": "u32"}
        self.assertEqual(self.eval("  mov.u32 %a, 4294967295;\n  div.u32 %r, %a, 16;\n", regs, "u32"), 268435455)

    def test_integer_wrap_and_widening(self):
        regs = {"a": "s32", "b": "s32"}
        self.assertEqual(self.eval("  mov.s32 %a, 65536;\n  mul.lo.s32 %r, %a, %a;\n", regs, "s32"), 0)
        self.assertEqual(self.eval("  mov.s32 %a, -65536;\n  mul.wide.s32 %r, %a, 65536;\n", regs), -(1 << 32))
        self.assertEqual(self.eval("  mov.s32 %a, 2147483647;\n  add.s32 %r, %a, 1;\n", regs, "s32"), -(1 << 31))
        self.assertEqual(self.eval("  mov.s32 %a, -8;\n  shr.s32 %r, %a, 1;\n", regs, "s32"), -4)
        self.assertEqual(self.eval("  mov.s32 %a, -1;\n  cvt.s64.s32 %r, %a;\n", regs), -1)
        regs = {"a": "u32"}
        self.assertEqual(self.eval("  mov.u32 %a, 4294967295;\n  cvt.u64.u32 %r, %a;\n", regs, "u64"), 4294967295)
        self.assertEqual(self.eval("  mov.u32 %a, 3;\n  shl.b32 %r, %a, 31;\n", regs, "b32"), 1 << 31)
        self.assertEqual(self.eval("  mov.u32 %a, 5;\n  mad.lo.u32 %r, %a, 4294967295, 7;\n", regs, "u32"), 2)
        regs = {"a": "u32", "b": "s32"}
        self.assertEqual(self.eval("  mov.u32 %a, 4294967295;\n  mov.u32 %b, %a;\n  cvt.s64.s32 %r, %b;\n", regs), -1)
        self.assertEqual(self.eval("  mov.s32 %b, -3;\n  min.s32 %r, %b, 2;\n", regs, "s32"), -3)
        self.assertEqual(self.eval("  mov.u32 %a, 4294967293;\n  min.u32 %r, %a, 2;\n", regs, "u32"), 2)

    def test_float_rounding(self):
        regs = {"a": "f32", "b": "f32"}
        one_ulp = "0f33800000"  # 2^-24
        self.assertEqual(self.eval("  mov.f32 %%a, 0f3F800000;\n  add.rn.f32 %%r, %%a, %s;\n" % one_ulp, regs, "f32"),
                         1.0)
        self.assertEqual(self.eval("  mov.f32 %a, 0f3F800001;\n  mul.rn.f32 %r, %a, %a;\n", regs, "f32"),
                         ptxsim.f32(bits_f32(0x3F800001) ** 2))
        # fma rounds once: (1+2^-23)(1-2^-23) - 1 = -2^-46 exactly; mul then add would give 0.
        self.assertEqual(self.eval("  mov.f32 %a, 0f3F800001;\n  mov.f32 %b, 0f3F7FFFFE;\n"
                                   "  fma.rn.f32 %r, %a, %b, 0fBF800000;\n", regs, "f32"), -2.0 ** -46)
        self.assertEqual(self.eval("  mov.f32 %a, 0f7F7FFFFF;\n  add.rn.f32 %r, %a, %a;\n", regs, "f32"), math.inf)
        regs = {"a": "f64"}
        self.assertEqual(self.eval("  mov.f64 %a, 0d3FF0000000000000;\n  neg.f64 %r, %a;\n", regs, "f64"), -1.0)

    def test_setp_nan_is_unordered(self):
        regs = {"a": "f32", "p": "pred", "q": "pred"}
        nan = "0f7FC00000"
        for cmp, want in (("eq", 0), ("ne", 0), ("lt", 0), ("ge", 0), ("neu", 1), ("equ", 1), ("nan", 1),
                          ("num", 0)):
            body = ("  mov.f32 %%a, %s;\n  setp.%s.f32 %%p, %%a, 0f00000000;\n  selp.s32 %%r, 1, 0, %%p;\n"
                    % (nan, cmp))
            self.assertEqual(self.eval(body, regs, "s32"), want, cmp)
        body = "  mov.f32 %a, 0f00000000;\n  setp.eq.and.f32 %p, %a, 0f80000000, %q;\n"
        self.assertEqual(self.eval("  setp.eq.s32 %q, 1, 0;\n" + body + "  selp.s32 %r, 1, 0, %p;\n",
                                   regs, "s32"), 0)
        self.assertEqual(self.eval("  setp.eq.s32 %q, 1, 1;\n" + body + "  selp.s32 %r, 1, 0, %p;\n",
                                   regs, "s32"), 1)
        body = "  setp.eq.s32 %q, 1, 0;\n  setp.le.or.s32 %p, 5, 0, %q;\n  selp.s32 %r, 1, 0, %p;\n"
        self.assertEqual(self.eval(body, regs, "s32"), 0)
        body = "  setp.eq.s32 %q, 1, 0;\n  setp.le.or.s32 %p, 5, 0, !%q;\n  selp.s32 %r, 1, 0, %p;\n"
        self.assertEqual(self.eval(body, regs, "s32"), 1)

    def test_predicated_and_branches(self):
        regs = {"i": "s32", "p": "pred"}
        body = """  mov.s32 %i, 0;
  mov.s32 %r, 0;
L_top:
  add.s32 %r, %r, %i;
  add.s32 %i, %i, 1;
  setp.lt.s32 %p, %i, 10;
  @%p bra L_top;
  @!%p add.s32 %r, %r, 1000;
  @%p add.s32 %r, %r, 1000000;
"""
        self.assertEqual(self.eval(body, regs, "s32"), 45 + 1000)


class Faults(unittest.TestCase):
    def test_unknown_instruction_raises_at_translation(self):
        for ins in ("popc.b32 %a, %a;", "add.sat.s32 %a, %a, 1;", "fma.rz.f32 %f, %f, %f, %f;",
                    "cvt.rz.f16.f32 %h, %f;", "ld.local.f32 %f, [%a];", "atom.global.cas.b32 %a, [%d], 1, 2;",
                    "mul.s32 %a, %a, %a;", "setp.lo.s32 %p, %a, %a;", "bar.sync 0, 64;"):
            with self.assertRaises(PtxError, msg=ins):
                kernel("  " + ins + "\n", {"a": "u32", "f": "f32", "h": "b16", "d": "u64", "p": "pred"})

    def run1(self, body, regs, threads=1, perms=None, racecheck=False):
        k = kernel(body, regs)
        mem = Memory(1 << 12)
        buf = mem.alloc(64)
        if perms is not None:
            mem.set_perm(buf, 64, perms)
        launch(k, [buf, 0, 0], mem, (1, 1, 1), (threads, 1, 1), racecheck=racecheck)

    def test_uninitialised_register(self):
        with self.assertRaisesRegex(SimFault, "uninitialised"):
            self.run1("  add.s32 %a, %a, 1;\n", {"a": "s32"})

    def test_memory_permissions(self):
        body = "  ld.param.u64 %d, [p_in];\n  ld.global.f32 %f, [%d];\n"
        regs = {"d": "u64", "f": "f32"}
        self.run1(body, regs, perms=Memory.R)
        with self.assertRaisesRegex(SimFault, "not readable"):
            self.run1(body, regs, perms=Memory.W)
        with self.assertRaisesRegex(SimFault, "misaligned"):
            self.run1("  ld.param.u64 %d, [p_in];\n  ld.global.f32 %f, [%d+2];\n", regs)
        with self.assertRaisesRegex(SimFault, "outside"):
            self.run1("  ld.param.u64 %d, [p_in];\n  ld.global.f32 %f, [%d+64];\n", regs)
        with self.assertRaisesRegex(SimFault, "not writable"):
            self.run1("  ld.param.u64 %d, [p_in];\n  st.global.f32 [%d], 0f00000000;\n", regs, perms=Memory.R)
        with self.assertRaisesRegex(SimFault, "PTX line"):
            self.run1("  ld.global.f32 %f, [0];\n", regs)

    def test_shared_bounds_and_race(self):
        hdr = "  .shared .align 16 .b8 sm[64];\n"
        regs = {"a": "u32", "t": "u32", "f": "f32"}
        with self.assertRaises(SimFault):
            self.run1(hdr + "  mov.u32 %a, sm;\n  ld.shared.f32 %f, [%a+64];\n", regs)
        racy = hdr + """  mov.u32 %t, %tid.x;
  mov.u32 %a, sm;
  mad.lo.u32 %a, %t, 4, %a;
  st.shared.f32 [%a], 0f3F800000;
  ld.shared.f32 %f, [%a+4];
"""
        self.run1(racy, regs, threads=2)  # sequential schedule hides it...
        with self.assertRaisesRegex(SimFault, "race"):
            self.run1(racy, regs, threads=2, racecheck=True)  # ...the race check does not
        synced = racy.replace("  ld.shared", "  bar.sync 0;\n  ld.shared")
        self.run1(synced, regs, threads=2, racecheck=True)

    # cp.async: thread t copies in[t] (or zeros, src-size 0 for t >= p_n) into sm[t], waits,
    # syncs and writes sm[t ^ 1] to out[t].
    CP_ASYNC = """  .shared .align 16 .b8 sm[64];
  ld.param.u64 %d, [p_in];
  ld.param.u64 %o, [p_out];
  ld.param.s32 %n, [p_n];
  mov.u32 %t, %tid.x;
  setp.lt.s32 %p, %t, %n;
  selp.u32 %z, 4, 0, %p;
  mul.wide.u32 %w, %t, 4;
  add.s64 %d, %d, %w;
  add.s64 %o, %o, %w;
  mov.u32 %a, sm;
  mad.lo.u32 %a, %t, 4, %a;
  cp.async.ca.shared.global [%a], [%d], 4, %z;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  xor.b32 %t, %t, 1;
  mov.u32 %a, sm;
  mad.lo.u32 %a, %t, 4, %a;
  ld.shared.f32 %f, [%a];
  st.global.f32 [%o], %f;
"""
    CP_REGS = {"d": "u64", "o": "u64", "w": "u64", "n": "s32", "t": "u32", "z": "u32", "a": "u32",
               "f": "f32", "p": "pred"}

    def run_cp(self, body, n=3, racecheck=False):
        mem = Memory(1 << 14)
        src, dst = mem.alloc(16), mem.alloc(16)
        mem.pack("<4f", src, 1.0, 2.0, 3.0, 4.0)
        launch(kernel(body, self.CP_REGS), [src, dst, n], mem, (1, 1, 1), (4, 1, 1), racecheck=racecheck)
        return mem.unpack("<4f", dst)

    def test_cp_async_copies_and_zero_fills(self):
        self.assertEqual(self.run_cp(self.CP_ASYNC, racecheck=True), (2.0, 1.0, 0.0, 3.0))

    def test_cp_async_data_lands_at_the_wait(self):
        # Read before the wait: the destination holds the poison (NaN), not the data.
        early = self.CP_ASYNC.replace("  cp.async.wait_group 0;\n", "").replace(
            "  st.global.f32 [%o], %f;\n", "  st.global.f32 [%o], %f;\n  bar.sync 0;\n  cp.async.wait_all;\n")
        self.assertTrue(all(math.isnan(v) for v in self.run_cp(early)))
        # A group left pending by wait_group 1 has not landed either.
        pending = self.CP_ASYNC.replace("wait_group 0;", "wait_group 1;").replace(
            "  st.global.f32 [%o], %f;\n", "  st.global.f32 [%o], %f;\n  bar.sync 0;\n  cp.async.wait_all;\n")
        self.assertTrue(all(math.isnan(v) for v in self.run_cp(pending)))
        # No barrier after the wait: the race check sees the neighbour's read.
        with self.assertRaisesRegex(SimFault, "race"):
            self.run_cp(self.CP_ASYNC.replace("  bar.sync 0;\n", ""), racecheck=True)
        with self.assertRaisesRegex(SimFault, "in flight"):
            self.run_cp(self.CP_ASYNC.replace("  cp.async.wait_group 0;\n", ""))
        with self.assertRaises(PtxError):
            kernel("  cp.async.cg.shared.global [%a], [%d], 8;\n", self.CP_REGS)

    def test_unwritten_shared_memory_is_nan(self):
        k = kernel("  .shared .align 16 .b8 sm[16];\n  mov.u32 %a, sm;\n  ld.shared.f32 %f, [%a];\n"
                   "  ld.param.u64 %d, [p_out];\n  st.global.f32 [%d], %f;\n", {"a": "u32", "f": "f32", "d": "u64"})
        mem = Memory(1 << 12)
        out = mem.alloc(4)
        launch(k, [0, out, 0], mem, (1, 1, 1), (1, 1, 1))
        self.assertTrue(math.isnan(mem.unpack("<f", out)[0]))

    def test_barrier_divergence(self):
        body = """  mov.u32 %t, %tid.x;
  setp.eq.u32 %p, %t, 0;
  @%p ret;
  bar.sync 0;
"""
        with self.assertRaisesRegex(SimFault, "barrier divergence"):
            self.run1(body, {"t": "u32", "p": "pred"}, threads=2)

    def test_runaway_loop(self):
        k = kernel("L_x:\n  bra L_x;\n", {})
        with self.assertRaisesRegex(SimFault, "runaway"):
            launch(k, [0, 0, 0], Memory(64), (1, 1, 1), (1, 1, 1), step_limit=1000)


if __name__ == "__main__":
    unittest.main()
