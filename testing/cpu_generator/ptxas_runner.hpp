// Runs ptxas -v on PTX text and parses its resource report.
#pragma once

#include <string>

struct PtxasReport {
  bool ok = false;
  std::string log;  // ptxas's full output
  int registers = -1;
  int smem_bytes = -1;
  int spill_bytes = 0;  // spill stores + loads
  int stack_bytes = 0;
};

// Path of ptxas: $PTXAS, else the toolkit's found at build time.
std::string ptxas_path();

// sm_90a when the PTX targets it.
PtxasReport run_ptxas(const std::string& ptx, int sm);
