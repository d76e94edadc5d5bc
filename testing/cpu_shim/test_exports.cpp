// The dynamic symbol table of libptxblas.so: exactly the cuBLAS names it implements (version
// node libcublas.so.13, so LD_PRELOAD binds binaries linked against cuBLAS 13) and its own
// ptxblas_* functions (PTXBLAS_0); no C++ symbol leaks; no dependency on cuBLAS, the driver or a
// shared C++ runtime.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "shim_loader.hpp"

namespace cpushim {
namespace {

// stdout+stderr of a command, and its exit status.
std::string run(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    status = -1;
    return out;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  status = pclose(p);
  return out;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

struct DynSym {
  std::string type, bind, ndx, name;  // name with @@version
};

std::vector<DynSym> dyn_syms(const std::string& lib) {
  int status = 0;
  const std::string out = run("readelf --dyn-syms -W " + quoted(lib), status);
  EXPECT_EQ(status, 0) << out;
  std::vector<DynSym> v;
  std::istringstream in(out);
  std::string line;
  // "   59: 00000000000127d0     5 FUNC    GLOBAL DEFAULT   13 cublasGemmEx_64@@libcublas.so.13"
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string num, value, size, vis;
    DynSym s;
    if (!(f >> num >> value >> size >> s.type >> s.bind >> vis >> s.ndx >> s.name)) continue;
    if (num.size() < 2 || num.back() != ':' || num.find_first_not_of("0123456789") != num.size() - 1) continue;
    v.push_back(s);
  }
  return v;
}

const std::vector<std::string> kGemm = {
    "cublasSgemm_v2",    "cublasDgemm_v2",    "cublasCgemm_v2",    "cublasZgemm_v2",    "cublasHgemm",
    "cublasSgemm_v2_64", "cublasDgemm_v2_64", "cublasCgemm_v2_64", "cublasZgemm_v2_64", "cublasHgemm_64",
    "cublasGemmEx",      "cublasGemmEx_64",
    // strided-batched
    "cublasSgemmStridedBatched",    "cublasDgemmStridedBatched",    "cublasCgemmStridedBatched",
    "cublasZgemmStridedBatched",    "cublasHgemmStridedBatched",    "cublasSgemmStridedBatched_64",
    "cublasDgemmStridedBatched_64", "cublasCgemmStridedBatched_64", "cublasZgemmStridedBatched_64",
    "cublasHgemmStridedBatched_64", "cublasGemmStridedBatchedEx",   "cublasGemmStridedBatchedEx_64",
    // arrays of pointers
    "cublasSgemmBatched", "cublasDgemmBatched", "cublasCgemmBatched", "cublasZgemmBatched", "cublasSgemmBatched_64",
    "cublasDgemmBatched_64", "cublasCgemmBatched_64", "cublasZgemmBatched_64"};
// cuBLAS batched GEMMs ptxblas leaves to cuBLAS: an application's calls bind to the real library.
const std::vector<std::string> kNotExported = {"cublasHgemmBatched", "cublasHgemmBatched_64", "cublasGemmBatchedEx",
                                               "cublasGemmBatchedEx_64"};
const std::vector<std::string> kPtxblas = {"ptxblas_last_call", "ptxblas_counters", "ptxblas_describe_gemm",
                                          "ptxblas_force_tile", "ptxblas_set_benchmark_top_k",
                                          "ptxblas_set_offload_tiling"};

// Level 3 as shim/exports.map lists it: S, D, C, Z symmetric/triangular routines, C and Z
// Hermitian ones; _v2 and _v2_64, except SYRKX/HERKX, which have no _v2 in cuBLAS.
std::vector<std::string> level3_names() {
  std::vector<std::string> v;
  auto add = [&](const std::string& p, const std::vector<std::string>& v2, const std::vector<std::string>& plain) {
    for (const std::string& r : v2) {
      v.push_back("cublas" + p + r + "_v2");
      v.push_back("cublas" + p + r + "_v2_64");
    }
    for (const std::string& r : plain) {
      v.push_back("cublas" + p + r);
      v.push_back("cublas" + p + r + "_64");
    }
  };
  for (const char* p : {"S", "D", "C", "Z"}) add(p, {"symm", "syrk", "syr2k", "trmm", "trsm"}, {"syrkx"});
  for (const char* p : {"C", "Z"}) add(p, {"hemm", "herk", "her2k"}, {"herkx"});
  return v;
}

// The Fortran BLAS level-3 symbols and their CBLAS forms, and the LAPACK factorizations served
// whole (PTXBLAS_0, the default version, which unversioned references bind to).
std::vector<std::string> fortran_names() {
  std::vector<std::string> v;
  auto add = [&](const std::string& name) {
    v.push_back(name + "_");
    v.push_back("cblas_" + name);
  };
  for (const char* p : {"s", "d", "c", "z"})
    for (const char* r : {"gemm", "symm", "syrk", "syr2k", "trmm", "trsm"}) add(std::string(p) + r);
  for (const char* p : {"c", "z"})
    for (const char* r : {"hemm", "herk", "her2k"}) add(std::string(p) + r);
  for (const char* p : {"s", "d", "c", "z"})
    for (const char* r : {"potrf", "getrf"}) v.push_back(std::string(p) + r + "_");
  return v;
}

TEST(Exports, DefinedGlobalSymbolsAreExactlyTheAbi) {
  std::set<std::string> expected;
  for (const std::string& s : fortran_names()) expected.insert(s + "@@PTXBLAS_0");
  for (const std::string& s : kGemm) expected.insert(s + "@@libcublas.so.13");
  for (const std::string& s : level3_names()) expected.insert(s + "@@libcublas.so.13");
  for (const std::string& s : kPtxblas) expected.insert(s + "@@PTXBLAS_0");

  std::set<std::string> defined;
  for (const DynSym& s : dyn_syms(library_path())) {
    if (s.ndx == "UND" || s.bind == "LOCAL") continue;
    // The version nodes themselves appear as absolute GLOBAL OBJECT symbols.
    if (s.ndx == "ABS" && s.type == "OBJECT" && (s.name == "libcublas.so.13" || s.name == "PTXBLAS_0")) continue;
    EXPECT_EQ(s.type, "FUNC") << s.name;
    EXPECT_EQ(s.bind, "GLOBAL") << s.name;
    defined.insert(s.name);
  }
  for (const std::string& s : expected) EXPECT_TRUE(defined.count(s)) << "not exported: " << s;
  for (const std::string& s : defined) EXPECT_TRUE(expected.count(s)) << "exported but not in the ABI: " << s;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `name` followed by "(" (spaces allowed), as a whole identifier.
bool declares(const std::string& text, const std::string& name) {
  for (std::size_t p = text.find(name); p != std::string::npos; p = text.find(name, p + 1)) {
    if (p > 0 && ident_char(text[p - 1])) continue;
    std::size_t q = p + name.size();
    while (q < text.size() && std::isspace(static_cast<unsigned char>(text[q]))) ++q;
    if (q < text.size() && text[q] == '(') return true;
  }
  return false;
}

// Every exported cuBLAS name is a real cuBLAS 13 function (catches a misspelt export, which the
// version script would otherwise silently leave local or export under the wrong name).
TEST(Exports, CublasNamesAreDeclaredByCublasApiH) {
  std::ifstream f(PTXBLAS_CUBLAS_API_H);
  if (!f) GTEST_SKIP() << PTXBLAS_CUBLAS_API_H << " not found on this machine";
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string header = ss.str();
  std::vector<std::string> names = kGemm;
  for (const std::string& s : level3_names()) names.push_back(s);
  for (const std::string& s : names) EXPECT_TRUE(declares(header, s)) << s << " is not in cublas_api.h";
}

TEST(Exports, VersionedLookupsResolve) {
  void* h = library();
  for (const std::string& s : kGemm) {
    void* v = dlvsym(h, s.c_str(), "libcublas.so.13");
    EXPECT_NE(v, nullptr) << s;
    EXPECT_EQ(v, dlsym(h, s.c_str())) << s << ": the default version is not libcublas.so.13";
  }
  for (const std::string& s : kPtxblas) {
    void* v = dlvsym(h, s.c_str(), "PTXBLAS_0");
    EXPECT_NE(v, nullptr) << s;
    EXPECT_EQ(v, dlsym(h, s.c_str())) << s;
  }
  EXPECT_EQ(dlvsym(h, "cublasSgemm_v2", "libcublas.so.12"), nullptr);
  EXPECT_EQ(dlvsym(h, "cublasSgemm_v2", "PTXBLAS_0"), nullptr);
}

TEST(Exports, HalfAndExPointerArrayBatchesAreLeftToCublas) {
  void* h = library();
  for (const std::string& s : kNotExported) {
    EXPECT_EQ(dlsym(h, s.c_str()), nullptr) << s << " is exported";
    EXPECT_EQ(dlvsym(h, s.c_str(), "libcublas.so.13"), nullptr) << s << " is exported";
  }
}

TEST(Exports, NeedsNoCudaLibraryNorSharedCxxRuntime) {
  int status = 0;
  const std::string out = run("readelf -d -W " + quoted(library_path()), status);
  ASSERT_EQ(status, 0) << out;
  std::istringstream in(out);
  std::string line;
  int needed = 0;
  const std::regex lib(R"(\(NEEDED\).*\[(.*)\])");
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, lib)) continue;
    ++needed;
    const std::string so = m[1];
    for (const char* bad : {"cublas", "libcuda", "cudart", "libstdc++", "libgcc_s"})
      EXPECT_EQ(so.find(bad), std::string::npos) << "libptxblas.so needs " << so;
  }
  EXPECT_GT(needed, 0) << "no NEEDED entries parsed from:\n" << out;
}

}  // namespace
}  // namespace cpushim
