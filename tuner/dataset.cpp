#include "dataset.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace ptxblas::tuner {

const char* const kDatasetHeader =
    "device_key,type,transa,transb,m,n,k,ml,nl,u,ms,ns,vec,kg,family,stages,pad,tflops";
// Rows written before family/stages/pad existed (15 fields) read as SIMT, one stage, no pad.
const char* const kDatasetHeaderV1 = "device_key,type,transa,transb,m,n,k,ml,nl,u,ms,ns,vec,kg,tflops";

std::string sample_key(const Sample& s) {
  Sample k = s;
  k.tflops.reset();
  std::ostringstream os;
  write_row(os, k);
  return os.str();
}

std::vector<Sample> latest_rows(const std::vector<Sample>& rows, std::size_t& replaced) {
  std::map<std::string, std::size_t> first;  // a row's key -> its place in `out`
  std::vector<Sample> out;
  replaced = 0;
  for (const Sample& r : rows) {
    const auto [it, fresh] = first.try_emplace(sample_key(r), out.size());
    if (fresh) {
      out.push_back(r);
    } else {
      out[it->second].tflops = r.tflops;
      ++replaced;
    }
  }
  return out;
}

char type_code(gen::DataType t) {
  switch (t) {
    case gen::DataType::F32: return 'S';
    case gen::DataType::F64: return 'D';
    case gen::DataType::C32: return 'C';
    case gen::DataType::C64: return 'Z';
    case gen::DataType::F16: return 'H';
    case gen::DataType::BF16: return 'B';
  }
  return '?';
}

gen::DataType parse_type(char c) {
  switch (c) {
    case 'S': return gen::DataType::F32;
    case 'D': return gen::DataType::F64;
    case 'C': return gen::DataType::C32;
    case 'Z': return gen::DataType::C64;
    case 'H': return gen::DataType::F16;
    case 'B': return gen::DataType::BF16;
    default: throw std::invalid_argument(std::string("unknown type code ") + c);
  }
}

namespace {

char op_code(gen::Op op) { return op == gen::Op::N ? 'N' : op == gen::Op::T ? 'T' : 'C'; }

gen::Op parse_op(const std::string& s) {
  if (s == "N") return gen::Op::N;
  if (s == "T") return gen::Op::T;
  if (s == "C") return gen::Op::C;
  throw std::invalid_argument("unknown op " + s);
}

}  // namespace

void write_header(std::ostream& os) { os << kDatasetHeader << "\n"; }

void write_row(std::ostream& os, const Sample& s) {
  const auto& p = s.problem;
  os << s.device_key << ',' << type_code(p.data) << ',' << op_code(p.op_a) << ',' << op_code(p.op_b) << ',' << p.m
     << ',' << p.n << ',' << p.k;
  for (int i = 0; i < gen::kTuningParams; ++i) os << ',' << gen::tuning_value(s.tuning, i);
  os << ',';
  if (s.tflops) os << *s.tflops;
  os << "\n";
}

namespace {

// Column `i` of the current header, for error messages (the first format's columns up to kg are
// the same).
std::string column_name(std::size_t i) {
  std::stringstream header(kDatasetHeader);
  std::string name;
  for (std::size_t c = 0; std::getline(header, name, ','); ++c)
    if (c == i) return name;
  return "column " + std::to_string(i + 1);
}

// The whole field as a number, or an error naming the column and the text found there.
template <class T>
T field(const std::string& text, std::size_t column) {
  std::size_t used = 0;
  T v{};
  try {
    if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(std::stod(text, &used));
    } else {
      const long long wide = std::stoll(text, &used);
      if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max()) used = 0;
      v = static_cast<T>(wide);
    }
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size())
    throw std::invalid_argument(column_name(column) + " '" + text + "' is not " +
                                (std::is_floating_point_v<T> ? "a number" : "an integer"));
  return v;
}

}  // namespace

std::vector<Sample> read_dataset(std::istream& is) {
  std::vector<Sample> out;
  std::string line;
  int number = 0;
  while (std::getline(is, line)) {
    ++number;
    if (number == 1 && line.rfind("\x1f\x8b", 0) == 0)  // gzip's magic bytes (the repository's datasets)
      throw std::runtime_error("dataset line 1: gzip-compressed: gunzip it first");
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved with Windows line ends
    if (line.empty() || line == kDatasetHeader || line == kDatasetHeaderV1) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(cell);
    if (!line.empty() && line.back() == ',') f.emplace_back();
    try {
      const std::size_t params = f.size() == 15 ? 7 : static_cast<std::size_t>(gen::kTuningParams);
      if (f.size() != 8 + params)
        throw std::invalid_argument("expected " + std::to_string(8 + gen::kTuningParams) + " fields, found " +
                                    std::to_string(f.size()));
      Sample s;
      s.device_key = f[0];
      if (f[1].size() != 1) throw std::invalid_argument("bad type " + f[1]);
      s.problem.data = parse_type(f[1][0]);
      s.problem.op_a = parse_op(f[2]);
      s.problem.op_b = parse_op(f[3]);
      s.problem.m = field<std::int64_t>(f[4], 4);
      s.problem.n = field<std::int64_t>(f[5], 5);
      s.problem.k = field<std::int64_t>(f[6], 6);
      if (s.problem.m < 1 || s.problem.n < 1 || s.problem.k < 1)
        throw std::invalid_argument("m, n and k must be at least 1");
      for (std::size_t i = 0; i < params; ++i)
        gen::set_tuning_value(s.tuning, static_cast<int>(i), field<int>(f[7 + i], 7 + i));
      if (!f[7 + params].empty()) {
        s.tflops = field<double>(f[7 + params], 7 + gen::kTuningParams);
        // Training takes log2 of it.
        if (!std::isfinite(*s.tflops) || *s.tflops <= 0) throw std::invalid_argument("tflops must be positive");
      }
      out.push_back(s);
    } catch (const std::exception& e) {
      throw std::runtime_error("dataset line " + std::to_string(number) + ": " + e.what());
    }
  }
  return out;
}

std::vector<Sample> read_dataset_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  try {
    return read_dataset(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace ptxblas::tuner
