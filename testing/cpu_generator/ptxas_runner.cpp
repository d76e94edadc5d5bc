#include "ptxas_runner.hpp"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>

std::string ptxas_path() {
  if (const char* p = std::getenv("PTXAS"); p && *p) return p;
  return PTXBLAS_PTXAS;
}

namespace {

int match_int(const std::string& text, const std::regex& re) {
  std::smatch m;
  return std::regex_search(text, m, re) ? std::stoi(m[1]) : -1;
}

}  // namespace

PtxasReport run_ptxas(const std::string& ptx, int sm) {
  // Code for sm_90a (wgmma) assembles only for the architecture-specific target.
  const bool arch_specific = ptx.find(".target sm_" + std::to_string(sm) + "a") != std::string::npos;
  PtxasReport r;
  char dir[] = "/tmp/ptxblas-ptxas-XXXXXX";
  if (!mkdtemp(dir)) {
    r.log = "mkdtemp failed";
    return r;
  }
  const std::string in = std::string(dir) + "/k.ptx", out = std::string(dir) + "/k.cubin";
  std::ofstream(in) << ptx;
  const std::string cmd =
      ptxas_path() + " -v -arch=sm_" + std::to_string(sm) + (arch_specific ? "a" : "") + " " + in + " -o " + out +
      " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    r.log = "cannot run " + cmd;
    return r;
  }
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) r.log += buf.data();
  const int status = pclose(p);
  std::remove(in.c_str());
  std::remove(out.c_str());
  rmdir(dir);
  r.ok = status == 0;
  r.registers = match_int(r.log, std::regex(R"(Used (\d+) registers)"));
  r.smem_bytes = std::max(0, match_int(r.log, std::regex(R"((\d+) bytes smem)")));
  r.stack_bytes = std::max(0, match_int(r.log, std::regex(R"((\d+) bytes stack frame)")));
  r.spill_bytes = std::max(0, match_int(r.log, std::regex(R"((\d+) bytes spill stores)"))) +
                  std::max(0, match_int(r.log, std::regex(R"((\d+) bytes spill loads)")));
  return r;
}
