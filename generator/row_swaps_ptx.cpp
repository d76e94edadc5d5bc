// LAPACK's row interchanges (laswp) for the LU factorization's panels (matrix_helpers_ptx.hpp):
// one thread per column walks the pivot list in order, so each column sees the swaps exactly as
// the reference applies them (a later pivot may name a row an earlier swap moved).
#include <string>

#include "helper_emitter.hpp"
#include "matrix_helpers_ptx.hpp"

namespace ptxblas::gen {

using namespace helper_ptx;

std::string row_swaps_name(DataType data) {
  std::string s = "swap_rows_";
  s += type_letter(data);
  return s;
}

GeneratedKernel generate_row_swaps(DataType data, int sm) {
  require_blas3_type(data);
  HelperEmitter e(data);
  const TypeInfo& t = e.type();
  // The elements move as raw bits: one b32 / b64, or a pair of b64 for c64.
  const std::string bits = t.es == 4 ? "b32" : "b64";
  const bool pair = t.es == 16;
  const std::string x = e.r(bits, "x"), y = e.r(bits, "y");
  const std::string x2 = pair ? e.r(bits, "x2") : "", y2 = pair ? e.r(bits, "y2") : "";
  auto load = [&](const std::string& v, const std::string& v2, const std::string& addr) {
    e.ins(pair ? "ld.global.v2.b64 {" + v + ", " + v2 + "}, [" + addr + "]"
               : "ld.global." + bits + " " + v + ", [" + addr + "]");
  };
  auto store = [&](const std::string& addr, const std::string& v, const std::string& v2) {
    e.ins(pair ? "st.global.v2.b64 [" + addr + "], {" + v + ", " + v2 + "}"
               : "st.global." + bits + " [" + addr + "], " + v);
  };
  e.ins("ld.param.u64 " + e.r("u64", "a") + ", [p_a]");
  e.ins("cvta.to.global.u64 %a, %a");
  e.ins("ld.param.s64 " + e.r("s64", "lda") + ", [p_lda]");
  e.ins("ld.param.u64 " + e.r("u64", "piv") + ", [p_piv]");
  e.ins("cvta.to.global.u64 %piv, %piv");
  e.ins("ld.param.s32 " + e.r("s32", "n") + ", [p_n]");
  e.ins("ld.param.s32 " + e.r("s32", "count") + ", [p_count]");
  e.global_index("j", kRowSwapThreads, "%n");  // one column a thread
  // %col: column j's first element; %row_at walks rows 0, 1, ... of it, %piv_at the pivot list.
  e.ins("cvt.s64.s32 " + e.r("s64", "j64") + ", %j");
  e.ins("mul.lo.s64 %j64, %j64, %lda");
  e.ins("mad.lo.s64 " + e.r("u64", "col") + ", %j64, " + num(t.es) + ", %a");
  e.ins("mov.u64 " + e.r("u64", "row_at") + ", %col");
  e.ins("mov.u64 " + e.r("u64", "piv_at") + ", %piv");
  e.ins("mov.s32 " + e.r("s32", "r") + ", 0");
  e.label("L_pivot");
  e.ins("setp.ge.s32 %p_out, %r, %count");
  e.ins("@%p_out ret");
  e.ins("ld.global.nc.s32 " + e.r("s32", "p") + ", [%piv_at]");
  e.ins("setp.eq.s32 " + e.r("pred", "p_same") + ", %p, %r");
  e.ins("@%p_same bra L_next");
  e.ins("cvt.s64.s32 " + e.r("s64", "p64") + ", %p");
  e.ins("mad.lo.s64 " + e.r("u64", "other_at") + ", %p64, " + num(t.es) + ", %col");
  load(x, x2, "%row_at");
  load(y, y2, "%other_at");
  store("%row_at", y, y2);
  store("%other_at", x, x2);
  e.label("L_next");
  e.ins("add.s32 %r, %r, 1");
  e.ins("add.u64 %row_at, %row_at, " + num(t.es));
  e.ins("add.u64 %piv_at, %piv_at, 4");
  e.ins("bra L_pivot");

  return helper_kernel(row_swaps_name(data), sm,
                       ".param .u64 p_a, .param .s64 p_lda, .param .u64 p_piv, .param .s32 p_n, .param .s32 p_count",
                       kRowSwapThreads, e);
}

}  // namespace ptxblas::gen
