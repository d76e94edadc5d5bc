#include "wgmma_ptx.hpp"

#include <cstdint>

namespace ptxblas::gen {
namespace {

std::string num(long long v) { return std::to_string(v); }

constexpr int kAtomBytes = 1024;  // one swizzle atom: 8 rows of 128 bytes
constexpr int kCopyBytes = 16;    // one cp.async

// One operand's copy: which registers describe it and how its stage is laid out.
struct Side {
  std::string x;         // "a" or "b"
  int extent = 0;        // ML or NL
  bool k_major = false;  // K contiguous in global memory
  std::string mn0, limit, ld, g;
  int stage_bytes = 0;
  int region = 0;        // byte offset of stage 0 in the dynamic shared memory
};

class Loop {
 public:
  Loop(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc)
      : w_(w), c_(c), acc_(acc), threads_(c.threads()) {
    a_ = {"a", c.ml, c.op_a != Op::N, "%m0", "%m", "%lda", "%ga", c.ml * c.u * 2, 0};
    b_ = {"b", c.nl, c.op_b == Op::N, "%n0", "%n", "%ldb", "%gb", c.nl * c.u * 2, c.stages * c.ml * c.u * 2};
  }

  void emit() {
    ins("@%p_skip bra L_epilogue");
    ins("mov.u32 " + r("u32", "smem_base") + ", smem_dyn");
    ins("mov.s32 " + r("s32", "krem") + ", %keff");
    setup(a_);
    setup(b_);
    for (const char* o : {"wa_off", "wb_off", "ra_off", "rb_off"}) ins("mov.u32 " + r("u32", o) + ", 0");
    descriptor_bases();
    // Prologue: the first `ahead` K-steps on their way (zero-filled once K runs out). The loop
    // keeps one step's wgmma in flight while it copies, so a stage is rewritten only two steps
    // after it was read: stages - 2 steps can be copied ahead.
    const int ahead = c_.stages - 2;
    for (int s = 0; s < ahead; ++s) copy_step();
    const std::string steps = r("s32", "ksteps");
    ins("add.s32 " + steps + ", %keff, " + num(c_.u - 1));
    ins("div.s32 " + steps + ", " + steps + ", " + num(c_.u));
    ins("setp.eq.s32 " + r("pred", "p_true") + ", 0, 0");
    w_.label("L_wg_loop");
    // Step t's copies have landed for this thread; the fence makes its generic-proxy writes
    // visible to wgmma's async proxy, and the barrier everyone's. Every warpgroup has also
    // retired its wgmma of step t - 2 (wait_group 1 below), so that step's stage takes step
    // t + ahead's copies.
    ins("cp.async.wait_group " + num(ahead - 1));
    ins("fence.proxy.async.shared::cta");
    ins("bar.sync 0");
    copy_step();
    multiply();
    advance_stage("%ra_off", a_);
    advance_stage("%rb_off", b_);
    ins("sub.s32 " + steps + ", " + steps + ", 1");
    ins("setp.gt.s32 " + r("pred", "p_more") + ", " + steps + ", 0");
    ins("@%p_more bra L_wg_loop");
    ins("wgmma.wait_group.sync.aligned 0");
    ins("cp.async.wait_group 0");
  }

 private:
  std::string r(const std::string& type, const std::string& name) { return w_.reg(type, name); }
  void ins(const std::string& s) { w_.ins(s); }
  int copies(const Side& s) const { return s.extent * c_.u / 8 / threads_; }

  // Rows (K-major: of M/N; M/N-major: of K) between a thread's consecutive copies.
  int copy_rows(const Side& s) const {
    const int rows = threads_ / 8;
    return s.k_major ? rows : rows / (s.extent / 64);
  }

