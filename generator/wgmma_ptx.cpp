#include "wgmma_ptx.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace ptxblas::gen {
namespace {

std::string num(long long v) { return std::to_string(v); }

constexpr int kAtomBytes = 1024;  // one swizzle atom: 8 rows of 128 bytes
constexpr int kBoxRows = 64;      // an M/N-major operand's box: 64 elements of M/N x 64 rows of K

// One operand: its tensor map, extent and layout, and where its stages lie.
struct Side {
  std::string x;         // "a" or "b"
  int extent = 0;        // ML or NL
  bool k_major = false;  // K contiguous in global memory
  std::string mn0;       // the block's first row (A) or column (B)
  int stage_bytes = 0;
  int region = 0;        // byte offset of stage 0 in the dynamic shared memory
};

class Loop {
 public:
  Loop(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc,
       const std::function<void()>& after_copies)
      : w_(w),
        c_(c),
        acc_(acc),
        after_copies_(after_copies),
        consumers_((c.ml / c.ms) * (c.nl / c.ns) * 128),
        multi_(c.batch_tiles > 1) {
    a_ = {"a", c.ml, c.op_a != Op::N, "%m0", c.ml * c.u * 2, 0};
    b_ = {"b", c.nl, c.op_b == Op::N, "%n0", c.nl * c.u * 2, c.stages * c.ml * c.u * 2};
    bars_ = wgmma_barrier_offset(c);
  }

  // Shared memory: the stages (batch_tiles > 1: then the tensor-map staging), then `stages` "full"
  // mbarriers (the producer's copies landed) and `stages` "empty" ones (every consumer warp has
  // retired its wgmma reading the stage).
  void emit() {
    ins("setp.ge.u32 " + r("pred", "p_prod") + ", %thr, " + num(consumers_));
    ins("mov.u32 " + r("u32", "smem_base") + ", smem_dyn");
    ins("add.u32 " + r("u32", "bars") + ", %smem_base, " + num(bars_));
    ins("setp.ne.u32 " + r("pred", "p_not_t0") + ", %thr, 0");
    ins("@%p_not_t0 bra L_wg_inited");
    for (int s = 0; s < c_.stages; ++s) {
      ins("mbarrier.init.shared::cta.b64 [%bars+" + num(8 * s) + "], 1");
      ins("mbarrier.init.shared::cta.b64 [%bars+" + num(8 * (c_.stages + s)) + "], " + num(consumers_ / 32));
    }
    // The epilogue's load of C (emit_wgmma_tma_store): each warpgroup's leader arrives once.
    ins("mbarrier.init.shared::cta.b64 [%bars+" + num(16 * c_.stages) + "], " + num(consumers_ / 128));
    ins("fence.mbarrier_init.release.cluster");
    w_.label("L_wg_inited");
    ins("bar.sync 0");
    if (multi_) {  // this block's entries: %batch (its first) on, at most batch_tiles of them
      const std::string count = r("s32", "bt_count");
      ins("ld.param.s32 " + count + ", [p_entries]");
      ins("sub.s32 " + count + ", " + count + ", %batch");
      ins("min.s32 " + count + ", " + count + ", " + num(c_.batch_tiles));
      ins("mov.u32 " + r("u32", "wg_tile") + ", 0");  // the entry the consumers are at
    }
    // A block without a product (alpha == 0, or no K) skips the loop only: its epilogue may still
    // load C through the mbarrier initialised above.
    ins("@%p_skip bra L_wg_skip");
    const std::string steps = r("s32", "ksteps");
    ins("add.s32 " + steps + ", %keff, " + num(c_.u - 1));
    ins("div.s32 " + steps + ", " + steps + ", " + num(c_.u));
    ins("@%p_prod bra L_wg_producer");
    consume();
    ins("bra L_wg_done");
    w_.label("L_wg_producer");
    produce();
    w_.label("L_wg_skip");
    ins("@%p_prod ret");
    ins("bra L_epilogue");
    w_.label("L_wg_done");
  }

 private:
  std::string r(const std::string& type, const std::string& name) { return w_.reg(type, name); }
  void ins(const std::string& s) { w_.ins(s); }

  // %stage_reg's mbarrier of the given kind (0 full, 1 empty) into `addr`.
  void barrier(const std::string& addr, const std::string& stage, int kind) {
    ins("mad.lo.u32 " + addr + ", " + stage + ", 8, %bars");
    if (kind) ins("add.u32 " + addr + ", " + addr + ", " + num(8 * c_.stages));
  }

  // Spin until the mbarrier at `addr` has completed the phase of parity `parity`.
  void wait(const std::string& addr, const std::string& parity, const std::string& label) {
    const std::string done = r("pred", "p_phase_done");
    w_.label(label);
    ins("mbarrier.try_wait.parity.shared::cta.b64 " + done + ", [" + addr + "], " + parity);
    ins("@!" + done + " bra " + label);
  }

