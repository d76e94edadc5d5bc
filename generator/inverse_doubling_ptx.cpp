// Inverses of 2H-wide diagonal blocks from the H-wide ones (matrix_helpers_ptx.hpp has the
// contract): TRSM's leaves of 2H without a 2H-wide substitution kernel, whose shared tile would
// not fit (perf notes §57). For a lower block [[L11, 0], [L21, L22]] with X1 = inv(L11), X2 =
// inv(L22) its inverse is [[X1, 0], [-X2 L21 X1, X2]]; an upper [[U11, U12], [0, U22]] gives
// [[X1, -X1 U12 X2], [0, X2]]. Both are off = -Left (Off Right) with
//   lower: Right = X1 (H x H), Off = L21 (h2 x H), Left = X2 (h2 x h2), at (H, 0);
//   upper: Right = X2 (h2 x h2), Off = U12 (H x h2), Left = X1 (H x H), at (0, H);
// (h2 = the second block's width, H or less in the last block). Block (s, p) of the grid makes
// columns [s CW, s CW + CW) of pair p's off-diagonal block: Right's columns go to shared memory,
// Off Right's to shared memory after them, and each thread keeps PC columns of one row in
// registers (256 threads: row tid % H, columns (tid / H) PC + q). Both products run eight terms
// at a time with their eight global loads in flight (the shared operand is a broadcast: every
// thread of a warp reads the same row). The block also copies its columns of X1 and X2 into
// place and zeroes the unstored quadrant.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "helper_emitter.hpp"
#include "matrix_helpers_ptx.hpp"