  // The thread's first copy (copy id %thr; copy j is id %thr + j * threads, copy_rows(s) rows
  // further): its 16 bytes' place in the stage, its global address at the first K-step, and what
  // bounds it. Eight consecutive threads copy one 128-byte row (a quarter warp's 16-byte accesses
  // coalesce only within it), which the swizzle spreads over all banks; the legality rules keep
  // every copy of a thread in the same swizzle phase, so copy j differs from copy 0 by constants.
  void setup(const Side& s) {
    const std::string x = s.x;
    const std::string c = r("u32", "cp_c"), row = r("u32", "cp_row"), sw = r("u32", "cp_sw");
    const std::string mn = r("s32", "cp_mn"), kk = r("s32", "cp_k"), t64 = r("s64", "cp_t"), k64 = r("s64", "cp_k64");
    const std::string soff = r("u32", x + "_soff"), kpos = r("s32", x + "_k"), ptr = r("u64", x + "_ptr");
    ins("and.b32 " + c + ", %thr, 7");   // 16-byte chunk within its 128-byte row
    ins("shr.u32 " + row + ", %thr, 3");  // K-major: the M/N row; M/N-major: (K row, atom)
    if (s.k_major) {
      // Row m (M/N) at m * 128, chunk c (K 8c..) at (c ^ m % 8) * 16.
      ins("and.b32 " + sw + ", " + row + ", 7");
      ins("xor.b32 " + sw + ", " + sw + ", " + c);
      ins("shl.b32 " + soff + ", " + row + ", 7");
      ins("mad.lo.u32 " + soff + ", " + sw + ", " + num(kCopyBytes) + ", " + soff);
      ins("add.s32 " + r("s32", x + "_mn") + ", " + row + ", " + s.mn0);
      ins("shl.b32 " + kpos + ", " + c + ", 3");
      ins("add.s32 " + kk + ", " + kpos + ", %kstart");
      ins("cvt.s64.s32 " + t64 + ", %" + x + "_mn");
      ins("mul.lo.s64 " + t64 + ", " + t64 + ", " + s.ld);
      ins("cvt.s64.s32 " + k64 + ", " + kk);
      ins("add.s64 " + t64 + ", " + t64 + ", " + k64);
    } else {
      // K row k of M/N atom a (64 elements): atom (a, k / 8) at (k / 8 * E / 64 + a) * 1024,
      // the row at k % 8 * 128 in it, chunk c at (c ^ k % 8) * 16.
      const std::string atom = r("u32", "cp_atom");
      ins("rem.u32 " + atom + ", " + row + ", " + num(s.extent / 64));
      ins("div.u32 " + kpos + ", " + row + ", " + num(s.extent / 64));
      ins("and.b32 " + sw + ", " + kpos + ", 7");
      ins("shr.u32 " + soff + ", " + kpos + ", 3");
      ins("mad.lo.u32 " + soff + ", " + soff + ", " + num(s.extent / 64) + ", " + atom);
      ins("shl.b32 " + soff + ", " + soff + ", 10");
      ins("mad.lo.u32 " + soff + ", " + sw + ", 128, " + soff);
      ins("xor.b32 " + sw + ", " + sw + ", " + c);
      ins("mad.lo.u32 " + soff + ", " + sw + ", " + num(kCopyBytes) + ", " + soff);
      ins("add.s32 " + kk + ", " + kpos + ", %kstart");
      ins("shl.b32 " + mn + ", " + atom + ", 6");
      ins("mad.lo.u32 " + mn + ", " + c + ", 8, " + mn);
      ins("add.s32 " + mn + ", " + mn + ", " + s.mn0);
      // Bytes of each copy inside the matrix along M/N: 16, a ragged edge's few, or none.
      const std::string nb = r("s32", x + "_nb");
      ins("sub.s32 " + nb + ", " + s.limit + ", " + mn);
      ins("shl.b32 " + nb + ", " + nb + ", 1");
      ins("min.s32 " + nb + ", " + nb + ", " + num(kCopyBytes));
      ins("max.s32 " + nb + ", " + nb + ", 0");
      ins("cvt.s64.s32 " + t64 + ", " + kk);
      ins("mul.lo.s64 " + t64 + ", " + t64 + ", " + s.ld);
      ins("cvt.s64.s32 " + k64 + ", " + mn);
      ins("add.s64 " + t64 + ", " + t64 + ", " + k64);
      ins("mul.lo.s64 " + r("s64", x + "_step") + ", " + s.ld + ", " + num(2LL * c_.u));
    }
    ins("shl.b64 " + t64 + ", " + t64 + ", 1");
    ins("add.s64 " + ptr + ", " + s.g + ", " + t64);
    // Global bytes between consecutive copies: copy_rows(s) rows of the stored matrix.
    ins("mul.lo.s64 " + r("s64", x + "_jstride") + ", " + s.ld + ", " + num(2LL * copy_rows(s)));
  }

