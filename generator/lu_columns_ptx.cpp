// LU's unblocked column steps on the GPU (LAPACK's getf2, matrix_helpers_ptx.hpp), one launch a
// column: the panel's columns never visit the host (perf notes §80). A launch does column j - 1's
// scaling and rank-1 update of the block and column j's pivot search; the search needs every
// row, so each thread block leaves its best candidate in a work array and the last block to
// finish (an atomic counter) picks the pivot and swaps the two rows across the whole panel.
#include <string>
#include <vector>

#include "helper_emitter.hpp"
#include "matrix_helpers_ptx.hpp"

namespace ptxblas::gen {

using namespace helper_ptx;

namespace {

constexpr int kT = kLuThreads;
constexpr int kKeyBytes = 8;          // shared slot of a candidate's |value| (f32 or f64)
constexpr int kIndexAt = kT * kKeyBytes;  // shared candidates' rows
constexpr int kFlagAt = kIndexAt + kT * 4;  // "this block is the last", then the pivot row
constexpr int kSlotBytes = 16;        // work array: candidate |value| at +0, row at +8

std::string neg_two(const TypeInfo& t) { return t.ct == "f64" ? "0dC000000000000000" : "0fC0000000"; }
// LAPACK's dlamch('S') / slamch('S'): the smallest normal number.
std::string safe_min(const TypeInfo& t) { return t.ct == "f64" ? "0d0010000000000000" : "0f00800000"; }
std::string neg_one(const TypeInfo& t) { return t.ct == "f64" ? "0dBFF0000000000000" : "0fBF800000"; }

// (%key, %idx) = the better of itself and (%key2, %idx2) where `guard` holds: the larger key,
// on equal keys the lower row (LAPACK's i?amax takes the first of equals).
void keep_better(HelperEmitter& e, const std::string& guard) {
  const std::string& ct = e.type().ct;
  e.ins("setp.gt." + ct + " " + e.r("pred", "p_gt") + ", %key2, %key");
  e.ins("setp.eq." + ct + " " + e.r("pred", "p_eq") + ", %key2, %key");
  e.ins("setp.lt.and.s32 %p_eq, %idx2, %idx, %p_eq");
  e.ins("or.pred %p_gt, %p_gt, %p_eq");
  if (!guard.empty()) e.ins("and.pred %p_gt, %p_gt, " + guard);
  e.ins("@%p_gt mov." + ct + " %key, %key2");
  e.ins("@%p_gt mov.s32 %idx, %idx2");
}

// Tree reduction of every thread's (%key, %idx) through shared memory: thread 0 ends with the
// block's best. Starts with a barrier (the slots may still be read by an earlier reduction).
void reduce_block(HelperEmitter& e) {
  const std::string& ct = e.type().ct;
  e.ins("bar.sync 0");
  e.ins("st.shared." + ct + " [%k_at], %key");
  e.ins("st.shared.s32 [%i_at], %idx");
  // Threads past the active half compare their own candidate with itself (never better).
  e.ins("mov." + ct + " " + e.r(ct, "key2") + ", %key");
  e.ins("mov.s32 " + e.r("s32", "idx2") + ", %idx");
  for (int s = kT / 2; s >= 1; s /= 2) {
    e.ins("bar.sync 0");
    e.ins("setp.lt.u32 " + e.r("pred", "p_act") + ", %thr, " + num(s));
    e.ins("@%p_act ld.shared." + ct + " %key2, [%k_at+" + num(s * kKeyBytes) + "]");
    e.ins("@%p_act ld.shared.s32 %idx2, [%i_at+" + num(s * 4) + "]");
    keep_better(e, "%p_act");
    e.ins("@%p_act st.shared." + ct + " [%k_at], %key");
    e.ins("@%p_act st.shared.s32 [%i_at], %idx");
  }
}

}  // namespace

std::string lu_columns_name(DataType data) {
  std::string s = "lu_columns_";
  s += type_letter(data);
  return s;
}

int lu_columns_smem_bytes() { return kFlagAt + 8; }
int lu_columns_work_bytes(long long blocks) { return static_cast<int>(kSlotBytes * (1 + blocks)); }

GeneratedKernel generate_lu_columns(DataType data, int sm) {
  require_blas3_type(data);
  HelperEmitter e(data);
  const TypeInfo& t = e.type();
  const std::string& ct = t.ct;
  for (const char* p : {"a", "piv", "work"}) {
    e.ins("ld.param.u64 " + e.r("u64", p) + ", [p_" + std::string(p) + "]");
    e.ins(std::string("cvta.to.global.u64 %") + p + ", %" + p);
  }
  e.ins("ld.param.s64 " + e.r("s64", "lda") + ", [p_lda]");
  for (const char* p : {"m", "w", "j", "offset", "left", "width"})
    e.ins("ld.param.s32 " + e.r("s32", p) + ", [p_" + std::string(p) + "]");
  e.ins("mov.u32 " + e.r("u32", "thr") + ", %tid.x");
  e.ins("mov.u32 " + e.r("u32", "bx") + ", %ctaid.x");
  e.ins("mov.u32 " + e.r("u32", "nb") + ", %nctaid.x");
  e.ins("mad.lo.s32 " + e.r("s32", "row") + ", %bx, " + num(kT) + ", %thr");
  e.ins("add.s32 %row, %row, %j");  // the grid covers rows j .. m - 1
  e.ins("setp.lt.s32 " + e.r("pred", "p_in") + ", %row, %m");
  e.ins("setp.ge.s32 " + e.r("pred", "p_end") + ", %j, %w");  // the launch after the last column
  e.ins("mov.u64 " + e.r("u64", "step") + ", " + num(t.es));
  e.ins("mul.lo.s64 %step, %step, %lda");  // one column further
  const Value v = e.value("v"), x = e.value("x"), d = e.value("d");

  // Column p = j - 1: scaled by its pivot (left alone when the pivot is 0, as LAPACK's), then
  // the rank-1 update of columns j .. w - 1 of this thread's row; column j's new value kept in v.
  e.ins("setp.gt.and.s32 " + e.r("pred", "p_upd") + ", %j, 0, %p_in");
  e.ins("@!%p_upd bra L_plain");
  e.ins("sub.s32 " + e.r("s32", "p") + ", %j, 1");
  const std::string d_at = e.address("d_at", "%a", "%lda", "%p", "%p");
  const std::string x_at = e.address("x_at", "%a", "%lda", "%row", "%p");
  // The columns in batches: every load of a batch issued before its stores (the first batch's
  // with the pivot's), so a thread waits for memory once a batch, not once a column (§80).
  const int batch = t.es == 16 ? 8 : 16;
  e.ins("mov.s32 " + e.r("s32", "c") + ", %j");
  e.ins("add.u64 " + e.r("u64", "u_at") + ", " + d_at + ", %step");
  e.ins("add.u64 " + e.r("u64", "y_at") + ", " + x_at + ", %step");
  e.ins("mul.lo.s64 " + e.r("s64", "bstep") + ", %step, " + num(batch));
  std::vector<Value> ys(batch), us(batch);
  std::vector<std::string> ya(batch), pk(batch);
  for (int k = 0; k < batch; ++k) {
    ys[k] = e.value("y" + num(k));
    us[k] = e.value("u" + num(k));
    ya[k] = e.r("u64", "ya" + num(k));
    pk[k] = e.r("pred", "p_k" + num(k));
  }
  auto load_batch = [&] {
    e.ins("setp.eq.s32 " + e.r("pred", "p_first") + ", %c, %j");
    e.ins("mov.u64 " + e.r("u64", "ua") + ", %u_at");
    for (int k = 0; k < batch; ++k) {
      e.ins("add.s32 " + e.r("s32", "ck") + ", %c, " + num(k));
      e.ins("setp.lt.s32 " + pk[k] + ", %ck, %w");
      e.ins(k == 0 ? "mov.u64 " + ya[k] + ", %y_at" : "add.u64 " + ya[k] + ", " + ya[k - 1] + ", %step");
      if (k > 0) e.ins("add.u64 %ua, %ua, %step");
      e.set(ys[k], t.zero, t.zero);  // columns past w compute on zeros and store nothing
      e.set(us[k], t.zero, t.zero);
      e.load(us[k], "%ua", pk[k]);
      e.load(ys[k], ya[k], pk[k]);
    }
  };
  load_batch();
  e.load(d, d_at);
  e.load(x, x_at);
  e.ins("setp.eq." + ct + " " + e.r("pred", "p_dz") + ", " + d.re + ", " + t.zero);
  if (t.cplx) e.ins("setp.eq.and." + ct + " %p_dz, " + d.im + ", " + t.zero + ", %p_dz");
  e.ins("@%p_dz bra L_update");
  if (t.cplx) {
    e.divide(x, x, d);
  } else {
    // LAPACK's: times 1 / pivot unless the pivot is below the safe minimum, then a division.
    e.ins("abs." + ct + " " + e.r(ct, "dabs") + ", " + d.re);
    e.ins("setp.lt." + ct + " " + e.r("pred", "p_tiny") + ", %dabs, " + safe_min(t));
    e.ins("@%p_tiny div.rn." + ct + " " + x.re + ", " + x.re + ", " + d.re);
    e.ins("@!%p_tiny rcp.rn." + ct + " " + e.r(ct, "dinv") + ", " + d.re);
    e.ins("@!%p_tiny mul.rn." + ct + " " + x.re + ", " + x.re + ", %dinv");
  }
  e.store(x, x_at);
  e.label("L_update");
  for (int k = 0; k < batch; ++k) e.mul_sub(ys[k], x, us[k]);
  for (int k = 0; k < batch; ++k) {
    const std::string g = "@" + pk[k] + " ";
    if (t.cplx)
      e.ins(g + "st.global.v2." + ct + " [" + ya[k] + "], {" + ys[k].re + ", " + ys[k].im + "}");
    else
      e.ins(g + "st.global." + ct + " [" + ya[k] + "], " + ys[k].re);
  }
  e.ins("@%p_first mov." + ct + " " + v.re + ", " + ys[0].re);
  if (t.cplx) e.ins("@%p_first mov." + ct + " " + v.im + ", " + ys[0].im);
  e.ins("add.s32 %c, %c, " + num(batch));
  e.ins("add.u64 %u_at, %u_at, %bstep");
  e.ins("add.u64 %y_at, %y_at, %bstep");
  e.ins("setp.ge.s32 " + e.r("pred", "p_cdone") + ", %c, %w");
  e.ins("@%p_cdone bra L_updated");
  load_batch();
  e.ins("bra L_update");
  e.label("L_plain");  // j == 0, or a thread past the last row
  e.ins("@%p_end ret");
  const std::string v_at = e.address("v_at", "%a", "%lda", "%row", "%j");
  e.load(v, v_at, "%p_in");
  e.label("L_updated");
  e.ins("@%p_end ret");

  // Column j's candidate: |re| + |im| (LAPACK's i?amax measure), NaN never chosen; rows past
  // the end lose to every row.
  e.ins("mov." + ct + " " + e.r(ct, "key") + ", " + neg_two(t));
  e.ins("mov.s32 " + e.r("s32", "idx") + ", 2147483647");
  e.ins("@%p_in abs." + ct + " " + e.r(ct, "ka") + ", " + v.re);
  if (t.cplx) {
    e.ins("@%p_in abs." + ct + " " + e.r(ct, "kb") + ", " + v.im);
    e.ins("@%p_in add." + ct + " %ka, %ka, %kb");
  }
  e.ins("@%p_in setp.num." + ct + " " + e.r("pred", "p_num") + ", %ka, %ka");
  e.ins("@%p_in selp." + ct + " %ka, %ka, " + neg_one(t) + ", %p_num");
  e.ins("@%p_in mov." + ct + " %key, %ka");
  e.ins("@%p_in mov.s32 %idx, %row");

  // The block's best into its work slot; this thread's stores reach the GPU before the count.
  e.ins("mov.u32 " + e.r("u32", "sh") + ", smem");
  e.ins("mad.lo.u32 " + e.r("u32", "k_at") + ", %thr, " + num(kKeyBytes) + ", %sh");
  e.ins("mad.lo.u32 " + e.r("u32", "i_at") + ", %thr, 4, %sh");
  e.ins("add.u32 %i_at, %i_at, " + num(kIndexAt));
  e.ins("fence.acq_rel.gpu");
  reduce_block(e);
  e.ins("setp.eq.u32 " + e.r("pred", "p_t0") + ", %thr, 0");
  e.ins("cvt.u64.u32 " + e.r("u64", "slot") + ", %bx");
  e.ins("mad.lo.u64 %slot, %slot, " + num(kSlotBytes) + ", %work");
  e.ins("@%p_t0 st.global." + ct + " [%slot+" + num(kSlotBytes) + "], %key");
  e.ins("@%p_t0 st.global.s32 [%slot+" + num(kSlotBytes + 8) + "], %idx");
  e.ins("@%p_t0 fence.acq_rel.gpu");
  e.ins("@%p_t0 atom.global.add.u32 " + e.r("u32", "done") + ", [%work], 1");
  e.ins("@%p_t0 fence.acq_rel.gpu");  // acquire: the count read, then the other blocks' slots
  e.ins("sub.u32 " + e.r("u32", "nb1") + ", %nb, 1");
  e.ins("@%p_t0 setp.eq.u32 " + e.r("pred", "p_last") + ", %done, %nb1");
  e.ins("@%p_t0 selp.s32 " + e.r("s32", "flag") + ", 1, 0, %p_last");
  e.ins("@%p_t0 st.shared.s32 [%sh+" + num(kFlagAt) + "], %flag");
  e.ins("bar.sync 0");
  e.ins("ld.shared.s32 %flag, [%sh+" + num(kFlagAt) + "]");
  e.ins("setp.eq.s32 " + e.r("pred", "p_wait") + ", %flag, 0");
  e.ins("@%p_wait ret");

  // The last block: the best of every block's candidate (read past L1: other blocks wrote them;
  // thread 0's acquire above, then the barrier, order these reads after their writes).
  e.ins("mov." + ct + " %key, " + neg_two(t));
  e.ins("mov.s32 %idx, 2147483647");
  e.ins("mov.u32 " + e.r("u32", "b") + ", %thr");
  e.label("L_slots");
  e.ins("setp.ge.u32 " + e.r("pred", "p_sdone") + ", %b, %nb");
  e.ins("@%p_sdone bra L_picked");
  e.ins("cvt.u64.u32 " + e.r("u64", "b_at") + ", %b");
  e.ins("mad.lo.u64 %b_at, %b_at, " + num(kSlotBytes) + ", %work");
  e.ins("ld.global.cg." + ct + " %key2, [%b_at+" + num(kSlotBytes) + "]");
  e.ins("ld.global.cg.s32 %idx2, [%b_at+" + num(kSlotBytes + 8) + "]");
  keep_better(e, "");
  e.ins("add.u32 %b, %b, " + num(kT));
  e.ins("bra L_slots");
  e.label("L_picked");
  reduce_block(e);
  // Thread 0: the count back to 0 for the next launch, the pivot (offset + row) out, the row to all.
  e.ins("@%p_t0 st.global.u32 [%work], 0");
  e.ins("@%p_t0 add.s32 " + e.r("s32", "pv") + ", %idx, %offset");
  e.ins("cvt.s64.s32 " + e.r("s64", "j64") + ", %j");
  e.ins("mad.lo.s64 " + e.r("u64", "piv_at") + ", %j64, 4, %piv");
  e.ins("@%p_t0 st.global.s32 [%piv_at], %pv");
  e.ins("@%p_t0 st.shared.s32 [%sh+" + num(kFlagAt + 4) + "], %idx");
  e.ins("bar.sync 0");
  e.ins("ld.shared.s32 " + e.r("s32", "jp") + ", [%sh+" + num(kFlagAt + 4) + "]");
  e.ins("setp.eq.s32 " + e.r("pred", "p_same") + ", %jp, %j");
  e.ins("@%p_same ret");

  // Rows j and jp swapped across the panel's columns -left .. width - left - 1 (relative to a).
  e.ins("cvt.s32.u32 " + e.r("s32", "sc") + ", %thr");
  e.ins("sub.s32 %sc, %sc, %left");
  e.ins("sub.s32 " + e.r("s32", "cend") + ", %width, %left");
  const std::string r_at = e.address("r_at", "%a", "%lda", "%j", "%sc");
  const std::string q_at = e.address("q_at", "%a", "%lda", "%jp", "%sc");
  e.ins("mul.lo.s64 " + e.r("s64", "sstep") + ", %step, " + num(kT));
  const Value s1 = e.value("s1"), s2 = e.value("s2");
  auto load_l2 = [&](const Value& val, const std::string& addr) {
    if (t.cplx)
      e.ins("ld.global.cg.v2." + ct + " {" + val.re + ", " + val.im + "}, [" + addr + "]");
    else
      e.ins("ld.global.cg." + ct + " " + val.re + ", [" + addr + "]");
  };
  e.label("L_swap");
  e.ins("setp.ge.s32 " + e.r("pred", "p_wdone") + ", %sc, %cend");
  e.ins("@%p_wdone ret");
  load_l2(s1, r_at);
  load_l2(s2, q_at);
  e.store(s2, r_at);
  e.store(s1, q_at);
  e.ins("add.s32 %sc, %sc, " + num(kT));
  e.ins("add.u64 " + r_at + ", " + r_at + ", %sstep");
  e.ins("add.u64 " + q_at + ", " + q_at + ", %sstep");
  e.ins("bra L_swap");

  GeneratedKernel k = helper_kernel(lu_columns_name(data), sm,
                                    ".param .u64 p_a, .param .s64 p_lda, .param .s32 p_m, .param .s32 p_w, "
                                    ".param .s32 p_j, .param .u64 p_piv, .param .s32 p_offset, .param .s32 p_left, "
                                    ".param .s32 p_width, .param .u64 p_work",
                                    kT, e, ".extern .shared .align 16 .b8 smem[];\n\n");
  k.dynamic_smem = lu_columns_smem_bytes();
  return k;
}

}  // namespace ptxblas::gen
