// First-sight decisions on disk: a line round trip, malformed lines skipped (never trusted), a
// second store reading what the first appended, the file's place.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "decision_store.hpp"

namespace {

using namespace ptxblas;
namespace fs = std::filesystem;

const model::Problem kP{gen::DataType::C64, gen::Op::C, gen::Op::T, 2560, 16, 2560};

gen::Tuning some_tuning() {
  gen::Tuning t;
  t.ml = 128, t.nl = 16, t.u = 16, t.ms = 16, t.ns = 16, t.vec = 2, t.kg = 12, t.family = 1, t.stages = 2;
  return t;
}

fs::path temp_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / (std::string("ptxblas-decisions-") + name);
  fs::remove_all(d);
  return d;
}

TEST(DecisionStore, LineRoundTrip) {
  const auto back = dispatch::parse_decision_line(dispatch::decision_line(kP, some_tuning()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->first, kP);
  EXPECT_EQ(back->second, some_tuning());
}

TEST(DecisionStore, MalformedLinesAreRejected) {
  for (const char* bad : {"", "5 2 1 2560 16", "5 2 1 2560 16 2560 128 16 16 16 16 2 12 1 2 0 7",
                          "9 0 0 1 1 1 64 64 8 4 4 1 1 0 1 0", "0 3 0 1 1 1 64 64 8 4 4 1 1 0 1 0",
                          "0 0 0 0 1 1 64 64 8 4 4 1 1 0 1 0", "0 0 0 1 1 1 64 64 8 4 4 1 -1 0 1 0",
                          "0 0 0 1 1 1 64 64 8 4 4 1 x 0 1 0"})
    EXPECT_FALSE(dispatch::parse_decision_line(bad)) << bad;
}

TEST(DecisionStore, ASecondStoreReadsWhatTheFirstWrote) {
  const fs::path dir = temp_dir("roundtrip");
  const std::string path = (dir / "sub" / "decisions-x.txt").string();
  {
    dispatch::DecisionStore a(path);
    EXPECT_FALSE(a.find(kP));
    a.add(kP, some_tuning());
    gen::Tuning other;
    a.add(model::Problem{gen::DataType::F32, gen::Op::N, gen::Op::N, 7, 8, 9}, other);
    EXPECT_EQ(a.size(), 2u);
  }
  {
    std::ofstream(path, std::ios::app) << "garbage line\n";
  }
  dispatch::DecisionStore b(path);  // warns once about the garbage line
  EXPECT_EQ(b.size(), 2u);
  ASSERT_TRUE(b.find(kP));
  EXPECT_EQ(*b.find(kP), some_tuning());
  fs::remove_all(dir);
}

TEST(DecisionStore, MemoryOnlyWithoutAPath) {
  dispatch::DecisionStore s("");
  s.add(kP, some_tuning());
  EXPECT_EQ(*s.find(kP), some_tuning());
}

TEST(DecisionStore, FileLivesInTheCacheDirectory) {
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", "/tmp/xdg-cache", 1);
  EXPECT_EQ(dispatch::decisions_path("nvidia-h100-sm90"), "/tmp/xdg-cache/ptxblas/decisions-nvidia-h100-sm90.txt");
  if (old) setenv("XDG_CACHE_HOME", saved.c_str(), 1); else unsetenv("XDG_CACHE_HOME");
}

}  // namespace
