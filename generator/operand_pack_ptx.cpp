// operand_pack_ptx.hpp's kernel. Each thread gathers its 8 rows with 2-byte loads (the source's
// columns may start at any even address) and joins them into four 32-bit words for one 16-byte
// store; which of its rows lie inside the source does not change from column to column, so the
// predicates are set once.
#include "operand_pack_ptx.hpp"

#include "helper_emitter.hpp"

namespace ptxblas::gen {

using namespace helper_ptx;

std::string operand_pack_name() { return "pack_b16"; }

GeneratedKernel generate_operand_pack(int sm) {
  HelperEmitter e(DataType::F32);  // registers and the header only: the elements move as bits
  e.source_and_destination();
  e.ins("ld.param.s32 " + e.r("s32", "rows") + ", [p_rows]");
  e.ins("ld.param.s32 " + e.r("s32", "cols") + ", [p_cols]");
  // Threads per column: ldd / 8 (ldd < 2^31 rows, so it fits an s32).
  e.ins("shr.s64 " + e.r("s64", "units64") + ", %ldd, 3");
  e.ins("cvt.s32.s64 " + e.r("s32", "units") + ", %units64");
  e.global_index("q", kPackThreads, "%units");
  e.ins("shl.b32 " + e.r("s32", "i0") + ", %q, 3");
  for (int r = 0; r < kPackRowsPerThread; ++r) {
    const std::string row = e.r("s32", "row" + num(r));
    e.ins("add.s32 " + row + ", %i0, " + num(r));
    e.ins("setp.lt.s32 " + e.r("pred", "p_in" + num(r)) + ", " + row + ", %rows");
  }
  e.ins("cvt.s64.s32 " + e.r("s64", "i64") + ", %i0");
  e.ins("mov.u32 " + e.r("s32", "j") + ", %ctaid.y");
  e.ins("mov.u32 " + e.r("s32", "jstep") + ", %nctaid.y");
  e.label("L_column");
  e.ins("setp.ge.u32 %p_out, %j, %cols");  // unsigned: j + gridDim.y past 2^31 must still end the loop
  e.ins("@%p_out ret");
  e.ins("cvt.s64.s32 " + e.r("s64", "j64") + ", %j");
  e.ins("mad.lo.s64 " + e.r("s64", "src_el") + ", %j64, %lds, %i64");
  e.ins("mad.lo.s64 " + e.r("u64", "src_at") + ", %src_el, 2, %src");
  e.ins("mad.lo.s64 " + e.r("s64", "dst_el") + ", %j64, %ldd, %i64");
  e.ins("mad.lo.s64 " + e.r("u64", "dst_at") + ", %dst_el, 2, %dst");
  for (int r = 0; r < kPackRowsPerThread; ++r) {
    const std::string h = e.r("b16", "h" + num(r));
    e.ins("mov.b16 " + h + ", 0");
    e.ins("@%p_in" + num(r) + " ld.global.b16 " + h + ", [%src_at+" + num(2 * r) + "]");
  }
  std::string words;
  for (int w = 0; w < kPackRowsPerThread / 2; ++w) {
    const std::string word = e.r("b32", "w" + num(w)), high = e.r("b32", "hi" + num(w));
    e.ins("cvt.u32.u16 " + word + ", %h" + num(2 * w));  // the lower row in the low half
    e.ins("cvt.u32.u16 " + high + ", %h" + num(2 * w + 1));
    e.ins("shl.b32 " + high + ", " + high + ", 16");
    e.ins("or.b32 " + word + ", " + word + ", " + high);
    words += (w ? ", " : "") + word;
  }
  e.ins("st.global.v4.b32 [%dst_at], {" + words + "}");
  e.ins("add.s32 %j, %j, %jstep");
  e.ins("bra L_column");
  return helper_kernel(operand_pack_name(), sm,
                       ".param .u64 p_src, .param .s64 p_lds, .param .u64 p_dst, .param .s64 p_ldd,\n"
                       "  .param .s32 p_rows, .param .s32 p_cols",
                       kPackThreads, e);
}

}  // namespace ptxblas::gen
