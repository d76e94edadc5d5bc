// Writes the PTX of requested GEMM / split-K reduction / level-3 helper kernels to files, for the
// CPU simulator checks (check_gemm.py, check_helpers.py). No CUDA: the generator is a pure
// function of the configuration.
//
//   ptxblas_ptx_sim_gen --catalog
//       one line per catalogued tile: "<type letter> ml nl u ms ns vec family" (simt or mma)
//   ptxblas_ptx_sim_gen --space
//       the same for every tile of the tuning space (param_space.hpp enumerate_space, kg ignored),
//       then every mma tile of a grid (with store_pad and stages) legal for every layout, which the oracle and
//       ptxblas_force_tile can run though the tuning space does not hold them yet
//   ptxblas_ptx_sim_gen OUTDIR SPEC...
//       SPEC = gemm:<t>:<op_a><op_b>:<ml>x<nl>x<u>:<ms>x<ns>:<vec>[:f16][:mma|:wgmma][:pad][:s2..s8][:tri|:band_al|:band_au|:band_bl|:band_bu][:vc][:ub][:ce][:lf][:oop][:at][:kl2|:kl4][:fs][:bt|:btp][:z<entries a block>]
//              e.g. gemm:s:nt:32x32x8:2x2:2 (mma: the tensor-core family, ms x ns the warp tile;
//              wgmma: the warpgroup family, ptxas only (the simulator does not run it), ms x ns the
//              warpgroup tile; pad: store_pad; s2..s8: shared stages; tri: the fill variant;
//              band_*: the triangular-operand variant, kernel_abi.hpp kBand*); a last :sm80 generates for sm_80 instead
//              of sm_90 and appends _sm80 to the kernel's name (entry and file)
//            | reduce:<t>[:f16]
//            | helper:<kind>:<t>[:l|u][:herm][:unit]   kind c (copy) s (scale) y (symmetrize)
//                                                      t (triangle); default lower
//            | inverse:<t>:<width>:<l|u>[:unit]        the triangular inverse (width 32, 64, 128)
//            | doubling:<t>:<half>:<l|u>               the 2 x half inverses from the half-wide ones
//       <t> one of h b s d c z (helpers and inverse: s d c z); ops n t c. Writes
//       OUTDIR/<kernel name>.ptx and prints "<SPEC> <kernel name> <file>" per spec. Exits 1 on a malformed or illegal spec.
#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_abi.hpp"
#include "kernel_config.hpp"
#include "matrix_helpers_ptx.hpp"
#include "operand_pack_ptx.hpp"
#include "mma_grid.hpp"
#include "param_space.hpp"
#include "simt_gemm_ptx.hpp"
#include "tile_catalog.hpp"

using namespace ptxblas::gen;