  // Lane 0 of the producer warp: for each K-step, wait until its stage is free, announce the
  // bytes, and copy A's and B's tiles there with the tensor engine (zeros outside the matrix).
  // A fresh mbarrier counts its "previous" phase (parity 1) as complete, so the first pass over
  // the stages does not wait.
  // Lane 0 issues the copies; where a hook is given (after_copies), every lane runs it, lane 0
  // once its copies are out, the others at once (no warp barrier: it cost 1-3% on deep calls).
  void produce() {
    ins("setp.ne.u32 " + r("pred", "p_not_lane0") + ", %lane, 0");
    ins("@%p_not_lane0 bra " + std::string(after_copies_ ? "L_wg_copies_issued" : "L_wg_skip"));
    for (const Side* s : {&a_, &b_}) {
      const std::string t = r("u64", s->x + "_tmap");
      ins("mov.b64 " + t + ", p_tmap_" + s->x);
      ins("cvta.param.u64 " + t + ", " + t);
    }
    if (c_.batched) ins("mov.b32 " + r("s32", "tma_z") + ", %batch");
    const std::string stage = r("u32", "p_stage"), phase = r("u32", "p_phase"), j = r("s32", "p_j");
    const std::string kc = r("s32", "p_kc"), full = r("u32", "p_full"), empty = r("u32", "p_empty");
    const std::string par = r("u32", "p_par");
    ins("mov.u32 " + stage + ", 0");
    ins("mov.u32 " + phase + ", 0");
    // batch_tiles > 1: the stages and their phases run on from one entry into the next.
    if (multi_) w_.label("L_wg_produce_entry");
    ins("mov.s32 " + j + ", 0");
    ins("mov.s32 " + kc + ", %kstart");
    w_.label("L_wg_produce");
    barrier(empty, stage, 1);
    ins("xor.b32 " + par + ", " + phase + ", 1");
    wait(empty, par, "L_wg_wait_empty");
    barrier(full, stage, 0);
    ins("mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + full + "], " + num((c_.ml + c_.nl) * c_.u * 2));
    copy(a_, stage, kc, full);
    copy(b_, stage, kc, full);
    ins("add.s32 " + kc + ", " + kc + ", " + num(c_.u));
    next_step(j, stage, phase, "p", "L_wg_produce");
    if (multi_) {
      const std::string more = r("pred", "p_more_entries"), last = r("s32", "p_last_z");
      ins("ld.param.s32 " + last + ", [p_entries]");
      ins("add.s32 %tma_z, %tma_z, 1");
      ins("setp.lt.s32 " + more + ", %tma_z, " + last);
      ins("sub.s32 " + last + ", %tma_z, %batch");
      ins("setp.lt.and.s32 " + more + ", " + last + ", " + num(c_.batch_tiles) + ", " + more);
      ins("@" + more + " bra L_wg_produce_entry");
    }
    if (!after_copies_) return;
    w_.label("L_wg_copies_issued");
    after_copies_();
  }

  // Step `count` done: count it, move to the next stage (back to 0 after the last, where the
  // phase parity to wait for flips), and loop to `label` while K-steps remain.
  void next_step(const std::string& count, const std::string& stage, const std::string& phase,
                 const std::string& prefix, const std::string& label) {
    const std::string wrap = r("pred", prefix + "_wrap"), more = r("pred", prefix + "_more");
    ins("add.s32 " + count + ", " + count + ", 1");
    ins("add.u32 " + stage + ", " + stage + ", 1");
    ins("setp.eq.u32 " + wrap + ", " + stage + ", " + num(c_.stages));
    ins("@" + wrap + " mov.u32 " + stage + ", 0");
    ins("@" + wrap + " xor.b32 " + phase + ", " + phase + ", 1");
    ins("setp.lt.s32 " + more + ", " + count + ", %ksteps");
    ins("@" + more + " bra " + label);
  }

  // Side s's tile of the K-step at K offset `kc` into stage `stage`. K-major: one box of 64 K x
  // E rows, 128-byte rows swizzled in 1 KiB atoms. M/N-major: E / 64 boxes of 64 M/N x 64 K,
  // each 8 KiB: atom (M/N atom a, 8-row group g of K) at a * 8 KiB + g * 1 KiB.
  void copy(const Side& s, const std::string& stage, const std::string& kc, const std::string& full) {
    const std::string dst = r("u32", "tma_dst"), mn = r("s32", "tma_mn");
    ins("mad.lo.u32 " + dst + ", " + stage + ", " + num(s.stage_bytes) + ", %smem_base");
    if (s.region) ins("add.u32 " + dst + ", " + dst + ", " + num(s.region));
    // Batched: 3-D tensor maps, the batch entry (block z) the third coordinate.
    const std::string op = std::string("cp.async.bulk.tensor.") + (c_.batched ? "3d" : "2d") +
                           ".shared::cluster.global.tile.mbarrier::complete_tx::bytes [";
    const std::string z = c_.batched ? ", %tma_z" : "";
    if (s.k_major) {
      ins(op + dst + "], [%" + s.x + "_tmap, {" + kc + ", " + s.mn0 + z + "}], [" + full + "]");
      return;
    }
    for (int a = 0; a < s.extent / 64; ++a) {
      ins("add.s32 " + mn + ", " + s.mn0 + ", " + num(64 * a));
      ins(op + dst + "+" + num(a * kBoxRows * 128) + "], [%" + s.x + "_tmap, {" + mn + ", " + kc + z + "}], [" +
          full + "]");
    }
  }