  // One K-step's copies of side s into the stage at byte offset `stage` of its region; %krem is
  // what remains of the block's K range from this step on.
  void load_step(const Side& s, const std::string& stage) {
    const std::string x = "%" + s.x;
    const std::string bytes = r("s32", "cp_bytes"), src = r("u64", "cp_src"), dst = r("u32", "cp_dst");
    const std::string has = r("pred", "p_cp_any"), lim = r("s32", "cp_lim"), kb = r("s32", "cp_kb");
    ins("add.u32 " + dst + ", %smem_base, " + stage);
    ins("add.u32 " + dst + ", " + dst + ", " + x + "_soff");
    if (s.region) ins("add.u32 " + dst + ", " + dst + ", " + num(s.region));
    if (s.k_major) {  // 16 bytes of K, fewer at K's end: the same for every copy of the thread
      ins("sub.s32 " + kb + ", %krem, " + x + "_k");
      ins("shl.b32 " + kb + ", " + kb + ", 1");
      ins("min.s32 " + kb + ", " + kb + ", " + num(kCopyBytes));
      ins("max.s32 " + kb + ", " + kb + ", 0");
    }
    const int rows = copy_rows(s);
    for (int j = 0; j < copies(s); ++j) {
      if (s.k_major) {  // none outside M/N: row %x_mn + j * rows below the limit
        ins("sub.s32 " + lim + ", " + s.limit + ", " + num(static_cast<long long>(j) * rows));
        ins("setp.lt.s32 " + has + ", " + x + "_mn, " + lim);
        ins("selp.s32 " + bytes + ", " + kb + ", 0, " + has);
      } else {  // one row of K (%x_k + j * rows) while K lasts: the M/N extent's bytes
        ins("sub.s32 " + lim + ", %krem, " + num(static_cast<long long>(j) * rows));
        ins("setp.lt.s32 " + has + ", " + x + "_k, " + lim);
        ins("selp.s32 " + bytes + ", " + x + "_nb, 0, " + has);
      }
      // A copy of nothing still names a source: the operand's base, never past its end.
      ins("setp.gt.s32 " + has + ", " + bytes + ", 0");
      ins("mad.lo.s64 " + src + ", " + x + "_jstride, " + num(j) + ", " + x + "_ptr");
      ins("selp.b64 " + src + ", " + src + ", " + s.g + ", " + has);
      const long long soff = s.k_major ? static_cast<long long>(j) * rows * 128
                                       : static_cast<long long>(j) * rows / 8 * (s.extent / 64) * kAtomBytes;
      ins("cp.async.cg.shared.global [" + dst + "+" + num(soff) + "], [" + src + "], 16, " + bytes);
    }
    ins("add.s64 " + x + "_ptr, " + x + "_ptr, " + (s.k_major ? num(2LL * c_.u) : x + "_step"));
  }

  // The next K-step's copies of both operands into the write stage, as one group.
  void copy_step() {
    load_step(a_, "%wa_off");
    load_step(b_, "%wb_off");
    ins("cp.async.commit_group");
    advance_stage("%wa_off", a_);
    advance_stage("%wb_off", b_);
    ins("sub.s32 %krem, %krem, " + num(c_.u));
  }

  void advance_stage(const std::string& off, const Side& s) {
    const std::string wrap = r("pred", "p_wrap");
    ins("add.u32 " + off + ", " + off + ", " + num(s.stage_bytes));
    ins("setp.eq.u32 " + wrap + ", " + off + ", " + num(static_cast<long long>(s.stage_bytes) * c_.stages));
    ins("@" + wrap + " mov.u32 " + off + ", 0");
  }

  // Descriptor of side s's stage 0 at this warpgroup's first row (M/N) and K-slice 0: start
  // address >> 4, 128-byte swizzle. K-major: 8-row groups 1024 bytes apart (the stride byte
  // offset; the leading one is unused within a 128-byte row). M/N-major: atoms along M/N 1024
  // bytes apart (leading byte offset), groups of 8 K rows E / 64 atoms apart (stride byte offset).
  void descriptor_bases() {
    const int groups_m = c_.ml / c_.ms;
    ins("shr.u32 " + r("u32", "wg") + ", %thr, 7");
    ins("rem.u32 " + r("u32", "wg_m") + ", %wg, " + num(groups_m));
    ins("div.u32 " + r("u32", "wg_n") + ", %wg, " + num(groups_m));
    for (const Side* s : {&a_, &b_}) {
      const std::string x = s->x, base = r("u32", x + "_dstart"), d = r("b64", x + "_desc0");
      const int rows = s == &a_ ? c_.ms : c_.ns;
      // The warpgroup's first row: rows * 128 bytes in (K-major), rows / 64 atoms in (M/N-major).
      ins("mul.lo.u32 " + base + ", " + (s == &a_ ? "%wg_m" : "%wg_n") + ", " +
          num(s->k_major ? rows * 128 : rows / 64 * kAtomBytes));
      ins("add.u32 " + base + ", " + base + ", %smem_base");
      if (s->region) ins("add.u32 " + base + ", " + base + ", " + num(s->region));
      const std::uint64_t lbo = s->k_major ? 1 : kAtomBytes >> 4;
      const std::uint64_t sbo = s->k_major ? kAtomBytes >> 4 : static_cast<std::uint64_t>(s->extent / 64 * kAtomBytes) >> 4;
      ins("cvt.u64.u32 " + d + ", " + base);
      ins("shr.b64 " + d + ", " + d + ", 4");
      const std::uint64_t fields = (lbo << 16) | (sbo << 32) | (std::uint64_t{1} << 62);
      ins("or.b64 " + d + ", " + d + ", " + num(static_cast<long long>(fields)));
    }
  }