namespace {

constexpr int kSm = 90;
const DataType kTypes[] = {DataType::F16, DataType::BF16, DataType::F32,
                           DataType::F64, DataType::C32,  DataType::C64};

DataType type_of(const std::string& s) {
  for (DataType t : kTypes)
    if (s.size() == 1 && s[0] == type_letter(t)) return t;
  throw std::invalid_argument("unknown type '" + s + "'");
}

Op op_of(char ch) {
  switch (ch) {
    case 'n': return Op::N;
    case 't': return Op::T;
    case 'c': return Op::C;
  }
  throw std::invalid_argument(std::string("unknown op '") + ch + "'");
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::vector<int> ints(const std::string& s, size_t count) {
  std::vector<int> v;
  for (const auto& p : split(s, 'x')) v.push_back(std::stoi(p));
  if (v.size() != count) throw std::invalid_argument("expected " + std::to_string(count) + " sizes in '" + s + "'");
  return v;
}

HelperKind helper_kind_of(const std::string& s) {
  if (s == "c") return HelperKind::Copy;
  if (s == "s") return HelperKind::Scale;
  if (s == "y") return HelperKind::Symmetrize;
  if (s == "t") return HelperKind::Triangle;
  throw std::invalid_argument("unknown helper kind '" + s + "'");
}

GeneratedKernel generate(const std::string& spec) {
  const auto f = split(spec, ':');
  if (!f.empty() && f[0] == "helper") {
    if (f.size() < 3) throw std::invalid_argument("bad helper spec");
    MatrixHelper h;
    h.kind = helper_kind_of(f[1]);
    h.data = type_of(f[2]);
    for (size_t i = 3; i < f.size(); ++i) {
      if (f[i] == "l" || f[i] == "u")
        h.lower = f[i] == "l";
      else if (f[i] == "herm")
        h.hermitian = true;
      else if (f[i] == "unit")
        h.unit = true;
      else
        throw std::invalid_argument("bad helper spec suffix '" + f[i] + "'");
    }
    return generate_matrix_helper(h, kSm);
  }
  if (!f.empty() && f[0] == "inverse") {
    if (f.size() < 4 || f.size() > 5 || (f[3] != "l" && f[3] != "u") || (f.size() == 5 && f[4] != "unit"))
      throw std::invalid_argument("bad inverse spec");
    return generate_triangular_inverse(type_of(f[1]), f[3] == "l", f.size() == 5, std::stoi(f[2]), kSm);
  }
  if (!f.empty() && f[0] == "swap") {
    if (f.size() != 2) throw std::invalid_argument("bad swap spec");
    return generate_row_swaps(type_of(f[1]), kSm);
  }
  if (!f.empty() && f[0] == "pack") {
    if (f.size() != 1) throw std::invalid_argument("bad pack spec");
    return generate_operand_pack(kSm);
  }
  if (!f.empty() && f[0] == "lu") {
    if (f.size() != 2) throw std::invalid_argument("bad lu spec");
    return generate_lu_columns(type_of(f[1]), kSm);
  }
  if (!f.empty() && f[0] == "doubling") {
    if (f.size() != 4 || (f[3] != "l" && f[3] != "u")) throw std::invalid_argument("bad doubling spec");
    return generate_inverse_doubling(type_of(f[1]), f[3] == "l", std::stoi(f[2]), kSm);
  }
  if (f.size() >= 2 && f[0] == "reduce") {
    if (f.size() > 3 || (f.size() == 3 && f[2] != "f16")) throw std::invalid_argument("bad reduce spec");
    return generate_splitk_reduce(type_of(f[1]), f.size() == 3, kSm);
  }
  if (f.size() < 6 || f.size() > 13 || f[0] != "gemm" || f[2].size() != 2)
    throw std::invalid_argument("bad gemm spec");
  int sm = kSm;
  KernelConfig c;
  c.data = type_of(f[1]);
  c.op_a = op_of(f[2][0]);
  c.op_b = op_of(f[2][1]);
  const auto tile = ints(f[3], 3), thread = ints(f[4], 2);
  c.ml = tile[0];
  c.nl = tile[1];
  c.u = tile[2];
  c.ms = thread[0];
  c.ns = thread[1];
  c.vec = std::stoi(f[5]);
  for (size_t i = 6; i < f.size(); ++i) {
    if (f[i] == "f16")
      c.scalar_f16 = true;
    else if (f[i] == "mma")
      c.family = Family::Mma;
    else if (f[i] == "pad")
      c.store_pad = true;
    else if (f[i] == "wgmma")
      c.family = Family::Wgmma;
    else if (f[i].size() == 2 && f[i][0] == 's' && f[i][1] >= '2' && f[i][1] <= '8')
      c.stages = f[i][1] - '0';
    else if (f[i] == "tri")
      c.fill = true;
    else if (f[i] == "vc")
      c.vec_copy_a = c.vec_copy_b = true;
    else if (f[i] == "oop")
      c.out_of_place = true;
    else if (f[i] == "at")
      c.atomic_add = true;
    else if (f[i] == "ub")
      c.unbounded = true;
    else if (f[i] == "ce")
      c.clamp_edges = true;
    else if (f[i] == "lf")
      c.late_fetch = true;
    else if (f[i] == "fs")
      c.fused_split = true;
    else if (f[i] == "bt")
      c.batched = true;
    else if (f[i] == "btp")
      c.batched = c.batch_pointers = true;
    else if (f[i] == "kl2" || f[i] == "kl4")
      c.kl = f[i][2] - '0';
    else if (f[i] == "ks2" || f[i] == "ks4")
      c.ks = f[i][2] - '0';
    else if (f[i].size() >= 2 && f[i][0] == 'z' && std::isdigit(static_cast<unsigned char>(f[i][1])))
      c.batch_tiles = std::stoi(f[i].substr(1));
    else if (f[i].size() >= 2 && f[i][0] == 'r' && std::isdigit(static_cast<unsigned char>(f[i][1])))
      c.raster = std::stoi(f[i].substr(1));
    else if (f[i].rfind("band_", 0) == 0 && f[i].size() == 7) {
      const std::string which = f[i].substr(5);
      c.band = which == "al" ? kBandALower : which == "au" ? kBandAUpper : which == "bl" ? kBandBLower
               : which == "bu" ? kBandBUpper : -1;
    }
    else if (f[i] == "sm80" && i + 1 == f.size())
      sm = 80;
    else
      throw std::invalid_argument("bad gemm spec suffix '" + f[i] + "'");
  }
  GeneratedKernel k = generate_simt_gemm(c, sm);
  if (sm != kSm) {
    const std::string entry = ".entry " + k.name + "(";
    const size_t at = k.ptx.find(entry);
    if (at == std::string::npos) throw std::runtime_error("no entry " + k.name + " in the generated PTX");
    k.name += "_sm" + std::to_string(sm);
    k.ptx.replace(at, entry.size(), ".entry " + k.name + "(");
  }
  return k;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--catalog") {
    for (DataType t : kTypes)
      for (const Tile& x : tile_catalog(t))
        std::cout << type_letter(t) << ' ' << x.ml << ' ' << x.nl << ' ' << x.u << ' ' << x.ms << ' ' << x.ns
                  << ' ' << x.vec << ' ' << (x.family == Family::Mma ? "mma" : "simt") << ' ' << x.store_pad << ' '
                  << x.stages << '\n';
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "--space") {
    for (DataType t : kTypes)
      for (const Tuning& x : enumerate_space(t))
        if (x.kg == 1)
          std::cout << type_letter(t) << ' ' << x.ml << ' ' << x.nl << ' ' << x.u << ' ' << x.ms << ' ' << x.ns
                    << ' ' << x.vec << (x.family ? " mma " : " simt ") << x.pad << ' ' << x.stages << '\n';
    for (DataType t : kTypes)
      for (const Tile& x : ptxblas::tuner::mma_tiles_legal_for_all_layouts(t))
        std::cout << type_letter(t) << ' ' << x.ml << ' ' << x.nl << ' ' << x.u << ' ' << x.ms << ' ' << x.ns
                  << " 1 mma " << x.store_pad << ' ' << x.stages << '\n';
    return 0;
  }
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " --catalog | --space | OUTDIR SPEC...\n";
    return 2;
  }
  const std::string dir = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string spec = argv[i];
    try {
      const GeneratedKernel k = generate(spec);
      const std::string path = dir + "/" + k.name + ".ptx";
      std::ofstream out(path);
      out << k.ptx;
      if (!out) throw std::runtime_error("cannot write " + path);
      std::cout << spec << ' ' << k.name << ' ' << path << '\n';
    } catch (const std::exception& e) {
      std::cerr << spec << ": " << e.what() << '\n';
      return 1;
    }
  }
  return 0;
}