  // Every consumer warp: wait for the step's stage, issue its wgmma, and once the previous
  // step's wgmma has retired (wait_group 1) free that step's stage for the producer.
  void consume() {
    ins("setp.eq.u32 " + r("pred", "p_lane0") + ", %lane, 0");
    descriptor_bases();
    const std::string stage = r("u32", "c_stage"), phase = r("u32", "c_phase"), t = r("s32", "c_t");
    const std::string full = r("u32", "c_full"), prev = r("u32", "c_prev_empty"), rel = r("pred", "p_release");
    ins("mov.u32 " + stage + ", 0");
    ins("mov.u32 " + phase + ", 0");
    ins("mov.u32 " + prev + ", 0");
    ins("setp.eq.s32 " + r("pred", "p_true") + ", 0, 0");
    // batch_tiles > 1: each entry starts here (emit_wgmma_next_entry), its first wgmma not adding
    // to the accumulators (scale-d false) instead of their being zeroed.
    if (multi_) {
      w_.label("L_wg_entry");
      ins("setp.ne.s32 " + r("pred", "p_acc") + ", 0, 0");
    }
    ins("mov.s32 " + t + ", 0");
    w_.label("L_wg_loop");
    barrier(full, stage, 0);
    wait(full, phase, "L_wg_wait_full");
    multiply(stage);
    ins("setp.gt.and.s32 " + rel + ", " + t + ", 0, %p_lane0");
    ins("@" + rel + " mbarrier.arrive.shared::cta.b64 _, [" + prev + "]");
    barrier(prev, stage, 1);
    next_step(t, stage, phase, "c", "L_wg_loop");
    ins("wgmma.wait_group.sync.aligned 0");
    // The last K-step's stage goes back to the producer, who may be into the next entry already.
    if (multi_) ins("@%p_lane0 mbarrier.arrive.shared::cta.b64 _, [" + prev + "]");
  }

  // Descriptor of side s's stage 0 at this warpgroup's first row (M/N) and K-slice 0: start
  // address >> 4, 128-byte swizzle. K-major: 8-row groups 1 KiB apart (the stride byte offset;
  // the leading one is unused within a 128-byte row). M/N-major: 64-element atoms of M/N one
  // 8 KiB box apart (leading byte offset), groups of 8 K rows 1 KiB apart (stride byte offset).
  void descriptor_bases() {
    const int groups_m = c_.ml / c_.ms;
    ins("shr.u32 " + r("u32", "wg") + ", %thr, 7");
    ins("rem.u32 " + r("u32", "wg_m") + ", %wg, " + num(groups_m));
    ins("div.u32 " + r("u32", "wg_n") + ", %wg, " + num(groups_m));
    for (const Side* s : {&a_, &b_}) {
      const std::string x = s->x, base = r("u32", x + "_dstart"), d = r("b64", x + "_desc0");
      const int rows = s == &a_ ? c_.ms : c_.ns;
      ins("mul.lo.u32 " + base + ", " + (s == &a_ ? "%wg_m" : "%wg_n") + ", " + num(tile_bytes(*s) * (rows / 64)));
      ins("add.u32 " + base + ", " + base + ", %smem_base");
      if (s->region) ins("add.u32 " + base + ", " + base + ", " + num(s->region));
      const std::uint64_t lbo = s->k_major ? 1 : (kBoxRows * 128) >> 4;
      const std::uint64_t sbo = kAtomBytes >> 4;
      ins("cvt.u64.u32 " + d + ", " + base);
      ins("shr.b64 " + d + ", " + d + ", 4");
      const std::uint64_t fields = (lbo << 16) | (sbo << 32) | (std::uint64_t{1} << 62);
      ins("or.b64 " + d + ", " + d + ", " + num(static_cast<long long>(fields)));
    }
  }

  // Bytes between consecutive 64-row tiles of side s (M/N), and descriptor offsets (>> 4) of
  // K-slice `slice` (16 deep) and of the warpgroup's 64-row tile `tile`.
  static int tile_bytes(const Side& s) { return s.k_major ? 64 * 128 : kBoxRows * 128; }
  static long long slice_offset(const Side& s, int slice) { return s.k_major ? 2LL * slice : 2LL * slice * kAtomBytes / 16; }
  static long long tile_offset(const Side& s, int tile) { return static_cast<long long>(tile) * tile_bytes(s) / 16; }

  // The K-step in stage `stage`: per 16-deep slice, one m64nNk16 per 64-row tile of the
  // warpgroup, all issued before one commit; then wait until only this step's group is pending.
  void multiply(const std::string& stage) {
    const std::string da = r("b64", "desc_a"), db = r("b64", "desc_b"), t = r("b64", "desc_t");
    const std::string off = r("u32", "desc_off"), off64 = r("u64", "desc_off64"), dbs = r("b64", "desc_b_s");
    for (const Side* s : {&a_, &b_}) {
      ins("mul.lo.u32 " + off + ", " + stage + ", " + num(s->stage_bytes / 16));
      ins("cvt.u64.u32 " + off64 + ", " + off);
      ins("add.s64 " + (s == &a_ ? da : db) + ", %" + s->x + "_desc0, " + off64);
    }
    ins("wgmma.fence.sync.aligned");
    const std::string kind = c_.data == DataType::BF16 ? "bf16" : "f16";
    const std::string shape = "m64n" + num(c_.ns) + "k16";
    const int ta = a_.k_major ? 0 : 1, tb = b_.k_major ? 0 : 1;
    for (int s = 0; s < c_.u / 16; ++s) {
      const std::string accumulate = multi_ && s == 0 ? "%p_acc" : "%p_true";
      ins("add.s64 " + dbs + ", " + db + ", " + num(slice_offset(b_, s)));
      for (int tile = 0; tile < c_.ms / 64; ++tile) {
        ins("add.s64 " + t + ", " + da + ", " + num(slice_offset(a_, s) + tile_offset(a_, tile)));
        std::string d;
        for (int jb = 0; jb < c_.ns / 8; ++jb)
          for (const auto& [i, j] : {std::pair{0, 0}, {0, 1}, {1, 0}, {1, 1}})
            d += (d.empty() ? "" : ", ") + acc_(2 * tile + i, 2 * jb + j);
        ins("wgmma.mma_async.sync.aligned." + shape + ".f32." + kind + "." + kind + " {" + d + "}, " + t +
            ", " + dbs + ", " + accumulate + ", 1, 1, " + num(ta) + ", " + num(tb));
      }
    }
    if (multi_) ins("setp.eq.s32 %p_acc, 0, 0");
    ins("wgmma.commit_group.sync.aligned");
    ins("wgmma.wait_group.sync.aligned 1");
  }

