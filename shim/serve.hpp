// The shape every entry point has: decide (validate, serve with a generated kernel, or give a
// reason to forward), forward to the real cuBLAS when told to, count it, and never let an
// exception cross the C ABI.
#pragma once

#include <cublas_api.h>

#include <optional>
#include <string>

#include "call_record.hpp"
#include "real_cublas.hpp"

namespace ptxblas::shim {

struct Decision {
  std::optional<cublasStatus_t> status;  // set: return it; empty: forward for `reason`
  std::string reason;
};

// The decision for a call whose argument check returned `checked` (an error, or SUCCESS for an
// empty problem, recorded as `empty_note`); nothing when the call goes on.
std::optional<Decision> settle_checked(const CallShape& shape, std::optional<cublasStatus_t> checked,
                                       const char* empty_note);

template <class Decide, class Forward>
cublasStatus_t serve_or_forward(const CallShape& shape, Decide&& decide, Forward&& forward) noexcept {
  try {
    const Decision d = decide();
    if (d.status) return *d.status;
    const cublasStatus_t s = forward();
    record_forwarded(shape, d.reason);
    return s;
  } catch (const RealCublasMissing&) {  // nothing ran: an error, not a forwarded call
    record_error(shape, "real cuBLAS not found");
    return CUBLAS_STATUS_NOT_INITIALIZED;
  } catch (...) {
    record_error(shape, "internal error");
    return CUBLAS_STATUS_INTERNAL_ERROR;
  }
}

}  // namespace ptxblas::shim
