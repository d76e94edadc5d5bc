// Results of a run: the CSV file (exact header below, one row per shape, flushed as each shape
// ends) and the aligned table on stdout. scripts/write_report.py reads both.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "suite.hpp"

namespace bench {

struct Result {
  Shape shape;
  double ptx_tflops;     // NaN when ptxblas could not be timed (a call returned an error)
  double cublas_tflops;
  std::string check;     // ok, MISMATCH, FORWARDED or ERROR
  std::string config;    // ptxblas_last_call() of the correctness run (or the first failing call)
  double spread;         // largest relative difference between two timing rounds of one implementation
  double oracle_tflops = std::nan("");  // best candidate of the oracle search (NaN: not run)
  std::string oracle_config;            // its kernel, "(of N candidates)"
};

class CsvFile {
 public:
  explicit CsvFile(const std::string& path);  // "" writes nothing; exits 2 if it cannot be opened
  ~CsvFile();
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;
  void write(const Result& r);

 private:
  std::FILE* f_ = nullptr;
};

void print_table_header();
void print_table_row(const Result& r);

}  // namespace bench
