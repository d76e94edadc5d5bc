#include "matrix_helpers_ptx.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "helper_emitter.hpp"

namespace ptxblas::gen {
namespace {

using namespace helper_ptx;

char kind_letter(HelperKind k) {
  switch (k) {
    case HelperKind::Copy: return 'c';
    case HelperKind::Scale: return 's';
    case HelperKind::Symmetrize: return 'y';
    case HelperKind::Triangle: return 't';
  }
  return '?';
}

// The body for element (%i, %j) of the destination; %dst_at is its address.
void element_body(HelperEmitter& e, const MatrixHelper& h) {
  const TypeInfo& t = e.type();
  const Value v = e.value("v");
  const std::string dst = e.address("dst_at", "%dst", "%ldd", "%i", "%j");
  auto src_at = [&](const std::string& name, const std::string& row, const std::string& col) {
    return e.address(name, "%src", "%lds", row, col);
  };
  // Triangle predicates: on the diagonal, strictly inside the stored triangle.
  e.ins("setp.eq.s32 " + e.r("pred", "p_diag") + ", %i, %j");
  e.ins(std::string("setp.") + (h.lower ? "gt" : "lt") + ".s32 " + e.r("pred", "p_in") + ", %i, %j");
  switch (h.kind) {
    case HelperKind::Copy:
      e.load(v, src_at("src_at", "%i", "%j"));
      e.store(v, dst);
      return;
    case HelperKind::Scale:
      e.set(v, t.zero, t.zero);
      e.ins("@%p_s_zero bra L_store");
      {
        const Value c = e.value("c");
        e.load(c, dst);
        e.mul_add(v, Value{"%s_re", t.cplx ? "%s_im" : ""}, c);
      }
      e.label("L_store");
      e.store(v, dst);
      return;
    case HelperKind::Symmetrize: {
      const std::string same = src_at("src_same", "%i", "%j"), mirror = src_at("src_mirror", "%j", "%i");
      e.ins("@%p_in bra L_same");
      e.ins("@%p_diag bra L_same");
      e.load(v, mirror);
      if (h.hermitian) e.ins("neg." + t.ct + " " + v.im + ", " + v.im);
      e.ins("bra L_store");
      e.label("L_same");
      e.load(v, same);
      if (h.hermitian) e.ins("@%p_diag mov." + t.ct + " " + v.im + ", " + t.zero);
      e.label("L_store");
      e.store(v, dst);
      return;
    }
    case HelperKind::Triangle: {
      const std::string same = src_at("src_same", "%i", "%j");
      e.set(v, t.zero, t.zero);
      if (h.unit) {
        e.ins("@%p_diag mov." + t.ct + " " + v.re + ", " + e.one());
        e.ins("@%p_in bra L_load");
      } else {
        e.ins("@%p_in bra L_load");
        e.ins("@%p_diag bra L_load");
      }
      e.ins("bra L_store");
      e.label("L_load");
      e.load(v, same);
      e.label("L_store");
      e.store(v, dst);
      return;
    }
  }
}

}  // namespace

std::string helper_name(const MatrixHelper& requested) {
  MatrixHelper h = requested;
  h.hermitian = h.hermitian && is_complex(h.data);
  std::string s = "mat_";
  s += kind_letter(h.kind);
  s += '_';
  s += type_letter(h.data);
  if (h.kind == HelperKind::Symmetrize || h.kind == HelperKind::Triangle)
    s += h.lower ? "_l" : "_u";
  if (h.kind == HelperKind::Symmetrize && h.hermitian) s += "_herm";
  if (h.kind == HelperKind::Triangle && h.unit) s += "_unit";
  return s;
}

GeneratedKernel generate_matrix_helper(const MatrixHelper& requested, int sm) {
  require_blas3_type(requested.data);
  MatrixHelper h = requested;
  h.hermitian = h.hermitian && is_complex(h.data);  // real Hermitian is symmetric
  HelperEmitter e(h.data);
  const TypeInfo& t = e.type();
  e.source_and_destination();
  e.ins("ld.param.s32 " + e.r("s32", "m") + ", [p_m]");
  e.ins("ld.param.s32 " + e.r("s32", "n") + ", [p_n]");
  e.ins("ld.param." + t.ct + " " + e.ct("s_re") + ", [p_s_re]");
  e.ins("setp.eq." + t.ct + " " + e.r("pred", "p_s_zero") + ", %s_re, " + t.zero);
  if (t.cplx) {
    e.ins("ld.param." + t.ct + " " + e.ct("s_im") + ", [p_s_im]");
    e.ins("setp.eq.and." + t.ct + " %p_s_zero, %s_im, " + t.zero + ", %p_s_zero");
  }
  e.global_index("i", kHelperThreads, "%m");  // one row a thread
  e.ins("mov.u32 " + e.r("s32", "j") + ", %ctaid.y");
  e.ins("mov.u32 " + e.r("s32", "jstep") + ", %nctaid.y");
  e.label("L_column");
  e.ins("setp.ge.u32 %p_out, %j, %n");  // unsigned: j + gridDim.y past 2^31 must still end the loop
  e.ins("@%p_out ret");
  // Labels repeat per column iteration: the body is emitted once inside the loop.
  element_body(e, h);
  e.ins("add.s32 %j, %j, %jstep");
  e.ins("bra L_column");

  return helper_kernel(helper_name(h), sm,
                       ".param .u64 p_src, .param .s64 p_lds, .param .u64 p_dst, .param .s64 p_ldd,\n"
                       "  .param .s32 p_m, .param .s32 p_n, .param ." + t.ct + " p_s_re, .param ." + t.ct + " p_s_im",
                       kHelperThreads, e);
}

int inverse_smem_bytes(DataType data, int width) {
  const int cb = type_info(data).cb;
  return width * (width + 2) * cb + width * cb;  // the tile (row stride W + 2) and the diagonal
}

int max_inverse_width(DataType data, int smem_limit) {
  int best = 0;
  for (int w : kInverseWidths)
    if (inverse_smem_bytes(data, w) <= smem_limit) best = w;
  return best;
}

std::string inverse_name(DataType data, bool lower, bool unit, int width) {
  std::string s = "tri_inv" + num(width) + "_";
  s += type_letter(data);
  s += lower ? "_l" : "_u";
  if (unit) s += "_unit";
  return s;
}

// One block of `width` threads per diagonal block. The block's triangle and the inverse's
// columns share one padded [width][width + 2] tile: the triangle keeps its strictly stored side,
// thread j keeps column j of the inverse X in row j of the tile on the other side (X(l, j) at
// (j, l); X is zero where the triangle is, so the two never meet), and the diagonal's reciprocals
// sit apart. So no thread ever writes what another reads and the solve needs no barrier: thread j
// runs its substitution alone, reading rows of the triangle (consecutive, conflict-free) and its
// own row, eight terms at a time into eight running sums, the last group's missing terms left
// zero (the chain of a 128-wide block's first column is ~8000 terms long: its latency, not
// the work, is the kernel's time; by count, one-by-one remainders were about a fifth of its
// steps). The load phase keeps eight of its row's loads in flight (one at a time, it waited on
// each: perf notes §48, 122.6 -> 71.0 µs for S's 128-wide blocks).
//   lower: X(i, j) = (delta_ij - sum_{l=j}^{i-1} T(i, l) X(l, j)) / T(i, i), i = j .. w - 1
//   upper: X(i, j) = (delta_ij - sum_{l=i+1}^{j} T(i, l) X(l, j)) / T(i, i), i = j .. 0
// Loads and stores walk columns with consecutive rows across threads (coalesced). In the solve
// thread j reads (j + r, j + k) and (j, j + k): a row stride of W + 2 makes that an odd number of
// elements between threads (no bank conflicts); the load phase's W accesses pay a 2-way conflict.
GeneratedKernel generate_triangular_inverse(DataType data, bool lower, bool unit, int width, int sm) {
  require_blas3_type(data);
  if (std::find(std::begin(kInverseWidths), std::end(kInverseWidths), width) == std::end(kInverseWidths))
    throw std::invalid_argument("triangular inverse width " + num(width) + " (32, 64 or 128)");
  HelperEmitter e(data);
  const TypeInfo& t = e.type();
  const int stride = width + 2;
  const int tile_bytes = width * stride * t.cb;
  e.source_and_destination();
  // Block b inverts the diagonal block at (W b, W b), w = min(W, n - W b) wide, into rows W b on
  // of the destination strip.
  e.ins("ld.param.s32 " + e.r("s32", "n") + ", [p_n]");
  e.ins("mov.u32 " + e.r("s32", "boff") + ", %ctaid.x");
  e.ins("mul.lo.s32 %boff, %boff, " + num(width));
  e.ins("sub.s32 %n, %n, %boff");
  e.ins("min.s32 %n, %n, " + num(width));
  e.ins("cvt.s64.s32 " + e.r("s64", "boff64") + ", %boff");
  e.ins("add.s64 " + e.r("s64", "diag_step") + ", %lds, 1");
  e.ins("mul.lo.s64 %diag_step, %diag_step, %boff64");
  e.ins("mad.lo.s64 %src, %diag_step, " + num(t.es) + ", %src");
  e.ins("mad.lo.s64 %dst, %boff64, " + num(t.es) + ", %dst");
  e.ins("mov.u32 " + e.r("s32", "j") + ", %tid.x");
  e.ins("setp.lt.s32 " + e.r("pred", "p_row") + ", %j, %n");
  constexpr int kSums = 8, kLoads = 8;  // widths are multiples of both
  const Value v = e.value("v"), d = e.value("d");
  Value sums[kSums], tv[kSums], xv[kSums];
  for (int k = 0; k < kSums; ++k) {
    sums[k] = e.value("s" + num(k));
    tv[k] = e.value("t" + num(k));
    xv[k] = e.value("x" + num(k));
  }
  const std::string sh = e.r("u32", "sh"), sd = e.r("u32", "sd");
  e.ins("mov.u32 " + sh + ", smem");
  e.ins("add.u32 " + sd + ", " + sh + ", " + num(tile_bytes));
  auto smem_store = [&](const std::string& addr, const Value& val) {
    if (t.cplx)
      e.ins("st.shared.v2." + t.ct + " [" + addr + "], {" + val.re + ", " + val.im + "}");
    else
      e.ins("st.shared." + t.ct + " [" + addr + "], " + val.re);
  };
  auto smem_load = [&](const Value& val, const std::string& addr, const std::string& guard = "") {
    const std::string g = guarded(guard);
    if (t.cplx)
      e.ins(g + "ld.shared.v2." + t.ct + " {" + val.re + ", " + val.im + "}, [" + addr + "]");
    else
      e.ins(g + "ld.shared." + t.ct + " " + val.re + ", [" + addr + "]");
  };
  // address of tile element (row, col)
  auto tile_at = [&](const std::string& name, const std::string& row, const std::string& col) {
    const std::string a = e.r("u32", name);
    e.ins("mad.lo.u32 " + a + ", " + row + ", " + num(stride) + ", " + col);
    e.ins("mad.lo.u32 " + a + ", " + a + ", " + num(t.cb) + ", " + sh);
    return a;
  };
  const std::string c = e.r("s32", "c");

  // Thread j loads row j: T(j, c) on the stored side of the diagonal (zero elsewhere and past w),
  // kLoads columns per step with their loads all in flight, and 1 / T(j, j) into the diagonal's
  // array.
  e.ins("mov.s32 " + c + ", 0");
  e.label("L_load");
  std::vector<Value> lv;
  std::vector<std::string> cols;
  for (int q = 0; q < kLoads; ++q) {
    const std::string cq = e.r("s32", "c" + num(q)), pq = e.r("pred", "p_tri" + num(q));
    lv.push_back(e.value("lv" + num(q)));
    cols.push_back(cq);
    e.ins("add.s32 " + cq + ", " + c + ", " + num(q));
    e.set(lv.back(), t.zero, t.zero);
    e.ins(std::string("setp.") + (lower ? "gt" : "lt") + ".s32 " + pq + ", %j, " + cq);
    e.ins("setp.lt.and.s32 " + pq + ", " + cq + ", %n, " + pq);
    e.ins("and.pred " + pq + ", " + pq + ", %p_row");
    e.load(lv.back(), e.address("src_at" + num(q), "%src", "%lds", "%j", cq), pq);
  }
  for (int q = 0; q < kLoads; ++q) smem_store(tile_at("t_at" + num(q), "%j", cols[q]), lv[q]);
  e.ins("add.s32 " + c + ", " + c + ", " + num(kLoads));
  e.ins("setp.lt.s32 " + e.r("pred", "p_more") + ", " + c + ", " + num(width));
  e.ins("@%p_more bra L_load");
  if (!unit) {  // the unit diagonal is implicitly 1 and never read
    const std::string dg_at = e.r("u32", "dg_at");
    e.ins("mad.lo.u32 " + dg_at + ", %j, " + num(t.cb) + ", " + sd);
    e.set(v, e.one(), t.zero);
    e.ins("@!%p_row bra L_have_diag");
    e.load(v, e.address("diag_at", "%src", "%lds", "%j", "%j"));
    e.label("L_have_diag");
    // Its reciprocal: every row's division at once here, not one per row on the solve's chain.
    const Value one = e.value("one"), r = e.value("r");
    e.set(one, e.one(), t.zero);
    e.divide(r, one, v);
    smem_store(dg_at, r);
  }
  e.ins("bar.sync 0");
  e.ins("@!%p_row bra L_solved");

  // Column j of X, rows in solve order: from the diagonal down (lower) or up (upper).
  const std::string i = e.r("s32", "i"), lo = e.r("s32", "lo"), hi = e.r("s32", "hi");
  const std::string pt = e.r("u32", "pt"), px = e.r("u32", "px");
  e.ins("mov.s32 " + i + ", %j");
  e.label("L_row");
  for (const Value& sum : sums) e.set(sum, t.zero, t.zero);
  e.ins("setp.eq.s32 " + e.r("pred", "p_diag") + ", " + i + ", %j");
  e.ins("@%p_diag mov." + t.ct + " " + sums[0].re + ", " + e.one());
  if (lower) {
    e.ins("mov.s32 " + lo + ", %j");
    e.ins("mov.s32 " + hi + ", " + i);
  } else {
    e.ins("add.s32 " + lo + ", " + i + ", 1");
    e.ins("add.s32 " + hi + ", %j, 1");
  }
  // T(i, l) and X(l, j) at (j, l) for l in [lo, hi): kSums terms at a time into as many running
  // sums (their loads all in flight, their FMAs independent), then one last group whose terms
  // past hi are not loaded but left zero (no one-by-one remainder, and no read of what another
  // thread writes: past hi the tile holds other columns' X).
  const std::string l = e.r("s32", "l"), last = e.r("s32", "last"), left = e.r("s32", "left");
  e.ins("mov.u32 " + pt + ", " + tile_at("pt0", i, lo));
  e.ins("mov.u32 " + px + ", " + tile_at("px0", "%j", lo));
  e.ins("mov.s32 " + l + ", " + lo);
  e.ins("sub.s32 " + last + ", " + hi + ", " + num(kSums - 1));
  auto group = [&](bool guarded) {
    if (guarded) e.ins("sub.s32 " + left + ", " + hi + ", " + l);
    for (int k = 0; k < kSums; ++k) {
      std::string pk;
      if (guarded) {
        pk = e.r("pred", "p_term" + num(k));
        e.ins("setp.gt.s32 " + pk + ", " + left + ", " + num(k));
        e.set(tv[k], t.zero, t.zero);
        e.set(xv[k], t.zero, t.zero);
      }
      smem_load(tv[k], pt + "+" + num(k * t.cb), pk);
      smem_load(xv[k], px + "+" + num(k * t.cb), pk);
    }
    for (int k = 0; k < kSums; ++k) e.mul_sub(sums[k], tv[k], xv[k]);
  };
  e.label("L_dot_many");
  e.ins("setp.ge.s32 " + e.r("pred", "p_few") + ", " + l + ", " + last);
  e.ins("@%p_few bra L_dot_last");
  group(false);
  e.ins("add.u32 " + pt + ", " + pt + ", " + num(kSums * t.cb));
  e.ins("add.u32 " + px + ", " + px + ", " + num(kSums * t.cb));
  e.ins("add.s32 " + l + ", " + l + ", " + num(kSums));
  e.ins("bra L_dot_many");
  e.label("L_dot_last");
  e.ins("setp.ge.s32 " + e.r("pred", "p_dot_done") + ", " + l + ", " + hi);
  e.ins("@%p_dot_done bra L_dot_end");
  group(true);
  e.label("L_dot_end");
  auto add_into = [&](const Value& acc, const Value& other) {
    e.ins("add." + t.ct + " " + acc.re + ", " + acc.re + ", " + other.re);
    if (t.cplx) e.ins("add." + t.ct + " " + acc.im + ", " + acc.im + ", " + other.im);
  };
  for (int step = 1; step < kSums; step *= 2)
    for (int k = 0; k + step < kSums; k += 2 * step) add_into(sums[k], sums[k + step]);
  const std::string xi_at = tile_at("xi_at", "%j", i);
  if (unit) {
    smem_store(xi_at, sums[0]);
  } else {  // times the diagonal's reciprocal, taken in the load phase
    const std::string di = e.r("u32", "di_at");
    e.ins("mad.lo.u32 " + di + ", " + i + ", " + num(t.cb) + ", " + sd);
    smem_load(d, di);
    const Value q = e.value("q");
    e.set(q, t.zero, t.zero);
    e.mul_add(q, sums[0], d);
    smem_store(xi_at, q);
  }
  if (lower) {
    e.ins("add.s32 " + i + ", " + i + ", 1");
    e.ins("setp.lt.s32 %p_more, " + i + ", %n");
  } else {
    e.ins("sub.s32 " + i + ", " + i + ", 1");
    e.ins("setp.ge.s32 %p_more, " + i + ", 0");
  }
  e.ins("@%p_more bra L_row");
  e.label("L_solved");
  e.ins("bar.sync 0");

  // Thread j writes row j of every column c < w: X(j, c), kept at (c, j), or 0 off its side.
  e.ins("@!%p_row bra L_done");
  e.ins("mov.s32 " + c + ", 0");
  e.label("L_write");
  e.set(v, t.zero, t.zero);
  e.ins(std::string("setp.") + (lower ? "ge" : "le") + ".s32 " + e.r("pred", "p_x") + ", %j, " + c);
  e.ins("@!%p_x bra L_put");
  smem_load(v, tile_at("xo_at", c, "%j"));
  e.label("L_put");
  e.store(v, e.address("dst_at", "%dst", "%ldd", "%j", c));
  e.ins("add.s32 " + c + ", " + c + ", 1");
  e.ins("setp.lt.s32 %p_more, " + c + ", %n");
  e.ins("@%p_more bra L_write");
  e.label("L_done");
  e.ins("ret");

  GeneratedKernel k = helper_kernel(inverse_name(data, lower, unit, width), sm,
                                    ".param .u64 p_src, .param .s64 p_lds, .param .u64 p_dst, .param .s64 p_ldd, "
                                    ".param .s32 p_n",
                                    width, e, ".extern .shared .align 16 .b8 smem[];\n\n");
  k.dynamic_smem = inverse_smem_bytes(data, width);
  return k;
}

}  // namespace ptxblas::gen
