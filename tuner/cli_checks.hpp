// Option checks with one-line messages for the command-line tools (ptxblas-tune, ptxblas-bench):
// CLI11's PositiveNumber and NonNegativeNumber print their upper bound (DBL_MAX) digit by digit.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

namespace ptxblas::cli {

// A number above 0 (or at least 0 unless `strict`), or a message saying what was wanted.
inline CLI::Validator sign_check(bool strict, const std::string& wanted) {
  return CLI::Validator(
      [=](std::string& text) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = end != text.c_str() && *end == '\0';
        return number && (strict ? v > 0 : v >= 0) ? std::string{} : wanted + ", not " + text;
      },
      wanted);
}

inline const CLI::Validator kPositive = sign_check(true, "a number above 0");
inline const CLI::Validator kNonNegative = sign_check(false, "a number of at least 0");

}  // namespace ptxblas::cli