  PtxWriter& w_;
  const KernelConfig& c_;
  const std::function<std::string(int, int)>& acc_;
  const std::function<void()>& after_copies_;
  int consumers_;
  bool multi_;  // batch_tiles > 1
  int bars_ = 0;
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

void emit_wgmma_main_loop(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc,
                          const std::function<void()>& after_copies) {
  Loop(w, c, acc, after_copies).emit();
}

namespace {
// C's base 16-byte aligned and ldc a multiple of 8 (every column of C starts 16-byte aligned),
// and-ed into `pred`, or set afresh when `first`; `bits` is scratch.
void c_aligned(PtxWriter& w, const std::string& pred, const std::string& bits, bool first) {
  w.ins("mov.b64 " + bits + ", %gc");
  w.ins("and.b64 " + bits + ", " + bits + ", 15");
  w.ins(first ? "setp.eq.u64 " + pred + ", " + bits + ", 0" : "setp.eq.and.u64 " + pred + ", " + bits + ", 0, " + pred);
  w.ins("and.b64 " + bits + ", %ldc, 7");
  w.ins("setp.eq.and.u64 " + pred + ", " + bits + ", 0, " + pred);
}

// Whether the block's tile takes the staged store: wholly inside C, and C aligned as above (so
// every column of the tile starts 16-byte aligned).
std::string staged_store_fits(PtxWriter& w, const KernelConfig& c) {
  const std::string fit = w.reg("pred", "e_fit"), t32 = w.reg("s32", "e_t");
  w.ins("add.s32 " + t32 + ", %m0, " + num(c.ml));
  w.ins("setp.le.s32 " + fit + ", " + t32 + ", %m");
  w.ins("add.s32 " + t32 + ", %n0, " + num(c.nl));
  w.ins("setp.le.and.s32 " + fit + ", " + t32 + ", %n, " + fit);
  c_aligned(w, fit, w.reg("b64", "e_gbits"), false);
  return fit;
}
}  // namespace

void emit_wgmma_c_prefetch(PtxWriter& w, const KernelConfig& c, const std::string& skip) {
  const std::string fit = staged_store_fits(w, c);
  w.ins("@" + skip + " bra L_wg_c_asked");
  w.ins("@!" + fit + " bra L_wg_c_asked");
  // Only where the whole K range fits in the stages: the copies then all go out at once, and C
  // lands while they do. Past that it cost deep calls up to 5% (perf notes §129).
  const std::string deep = w.reg("pred", "pf_deep");
  w.ins("setp.gt.s32 " + deep + ", %ksteps, " + num(c.stages));
  w.ins("@" + deep + " bra L_wg_c_asked");
  // Lane l asks columns l, l + 32, ... of the tile: ml elements from row m0 each.
  const std::string j = w.reg("s32", "pf_j"), t = w.reg("s64", "pf_t"), addr = w.reg("u64", "pf_addr");
  const std::string more = w.reg("pred", "pf_more");
  w.ins("mov.s32 " + j + ", %lane");
  w.label("L_wg_c_ask");
  w.ins("add.s32 " + w.reg("s32", "pf_col") + ", %n0, " + j);
  w.ins("cvt.s64.s32 " + t + ", %pf_col");
  w.ins("mul.lo.s64 " + t + ", " + t + ", %ldc");
  w.ins("cvt.s64.s32 " + w.reg("s64", "pf_row") + ", %m0");
  w.ins("add.s64 " + t + ", " + t + ", %pf_row");
  w.ins("shl.b64 " + t + ", " + t + ", 1");
  w.ins("add.s64 " + addr + ", %gc, " + t);
  w.ins("cp.async.bulk.prefetch.L2.global [" + addr + "], " + num(2 * c.ml));
  w.ins("add.s32 " + j + ", " + j + ", 32");
  w.ins("setp.lt.s32 " + more + ", " + j + ", " + num(c.nl));
  w.ins("@" + more + " bra L_wg_c_ask");
  w.label("L_wg_c_asked");
}

void emit_wgmma_tma_store(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc,
                          const std::string& alpha, const std::string& beta, const std::string& beta_zero,
                          const std::function<void(const std::string&, const std::string&)>& block_tile) {
  auto r = [&](const std::string& type, const std::string& name) { return w.reg(type, name); };
  auto ins = [&](const std::string& s) { w.ins(s); };
  const int consumers = c.threads() - 32, box_bytes = 128 * c.ns, boxes = c.ms / 64;
  const int wg_bytes = box_bytes * boxes, staging = wgmma_tma_staging_offset(c);
  const bool multi = c.batch_tiles > 1;
  // The host made p_tmap_c exactly when this holds (kernel_abi.hpp).
  const std::string ok = r("pred", "t_ok"), bits = r("b64", "t_bits");
  c_aligned(w, ok, bits, true);
  if (c.batched) {
    const std::string sc = r("s64", "t_sc"), ext = r("s64", "t_ext");
    ins("ld.param.s64 " + sc + ", [p_stride_c]");
    ins("and.b64 " + bits + ", " + sc + ", 7");
    ins("setp.eq.and.u64 " + ok + ", " + bits + ", 0, " + ok);
    ins("cvt.s64.s32 " + ext + ", %n");
    ins("mul.lo.s64 " + ext + ", " + ext + ", %ldc");
    ins("setp.ge.and.s64 " + ok + ", " + sc + ", " + ext + ", " + ok);
  }
  // The engine writes whole 16-byte pieces of a column: past row m too where m is not a multiple
  // of 8 (the GPU tests caught it), so there only blocks whose rows all lie inside C take it.
  const std::string rows_ok = r("pred", "t_rows_ok"), t32 = r("s32", "t_m");
  ins("and.b32 " + t32 + ", %m, 7");
  ins("setp.eq.s32 " + rows_ok + ", " + t32 + ", 0");
  ins("add.s32 " + t32 + ", %m0, " + num(c.ml));
  ins("setp.le.or.s32 " + rows_ok + ", " + t32 + ", %m, " + rows_ok);
  ins("and.pred " + ok + ", " + ok + ", " + rows_ok);
  ins("@!" + ok + " bra L_wg_tma_skip");
  // Every consumer's wgmma has retired (each waited for its own), so the stages are free; with
  // batch_tiles > 1 the staging is apart from them, and free once the leaders' stores of the last
  // entry have read it (a thread waits for its own bulk groups: the others' wait is no wait).
  if (multi) ins("cp.async.bulk.wait_group.read 0");
  ins("bar.sync 1, " + num(consumers));
  const std::string t = r("u32", "t_u"), map = r("u64", "t_map"), row = r("s32", "t_row"), col = r("s32", "t_col");
  const std::string box = r("u32", "t_box"), thr = r("u32", "t_thr");
  // The leader, thread 0 of each warpgroup, finds its boxes and its tile's first row and column
  // afresh (block_tile, %tid.x): values kept live through the staging cost 64x128 two registers,
  // a block per SM.
  const auto leader_place = [&] {
    const std::string bx = r("u32", "t_bx"), by = r("u32", "t_by");
    ins("mov.b64 " + map + ", p_tmap_c");
    ins("cvta.param.u64 " + map + ", " + map);
    ins("mov.u32 " + box + ", smem_dyn");
    if (staging) ins("add.u32 " + box + ", " + box + ", " + num(staging));
    ins("mad.lo.u32 " + box + ", " + thr + ", " + num(wg_bytes / 128) + ", " + box);
    block_tile(bx, by);
    ins("shr.u32 " + t + ", " + thr + ", 7");
    ins("rem.u32 " + t + ", " + t + ", " + num(c.ml / c.ms));
    ins("mul.lo.s32 " + row + ", " + t + ", " + num(c.ms));
    ins("mad.lo.s32 " + row + ", " + bx + ", " + num(c.ml) + ", " + row);
    ins("shr.u32 " + t + ", " + thr + ", 7");
    ins("div.u32 " + t + ", " + t + ", " + num(c.ml / c.ms));
    ins("mul.lo.s32 " + col + ", " + t + ", " + num(c.ns));
    ins("mad.lo.s32 " + col + ", " + by + ", " + num(c.nl) + ", " + col);
    if (multi)
      ins("add.u32 " + t + ", %batch, %wg_tile");
    else if (c.batched)
      ins("mov.u32 " + t + ", %ctaid.z");
  };
  const std::string z = c.batched ? ", " + t : "", dims = c.batched ? "3d" : "2d";
  // Each box of the leader's warpgroup: `op` + "{row, col[, entry]}], [box]" + `tail`.
  const auto each_box = [&](const std::string& op, const std::string& tail) {
    for (int tile = 0; tile < boxes; ++tile) {
      if (tile) ins("add.s32 " + row + ", " + row + ", 64");
      ins(op + row + ", " + col + z + "}]" + tail + (tile ? "+" + num(tile * box_bytes) : "") + "]");
    }
  };
  const std::string lead = r("pred", "t_lead");
  ins("mov.u32 " + thr + ", %tid.x");
  ins("and.b32 " + t + ", " + thr + ", 127");
  ins("setp.eq.u32 " + lead + ", " + t + ", 0");
  // beta != 0: the leader asks its warpgroup's boxes of C into the staging (one mbarrier after
  // the stages' ones, whose phase 0 completes once every leader's bytes landed); the warps read
  // them back in the accumulators' layout with ldmatrix .trans, the inverse of the stores below.
  const std::string cbar = "smem_dyn+" + num(wgmma_barrier_offset(c) + 16 * c.stages);  // no register
  ins("@" + beta_zero + " bra L_wg_tma_c_read");
  ins("@!" + lead + " bra L_wg_tma_c_asked");
  leader_place();
  ins("mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + cbar + "], " + num(wg_bytes));
  // The box operand goes where the load's destination is: "[box]" first, then the map.
  for (int tile = 0; tile < boxes; ++tile) {
    if (tile) ins("add.s32 " + row + ", " + row + ", 64");
    ins("cp.async.bulk.tensor." + dims + ".shared::cluster.global.tile.mbarrier::complete_tx::bytes [" + box +
        (tile ? "+" + num(tile * box_bytes) : "") + "], [" + map + ", {" + row + ", " + col + z + "}], [" + cbar + "]");
  }
  w.label("L_wg_tma_c_asked");
  const std::string landed = r("pred", "t_c_landed");
  std::string parity = "0";  // batch_tiles > 1: the block's e-th load of C completes phase e
  if (multi) {
    parity = r("u32", "t_c_parity");
    ins("and.b32 " + parity + ", %wg_tile, 1");
  }
  w.label("L_wg_tma_c_wait");
  ins("mbarrier.try_wait.parity.shared::cta.b64 " + landed + ", [" + cbar + "], " + parity);
  ins("@!" + landed + " bra L_wg_tma_c_wait");
  w.label("L_wg_tma_c_read");
  // Warpgroup (wm, wn) stages its tile as ms / 64 boxes of 64 rows x ns columns, one 128-byte
  // line a column, 16-byte chunk h (rows 8h..) of line j at chunk h ^ (j % 8): the 128-byte
  // swizzle the map names. stmatrix .trans writes an 8 x 8 fragment of 16-bit elements as 8
  // columns of 8 rows; lane l gives the address of column l % 8 of fragment l / 8, fragments
  // (row half, column octet) = (0, o), (1, o), (0, o + 1), (1, o + 1).
  // Registers: every accumulator is live here, so the set-up keeps one address and no more.
  const std::string adr = r("u32", "t_adr");
  ins("and.b32 " + t + ", %lane, 7");  // the line within the octet, also its swizzle
  ins("shr.u32 " + adr + ", %lane, 3");
  ins("and.b32 " + adr + ", " + adr + ", 1");
  ins("mad.lo.u32 " + adr + ", %w4, 2, " + adr);
  ins("xor.b32 " + adr + ", " + adr + ", " + t);  // the chunk, swizzled
  ins("shl.b32 " + adr + ", " + adr + ", 4");
  ins("mad.lo.u32 " + adr + ", " + t + ", 128, " + adr);
  ins("shr.u32 " + t + ", %lane, 4");  // the second octet of the pair
  ins("mad.lo.u32 " + adr + ", " + t + ", 1024, " + adr);
  ins("mad.lo.u32 " + adr + ", %wgi, " + num(wg_bytes) + ", " + adr);
  ins("mov.u32 " + t + ", smem_dyn");
  if (staging) ins("add.u32 " + t + ", " + t + ", " + num(staging));
  ins("add.u32 " + adr + ", " + adr + ", " + t);
  std::string h2[4];
  for (int e = 0; e < 4; ++e) h2[e] = r("b32", "t_h" + num(e));
  const bool bf = c.data == DataType::BF16;
  const std::string kind = bf ? "bf16" : "f16", cl = r("f32", "t_cl"), ch = r("f32", "t_ch");
  // alpha * acc (+ beta * C, `with_c`) rounded into the staging, as the staged store computes it.
  const auto stage = [&](bool with_c) {
    for (int tile = 0; tile < boxes; ++tile)
      for (int o = 0; o < c.ns / 8; o += 2) {
        const std::string at = "[" + adr + "+" + num(tile * box_bytes + o * 1024) + "]";
        const std::string regs = "{" + h2[0] + ", " + h2[1] + ", " + h2[2] + ", " + h2[3] + "}";
        if (with_c) ins("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 " + regs + ", " + at);
        for (int e = 0; e < 4; ++e) {
          const std::string lo = acc(2 * tile + e % 2, 2 * (o + e / 2)), hi = acc(2 * tile + e % 2, 2 * (o + e / 2) + 1);
          // In place: this path ends in ret, or goes on to the next entry, whose first wgmma (or,
          // without a product, emit_wgmma_next_entry) overwrites them.
          ins("mul.rn.f32 " + lo + ", " + alpha + ", " + lo);
          ins("mul.rn.f32 " + hi + ", " + alpha + ", " + hi);
          if (with_c) {
            if (bf) {  // bf16 -> f32: the 16 bits on top
              ins("shl.b32 " + cl + ", " + h2[e] + ", 16");
              ins("and.b32 " + ch + ", " + h2[e] + ", 0xffff0000");
            } else {
              const std::string h0 = r("b16", "t_c16l"), h1 = r("b16", "t_c16h");
              ins("mov.b32 {" + h0 + ", " + h1 + "}, " + h2[e]);
              ins("cvt.f32.f16 " + cl + ", " + h0);
              ins("cvt.f32.f16 " + ch + ", " + h1);
            }
            ins("fma.rn.f32 " + lo + ", " + beta + ", " + cl + ", " + lo);
            ins("fma.rn.f32 " + hi + ", " + beta + ", " + ch + ", " + hi);
          }
          ins("cvt.rn." + kind + "x2.f32 " + h2[e] + ", " + hi + ", " + lo);  // the first operand on top
        }
        ins("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 " + at + ", " + regs);
      }
  };
  ins("@" + beta_zero + " bra L_wg_tma_alpha_only");
  stage(true);
  ins("bra L_wg_tma_staged");
  w.label("L_wg_tma_alpha_only");
  stage(false);
  w.label("L_wg_tma_staged");
  // The tensor engine reads shared memory through the async proxy: make the writes visible to it.
  ins("fence.proxy.async.shared::cta");
  ins("bar.sync 1, " + num(consumers));
  ins("mov.u32 " + thr + ", %tid.x");
  ins("and.b32 " + t + ", " + thr + ", 127");
  ins("setp.ne.u32 " + r("pred", "t_not_lead") + ", " + t + ", 0");
  ins(multi ? "@%t_not_lead bra L_wg_next_entry" : "@%t_not_lead ret");
  leader_place();
  each_box("cp.async.bulk.tensor." + dims + ".global.shared::cta.bulk_group [" + map + ", {", ", [" + box);
  ins("cp.async.bulk.commit_group");
  // The block's shared memory must outlive the engine's reads of it (batch_tiles > 1: the next
  // entry's staging waits for them, and the block's end, emit_wgmma_next_entry).
  if (multi) {
    ins("bra L_wg_next_entry");
  } else {
    ins("cp.async.bulk.wait_group.read 0");
    ins("ret");
  }
  w.label("L_wg_tma_skip");
}

void emit_wgmma_staged_store(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc,
                             const std::string& alpha, const std::string& beta, const std::string& beta_zero) {
  auto r = [&](const std::string& type, const std::string& name) { return w.reg(type, name); };
  auto ins = [&](const std::string& s) { w.ins(s); };
  const int stride = wgmma_staging_column_bytes(c);  // bytes between staged columns
  const int chunk = wgmma_staging_chunk_bytes(c);     // bytes between a column's 8-row chunks
  const int rows = 16 * (c.ms / 64);                  // a warp's rows of C
  const int lanes_per_col = rows / 8, cols_per_pass = 32 / lanes_per_col;
  const int consumers = c.threads() - 32;
  const std::string fit = staged_store_fits(w, c), t64 = r("s64", "e_t64"), gbits = r("b64", "e_gbits");
  ins("@!" + fit + " bra L_wg_generic_store");
  // Every consumer's wgmma has retired (each waited for its own), so the stages are free.
  ins("bar.sync 1, " + num(consumers));
  const std::string sbase = r("u32", "e_sbase"), wr = r("u32", "e_wr");
  ins("mov.u32 " + sbase + ", smem_dyn");
  ins("mad.lo.u32 " + sbase + ", %warp, " + num(c.ns * stride) + ", " + sbase);
  // Lane (g, q) holds rows g, g + 8 of each 16 and columns 2q, 2q + 1 of each 8.
  ins("mad.lo.u32 " + wr + ", %q, " + num(2 * stride) + ", " + sbase);
  ins("mad.lo.u32 " + wr + ", %g, 4, " + wr);
  for (int i = 0; i < 2 * (c.ms / 64); ++i)
    for (int j = 0; j < c.ns / 4; ++j) {
      const long long off = static_cast<long long>(8 * (j / 2) + j % 2) * stride + (2 * (i / 2) + i % 2) * chunk;
      ins("st.shared.f32 [" + wr + "+" + num(off) + "], " + acc(i, j));
    }
  ins("bar.warp.sync -1");
  // Read back: lane l takes 8 rows, chunk l % lanes_per_col, of column l / lanes_per_col, then
  // cols_per_pass columns further each pass: a quarter warp's 16-byte reads (and its writes of C)
  // cover four columns' 32 bytes each. Local row 16 t + u is C's row m0 + wm * ms + 64 t + 16 w4 + u.
  const std::string lc = r("u32", "e_lc"), lr = r("u32", "e_lr"), rd = r("u32", "e_rd");
  ins("div.u32 " + lc + ", %lane, " + num(lanes_per_col));
  ins("rem.u32 " + lr + ", %lane, " + num(lanes_per_col));
  ins("mad.lo.u32 " + rd + ", " + lc + ", " + num(stride) + ", " + sbase);
  ins("mad.lo.u32 " + rd + ", " + lr + ", " + num(chunk) + ", " + rd);
  const std::string grow = r("s32", "e_row"), gcol = r("s32", "e_col"), u = r("u32", "e_u");
  ins("shr.u32 " + u + ", " + lr + ", 1");  // the 64-row tile t
  ins("mad.lo.s32 " + grow + ", %wm, " + num(c.ms) + ", %m0");
  ins("mad.lo.s32 " + grow + ", " + u + ", 64, " + grow);
  ins("mad.lo.s32 " + grow + ", %w4, 16, " + grow);
  ins("and.b32 " + u + ", " + lr + ", 1");
  ins("mad.lo.s32 " + grow + ", " + u + ", 8, " + grow);
  ins("mad.lo.s32 " + gcol + ", %wn, " + num(c.ns) + ", %n0");
  ins("add.s32 " + gcol + ", " + gcol + ", " + lc);
  const std::string gaddr = r("u64", "e_g"), step = r("s64", "e_step");
  ins("cvt.s64.s32 " + t64 + ", " + gcol);
  ins("mul.lo.s64 " + t64 + ", " + t64 + ", %ldc");
  ins("cvt.s64.s32 " + gbits + ", " + grow);
  ins("add.s64 " + t64 + ", " + t64 + ", " + gbits);
  ins("shl.b64 " + t64 + ", " + t64 + ", 1");
  ins("add.s64 " + gaddr + ", %gc, " + t64);
  ins("mul.lo.s64 " + step + ", %ldc, " + num(2LL * cols_per_pass));
  const bool bf = c.data == DataType::BF16;
  const std::string kind = bf ? "bf16" : "f16";
  std::string v[8], cv[8], o[4];
  for (int e = 0; e < 8; ++e) {
    v[e] = r("f32", "e_v" + num(e));
    cv[e] = r("f32", "e_c" + num(e));
  }
  for (int e = 0; e < 4; ++e) o[e] = r("b32", "e_o" + num(e));
  // The passes go in two groups, each group's C words all read before its first store: ptxas
  // keeps a load after the stores before it, so reading pass by pass cost one memory round trip a
  // pass (perf notes §129). Half the passes' words are a quarter of the accumulators' registers;
  // all of them at once let ptxas hoist the reads above the staging (64x64: 72 registers, not 61,
  // a block per SM less).
  const int passes = c.ns / cols_per_pass, group = std::max(1, passes / 2);
  const std::string lp = r("u64", "e_lp");
  for (int g0 = 0; g0 < passes; g0 += group) {
    std::vector<std::array<std::string, 4>> cw(group);
    ins("mov.u64 " + lp + ", " + gaddr);
    for (int p = 0; p < group; ++p) {
      for (int e = 0; e < 4; ++e) {
        cw[p][e] = r("b32", "e_cw" + num(p) + "_" + num(e));
        ins("mov.b32 " + cw[p][e] + ", 0");
      }
      ins("@!" + beta_zero + " ld.global.v4.b32 {" + cw[p][0] + ", " + cw[p][1] + ", " + cw[p][2] + ", " + cw[p][3] +
          "}, [" + lp + "]");
      if (p + 1 < group) ins("add.s64 " + lp + ", " + lp + ", " + step);
    }
    for (int p = 0; p < group; ++p) {
      const long long at = static_cast<long long>(g0 + p) * cols_per_pass * stride;
      for (int h = 0; h < 2; ++h)
        ins("ld.shared.v4.f32 {" + v[4 * h] + ", " + v[4 * h + 1] + ", " + v[4 * h + 2] + ", " + v[4 * h + 3] + "}, [" +
            rd + "+" + num(at + 16 * h) + "]");
      for (int e = 0; e < 4; ++e) {
        if (bf) {  // bf16 -> f32: the 16 bits on top
          ins("shl.b32 " + cv[2 * e] + ", " + cw[p][e] + ", 16");
          ins("and.b32 " + cv[2 * e + 1] + ", " + cw[p][e] + ", 0xffff0000");
        } else {
          const std::string lo = r("b16", "e_h0"), hi = r("b16", "e_h1");
          ins("mov.b32 {" + lo + ", " + hi + "}, " + cw[p][e]);
          ins("cvt.f32.f16 " + cv[2 * e] + ", " + lo);
          ins("cvt.f32.f16 " + cv[2 * e + 1] + ", " + hi);
        }
      }
      for (int e = 0; e < 8; ++e) {
        ins("mul.rn.f32 " + v[e] + ", " + alpha + ", " + v[e]);
        ins("fma.rn.f32 " + v[e] + ", " + beta + ", " + cv[e] + ", " + v[e]);
      }
      // cvt.rn.f16x2.f32 d, a, b puts a in the upper half: the higher row.
      for (int e = 0; e < 4; ++e) ins("cvt.rn." + kind + "x2.f32 " + o[e] + ", " + v[2 * e + 1] + ", " + v[2 * e]);
      ins("st.global.v4.b32 [" + gaddr + "], {" + o[0] + ", " + o[1] + ", " + o[2] + ", " + o[3] + "}");
      if (g0 + p + 1 < passes) ins("add.s64 " + gaddr + ", " + gaddr + ", " + step);
    }
  }
  ins("ret");
  w.label("L_wg_generic_store");
}

void emit_wgmma_next_entry(PtxWriter& w, const KernelConfig& c, const std::function<std::string(int, int)>& acc) {
  auto ins = [&](const std::string& s) { w.ins(s); };
  w.label("L_wg_next_entry");
  ins("bar.warp.sync -1");  // the leader rejoins its warp before the next entry's wgmma
  ins("add.u32 %wg_tile, %wg_tile, 1");
  const std::string done = w.reg("pred", "n_done"), stride = w.reg("s64", "n_stride");
  ins("setp.ge.s32 " + done + ", %wg_tile, %bt_count");
  ins("@" + done + " bra L_wg_entries_done");
  ins("ld.param.s64 " + stride + ", [p_stride_c]");
  ins("mad.lo.s64 %gc, " + stride + ", " + num(storage_bytes(c.data)) + ", %gc");
  ins("@!%p_skip bra L_wg_entry");
  // No product: the tensor-map path left alpha acc + beta C of the last entry in the accumulators
  // (staged in place); zero them again, as at the start, or a non-finite C of one entry would
  // reach the next as 0 * inf.
  for (int i = 0; i < c.ms / 32; ++i)
    for (int j = 0; j < c.ns / 4; ++j) ins("mov.f32 " + acc(i, j) + ", 0f00000000");
  ins("bra L_epilogue");
  w.label("L_wg_entries_done");
  ins("cp.async.bulk.wait_group.read 0");
  ins("ret");
}

}  // namespace ptxblas::gen