namespace ptxblas::gen {
namespace {

using namespace helper_ptx;

constexpr int kThreads = kDoublingThreads;
constexpr int kTerms = 8;             // terms per group, their loads in flight
constexpr int kSharedBytes = 32768;   // both column strips together

void require_half_width(int half) {
  if (half != 32 && half != 64 && half != 128)
    throw std::invalid_argument("inverse doubling from width " + num(half) + " (32, 64 or 128)");
}

}  // namespace

// Columns per block: 8, twice the blocks of 16 (the products are latency-bound: one group of
// eight loads in flight per thread), where a strip row holds under 1 KiB (half x element
// bytes): D's 16 pairs of 64 at n = 4096 took 15 µs instead of 39 (perf notes §61). Wider
// halves keep 16: D's pairs of 128 took 74 µs in strips of 8 against 46 in strips of 16 (§66).
// Narrower strips read Off and Left once more per strip (from L2).
int doubling_strip_width(DataType data, int half) {
  require_half_width(half);
  const int cb = type_info(data).cb;
  return std::min(half * cb >= 1024 ? 16 : 8, kSharedBytes / (2 * half * cb));
}

int doubling_smem_bytes(DataType data, int half) {
  return 2 * half * doubling_strip_width(data, half) * type_info(data).cb;
}

std::string doubling_name(DataType data, bool lower, int half) {
  std::string s = "tri_dbl" + num(2 * half) + "_";
  s += type_letter(data);
  s += lower ? "_l" : "_u";
  return s;
}

GeneratedKernel generate_inverse_doubling(DataType data, bool lower, int half, int sm) {
  require_blas3_type(data);
  const int cw = doubling_strip_width(data, half);
  const int pc = cw * half / kThreads;  // columns per thread
  if (pc < 1) throw std::invalid_argument("inverse doubling: strip narrower than a thread's columns");
  HelperEmitter e(data);
  const TypeInfo& t = e.type();
  const int strip_bytes = half * cw * t.cb;

  for (const char* p : {"a", "half", "dst"}) {
    e.ins(std::string("ld.param.u64 ") + e.r("u64", p) + ", [p_" + p + "]");
    e.ins(std::string("cvta.to.global.u64 %") + p + ", %" + p);
  }
  for (const char* p : {"lda", "ldh", "ldd"}) e.ins(std::string("ld.param.s64 ") + e.r("s64", p) + ", [p_" + p + "]");
  e.ins("ld.param.s32 " + e.r("s32", "n") + ", [p_n]");
  // This pair's block: base = 2H p, h1 = min(H, n - base), h2 = min(H, n - base - H) (<= 0: none).
  e.ins("mov.u32 " + e.r("s32", "base") + ", %ctaid.y");
  e.ins("mul.lo.s32 %base, %base, " + num(2 * half));
  e.ins("sub.s32 " + e.r("s32", "h1") + ", %n, %base");
  e.ins("min.s32 %h1, %h1, " + num(half));
  e.ins("sub.s32 " + e.r("s32", "h2") + ", %n, %base");
  e.ins("sub.s32 %h2, %h2, " + num(half));
  e.ins("min.s32 %h2, %h2, " + num(half));
  e.ins("max.s32 %h2, %h2, 0");
  e.ins("add.s32 " + e.r("s32", "mid") + ", %base, " + num(half));
  // Thread: row r, first column c0 (of the pair's block) = s CW + (tid / H) PC.
  e.ins("mov.u32 " + e.r("u32", "thr") + ", %tid.x");
  e.ins("rem.u32 " + e.r("s32", "r") + ", %thr, " + num(half));
  e.ins("div.u32 " + e.r("s32", "cg") + ", %thr, " + num(half));
  e.ins("mul.lo.s32 %cg, %cg, " + num(pc));
  e.ins("mov.u32 " + e.r("s32", "c0") + ", %ctaid.x");
  e.ins("mad.lo.s32 %c0, %c0, " + num(cw) + ", %cg");
  e.ins("add.s32 " + e.r("s32", "rb") + ", %base, %r");  // rows of the first block
  e.ins("add.s32 " + e.r("s32", "rm") + ", %mid, %r");   // rows of the second
  e.ins("add.s32 " + e.r("s32", "hcol") + ", %c0, " + num(half));

  const Value v = e.value("v"), zero = e.value("zero");
  e.set(zero, t.zero, t.zero);
  // Copies of X1, X2 and the zero quadrant, column by column of the thread's PC.
  for (int q = 0; q < pc; ++q) {
    const std::string c = e.r("s32", "cq" + num(q)), hc = e.r("s32", "hq" + num(q));
    e.ins("add.s32 " + c + ", %c0, " + num(q));
    e.ins("add.s32 " + hc + ", %hcol, " + num(q));
    const std::string p1 = e.r("pred", "p_x1_" + num(q)), p2 = e.r("pred", "p_x2_" + num(q)),
                      pz = e.r("pred", "p_z_" + num(q));
    e.ins("setp.lt.s32 " + p1 + ", %r, %h1");
    e.ins("setp.lt.and.s32 " + p1 + ", " + c + ", %h1, " + p1);
    e.ins("setp.lt.s32 " + p2 + ", %r, %h2");
    e.ins("setp.lt.and.s32 " + p2 + ", " + c + ", %h2, " + p2);
    if (lower) {  // (0, H) quadrant: rows < h1, columns < h2
      e.ins("setp.lt.s32 " + pz + ", %r, %h1");
      e.ins("setp.lt.and.s32 " + pz + ", " + c + ", %h2, " + pz);
    } else {      // (H, 0) quadrant: rows < h2, columns < h1
      e.ins("setp.lt.s32 " + pz + ", %r, %h2");
      e.ins("setp.lt.and.s32 " + pz + ", " + c + ", %h1, " + pz);
    }
    const std::string skip1 = "L_no_x1_" + num(q), skip2 = "L_no_x2_" + num(q), skipz = "L_no_z_" + num(q);
    e.ins("@!" + p1 + " bra " + skip1);
    e.load(v, e.address("x1_src" + num(q), "%half", "%ldh", "%rb", c));
    e.store(v, e.address("x1_dst" + num(q), "%dst", "%ldd", "%rb", c));
    e.label(skip1);
    e.ins("@!" + p2 + " bra " + skip2);
    e.load(v, e.address("x2_src" + num(q), "%half", "%ldh", "%rm", c));
    e.store(v, e.address("x2_dst" + num(q), "%dst", "%ldd", "%rm", hc));
    e.label(skip2);
    e.ins("@!" + pz + " bra " + skipz);
    e.store(zero, lower ? e.address("z_dst" + num(q), "%dst", "%ldd", "%rb", hc)
                        : e.address("z_dst" + num(q), "%dst", "%ldd", "%rm", c));
    e.label(skipz);
  }
  // A lone first block (h2 == 0) has nothing more: the whole block returns (uniform).
  e.ins("setp.eq.s32 " + e.r("pred", "p_lone") + ", %h2, 0");
  e.ins("@%p_lone bra L_done");

  // The products' sizes: Right kr x nc, Off mo x kr, Left mo x mo.
  const std::string kr = lower ? "%h1" : "%h2", nc = lower ? "%h1" : "%h2", mo = lower ? "%h2" : "%h1";
  const std::string right_row = lower ? "%base" : "%mid", off_row = lower ? "%mid" : "%base",
                    off_col = lower ? "%base" : "%mid", left_row = lower ? "%mid" : "%base";
  const std::string s1 = e.r("u32", "s1"), s2 = e.r("u32", "s2");
  e.ins("mov.u32 " + s1 + ", smem");
  e.ins("add.u32 " + s2 + ", " + s1 + ", " + num(strip_bytes));
  // This thread's run of PC elements in row `row` of a strip.
  auto strip_at = [&](const std::string& name, const std::string& strip, const std::string& row) {
    const std::string a = e.r("u32", name);
    e.ins("mad.lo.u32 " + a + ", " + row + ", " + num(cw) + ", %cg");
    e.ins("mad.lo.u32 " + a + ", " + a + ", " + num(t.cb) + ", " + strip);
    return a;
  };
  // Vector loads and stores of a run of PC elements (16 bytes at most each).
  const int per = std::max(1, std::min(pc, 16 / t.cb));
  auto run_op = [&](bool store, const std::vector<Value>& vals, const std::string& addr, int offset = 0) {
    for (int q = 0; q < pc; q += per) {
      std::string regs;
      for (int k = 0; k < per; ++k) {
        regs += (k ? ", " : "") + vals[q + k].re;
        if (t.cplx) regs += ", " + vals[q + k].im;
      }
      const int parts = per * (t.cplx ? 2 : 1);
      const std::string vec = parts == 1 ? "" : ".v" + num(parts);
      const std::string at = "[" + addr + "+" + num(offset + q * t.cb) + "]";
      if (store)
        e.ins("st.shared" + vec + "." + t.ct + " " + at + ", " + (parts == 1 ? regs : "{" + regs + "}"));
      else
        e.ins("ld.shared" + vec + "." + t.ct + " " + (parts == 1 ? regs : "{" + regs + "}") + ", " + at);
    }
  };
  std::vector<Value> acc, rv;
  for (int q = 0; q < pc; ++q) {
    acc.push_back(e.value("acc" + num(q)));
    rv.push_back(e.value("rv" + num(q)));
  }

  // Right's columns into strip 1: row r, zero past kr rows or nc columns.
  e.ins("add.s32 " + e.r("s32", "rr") + ", " + right_row + ", %r");
  for (int q = 0; q < pc; ++q) {
    const std::string pq = e.r("pred", "p_rt" + num(q));
    e.set(rv[q], t.zero, t.zero);
    e.ins("setp.lt.s32 " + pq + ", %r, " + kr);
    e.ins("setp.lt.and.s32 " + pq + ", %cq" + num(q) + ", " + nc + ", " + pq);
    e.load(rv[q], e.address("rt_src" + num(q), "%half", "%ldh", "%rr", "%cq" + num(q)), pq);
  }
  run_op(true, rv, strip_at("s1_mine", s1, "%r"));
  e.ins("bar.sync 0");

  // acc = sum over l < len of M(r, l) strip[l][mine], M's row r starting at `first` (global, its
  // columns ld apart), eight terms at a time; rows r >= rows and terms past len load as zero
  // (the strip's rows past len hold zeros or are never the last group's valid terms).
  auto product = [&](const std::string& tag, const std::string& first, const std::string& ld,
                     const std::string& len, const std::string& rows, const std::string& strip) {
    for (const Value& a : acc) e.set(a, t.zero, t.zero);
    const std::string l = e.r("s32", tag + "_l"), pm = e.r("u64", tag + "_p"), step = e.r("s64", tag + "_step"),
                      prow = e.r("pred", tag + "_prow"), ps = e.r("u32", tag + "_ps"),
                      lk = e.r("s32", tag + "_lk"), more = e.r("pred", tag + "_more");
    e.ins("mov.u64 " + pm + ", " + first);
    e.ins("mul.lo.s64 " + step + ", " + ld + ", " + num(t.es));
    e.ins("setp.lt.s32 " + prow + ", %r, " + rows);
    e.ins("mov.s32 " + l + ", 0");
    e.ins("mad.lo.u32 " + ps + ", %cg, " + num(t.cb) + ", " + strip);  // this thread's columns of row 0
    e.label("L_" + tag + "_group");
    std::vector<Value> mv;
    for (int k = 0; k < kTerms; ++k) {
      mv.push_back(e.value(tag + "_m" + num(k)));
      const std::string pk = e.r("pred", tag + "_pk" + num(k));
      e.set(mv[k], t.zero, t.zero);
      e.ins("add.s32 " + lk + ", " + l + ", " + num(k));
      e.ins("setp.lt.and.s32 " + pk + ", " + lk + ", " + len + ", " + prow);
      e.load(mv[k], pm, pk);
      e.ins("add.u64 " + pm + ", " + pm + ", " + step);
    }
    for (int k = 0; k < kTerms; ++k) {
      run_op(false, rv, ps, k * cw * t.cb);
      for (int q = 0; q < pc; ++q) e.mul_add(acc[q], mv[k], rv[q]);
    }
    e.ins("add.u32 " + ps + ", " + ps + ", " + num(kTerms * cw * t.cb));
    e.ins("add.s32 " + l + ", " + l + ", " + num(kTerms));
    e.ins("setp.lt.s32 " + more + ", " + l + ", " + len);
    e.ins("@" + more + " bra L_" + tag + "_group");
  };

  // Strip 2 = Off Right (rows of Off past mo are zero: their loads are predicated off).
  e.ins("add.s32 " + e.r("s32", "orow") + ", " + off_row + ", %r");
  const std::string off_first = e.address("off_first", "%a", "%lda", "%orow", off_col);
  product("off", off_first, "%lda", kr, mo, s1);
  run_op(true, acc, strip_at("s2_mine", s2, "%r"));
  e.ins("bar.sync 0");

  // The off-diagonal block = -(Left strip 2), stored where r < mo and the column < nc.
  e.ins("add.s32 " + e.r("s32", "lrow") + ", " + left_row + ", %r");
  e.ins("mov.s32 " + e.r("s32", "col0") + ", 0");
  const std::string left_first = e.address("left_first", "%half", "%ldh", "%lrow", "%col0");
  product("left", left_first, "%ldh", mo, mo, s2);
  const std::string out_row = lower ? "%rm" : "%rb";
  for (int q = 0; q < pc; ++q) {
    const std::string pq = e.r("pred", "p_out" + num(q)), skip = "L_no_out" + num(q);
    e.ins("setp.lt.s32 " + pq + ", %r, " + mo);
    e.ins("setp.lt.and.s32 " + pq + ", %cq" + num(q) + ", " + nc + ", " + pq);
    e.ins("@!" + pq + " bra " + skip);
    e.ins("neg." + t.ct + " " + acc[q].re + ", " + acc[q].re);
    if (t.cplx) e.ins("neg." + t.ct + " " + acc[q].im + ", " + acc[q].im);
    e.store(acc[q], e.address("out_at" + num(q), "%dst", "%ldd", out_row, lower ? "%cq" + num(q) : "%hq" + num(q)));
    e.label(skip);
  }
  e.label("L_done");
  e.ins("ret");

  GeneratedKernel k = helper_kernel(doubling_name(data, lower, half), sm,
                                    ".param .u64 p_a, .param .s64 p_lda, .param .u64 p_half, .param .s64 p_ldh,\n"
                                    "  .param .u64 p_dst, .param .s64 p_ldd, .param .s32 p_n",
                                    kThreads, e, ".extern .shared .align 16 .b8 smem[];\n\n");
  k.dynamic_smem = doubling_smem_bytes(data, half);
  return k;
}

}  // namespace ptxblas::gen
