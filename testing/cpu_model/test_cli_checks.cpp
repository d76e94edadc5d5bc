// The tools' option checks: a bad value is refused with a one-line message saying what was
// wanted; good values pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_checks.hpp"

namespace {

// The message CLI11 gives for `--x value`, empty when it accepts it.
std::string refusal(const CLI::Validator& check, const std::string& value) {
  CLI::App app;
  double x = 0;
  app.add_option("--x", x)->check(check);
  std::vector<std::string> args = {value, "--x"};  // CLI11 reads the vector from the back
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(ToolOptions, ChecksSayWhatWasWanted) {
  using ptxblas::cli::kNonNegative;
  using ptxblas::cli::kPositive;
  EXPECT_EQ(refusal(kPositive, "3"), "");
  EXPECT_EQ(refusal(kPositive, "1e-4"), "");
  EXPECT_EQ(refusal(kNonNegative, "0"), "");
  EXPECT_EQ(refusal(kPositive, "0"), "--x: a number above 0, not 0");
  EXPECT_EQ(refusal(kPositive, "-2"), "--x: a number above 0, not -2");
  EXPECT_EQ(refusal(kPositive, "2x"), "--x: a number above 0, not 2x");
  EXPECT_EQ(refusal(kNonNegative, "-1"), "--x: a number of at least 0, not -1");
}

}  // namespace