  // Descriptor offset (>> 4) of K-slice s (16 deep) and of the warpgroup's 64-row tile t.
  long long slice_offset(const Side& s, int slice) const {
    return s.k_major ? 2LL * slice : 2LL * slice * (s.extent / 64) * kAtomBytes / 16;
  }
  long long tile_offset(const Side& s, int tile) const {
    return s.k_major ? tile * 64LL * 128 / 16 : tile * static_cast<long long>(kAtomBytes) / 16;
  }

  // The K-step in the read stage: per 16-deep slice, one m64nNk16 per 64-row tile of the
  // warpgroup, all issued before one wait.
  void multiply() {
    const std::string da = r("b64", "desc_a"), db = r("b64", "desc_b"), t = r("b64", "desc_t");
    const std::string off = r("u64", "desc_off"), dbs = r("b64", "desc_b_s");
    ins("cvt.u64.u32 " + off + ", %ra_off");
    ins("shr.b64 " + off + ", " + off + ", 4");
    ins("add.s64 " + da + ", %a_desc0, " + off);
    ins("cvt.u64.u32 " + off + ", %rb_off");
    ins("shr.b64 " + off + ", " + off + ", 4");
    ins("add.s64 " + db + ", %b_desc0, " + off);
    ins("wgmma.fence.sync.aligned");
    const std::string kind = c_.data == DataType::BF16 ? "bf16" : "f16";
    const std::string shape = "m64n" + num(c_.ns) + "k16";
    const int ta = a_.k_major ? 0 : 1, tb = b_.k_major ? 0 : 1;
    for (int s = 0; s < c_.u / 16; ++s) {
      ins("add.s64 " + dbs + ", " + db + ", " + num(slice_offset(b_, s)));
      for (int tile = 0; tile < c_.ms / 64; ++tile) {
        ins("add.s64 " + t + ", " + da + ", " + num(slice_offset(a_, s) + tile_offset(a_, tile)));
        std::string d;
        for (int jb = 0; jb < c_.ns / 8; ++jb)
          for (const auto& [i, j] : {std::pair{0, 0}, {0, 1}, {1, 0}, {1, 1}})
            d += (d.empty() ? "" : ", ") + acc_(2 * tile + i, 2 * jb + j);
        ins("wgmma.mma_async.sync.aligned." + shape + ".f32." + kind + "." + kind + " {" + d + "}, " + t +
 ", " + dbs + ", %p_true, 1, 1, " + num(ta) + ", " + num(tb));
      }
    }
    ins("wgmma.commit_group.sync.aligned");
    ins("wgmma.wait_group.sync.aligned 1");
  }

  PtxWriter& w_;
  const KernelConfig& c_;
  const std::function<std::string(int, int)>& acc_;
  int threads_;
  Side a_, b_;
};

}  // namespace

std::string wgmma_shared_decl() { return ".extern .shared .align 1024 .b8 smem_dyn[];\n\n"; }

void emit_wgmma_thread_indices(PtxWriter& w, const KernelConfig& c) {
  const int groups_m = c.ml / c.ms;
  w.ins("shr.u32 " + w.reg("u32", "warp") + ", %thr, 5");
  w.ins("and.b32 " + w.reg("u32", "lane") + ", %thr, 31");
  w.ins("shr.u32 " + w.reg("u32", "g") + ", %lane, 2");
  w.ins("and.b32 " + w.reg("u32", "q") + ", %lane, 3");
  w.ins("shr.u32 " + w.reg("u32", "wgi") + ", %warp, 2");
  w.ins("and.b32 " + w.reg("u32", "w4") + ", %warp, 3");
  w.ins("rem.u32 " + w.reg("u32", "wm") + ", %wgi, " + num(groups_m));
  w.ins("div.u32 " + w.reg("u32", "wn") + ", %wgi, " + num(groups_m));
  w.ins("mad.lo.s32 " + w.reg("s32", "rowbase") + ", %wm, " + num(c.ms) + ", %m0");
  w.ins("mad.lo.s32 %rowbase, %w4, 16, %rowbase");
  w.ins("add.s32 %rowbase, %rowbase, %g");
  w.ins("mad.lo.s32 " + w.reg("s32", "colbase") + ", %wn, " + num(c.ns) + ", %n0");
  w.ins("mad.lo.s32 %colbase, %q, 2, %colbase");
}

void emit_wgmma_main_loop(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc) {
  Loop(w, c, acc).emit();
}

}  // namespace ptxblas::gen
