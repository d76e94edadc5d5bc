// Benchmark samples on disk: one CSV row per (problem, configuration) with the measured speed and
// the device it was measured on. Header:
//   device_key,type,transa,transb,m,n,k,ml,nl,u,ms,ns,vec,kg,tflops
// tflops is empty for samples not benchmarked yet (what `sample` writes and `bench` fills).
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "features.hpp"
#include "param_space.hpp"

namespace ptxblas::tuner {

struct Sample {
  std::string device_key;
  model::Problem problem;
  gen::Tuning tuning;
  std::optional<double> tflops;
};

extern const char* const kDatasetHeader;

void write_header(std::ostream& os);
void write_row(std::ostream& os, const Sample& s);

// Rows of a dataset; a malformed line throws std::runtime_error naming its line number.
std::vector<Sample> read_dataset(std::istream& is);
// The same from a file; errors name it ("cannot read PATH", "PATH: dataset line N: ...").
std::vector<Sample> read_dataset_file(const std::string& path);

// A row without its measurement, as text: identifies a (device, problem, configuration) across
// files and runs.
std::string sample_key(const Sample& s);

// The rows with each (device, problem, configuration) once, in first-seen order, the value of
// its last row kept: a configuration measured again in a later file (`remeasure`, then `bench
// --as-dispatched`) replaces its earlier measurement. `replaced` counts the rows dropped.
std::vector<Sample> latest_rows(const std::vector<Sample>& rows, std::size_t& replaced);

char type_code(gen::DataType t);       // S D C Z H B
gen::DataType parse_type(char c);      // throws std::invalid_argument

}  // namespace ptxblas::tuner
