#include "output.hpp"

#include <cmath>
#include <cstdlib>

namespace bench {
namespace {

// The CSV has no quoting: commas become ';', quotes and line breaks become spaces.
std::string csv_field(std::string s) {
  for (char& c : s) {
    if (c == ',') c = ';';
    if (c == '"' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

CsvFile::CsvFile(const std::string& path) {
  if (path.empty()) return;
  f_ = std::fopen(path.c_str(), "w");
  if (!f_) {
    std::perror(path.c_str());
    std::exit(2);
  }
  std::fprintf(f_, "type,transa,transb,m,n,k,name,ptxblas_tflops,cublas_tflops,config,oracle_tflops,oracle_config\n");
  std::fflush(f_);
}

CsvFile::~CsvFile() {
  if (f_) std::fclose(f_);
}

void CsvFile::write(const Result& r) {
  if (!f_) return;
  const Shape& s = r.shape;
  std::fprintf(f_, "%c,%c,%c,%lld,%lld,%lld,%s,%.6g,%.6g,%s,%.6g,%s\n", s.type, s.transa, s.transb,
               static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k),
               csv_field(s.name).c_str(), r.ptx_tflops, r.cublas_tflops, csv_field(r.config).c_str(),
               r.oracle_tflops, csv_field(r.oracle_config).c_str());
  std::fflush(f_);
}

void print_table_header() {
  std::printf("%-4s %-2s %-2s %7s %7s %7s %-18s %8s %9s %6s %-9s %9s %s\n", "type", "ta", "tb", "m", "n", "k",
              "name", "ptx_TF", "cublas_TF", "ratio", "check", "oracle_TF", "config | oracle config");
  std::fflush(stdout);
}

void print_table_row(const Result& r) {
  const Shape& s = r.shape;
  std::printf("%-4c %-2c %-2c %7lld %7lld %7lld %-18s %8.2f %9.2f %6.3f %-9s %9.2f %s%s%s\n", s.type, s.transa,
              s.transb, static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k),
              s.name.c_str(), r.ptx_tflops, r.cublas_tflops, r.ptx_tflops / r.cublas_tflops, r.check.c_str(),
              r.oracle_tflops, r.config.c_str(), r.oracle_config.empty() ? "" : " | ", r.oracle_config.c_str());
  std::fflush(stdout);
}

}  // namespace bench
