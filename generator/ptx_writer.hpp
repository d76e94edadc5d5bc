// Minimal PTX text builder: collects register declarations and instructions separately so the
// emitter can name registers as it goes.
#pragma once

#include <cctype>
#include <set>
#include <string>

namespace ptxblas::gen {

class PtxWriter {
 public:
  // Declares "%name" of PTX type `type` (first use only) and returns "%name".
  std::string reg(const std::string& type, const std::string& name) {
    if (declared_.insert(name).second) decls_ += "  .reg ." + type + " %" + name + ";\n";
    return "%" + name;
  }
  void ins(const std::string& line) { body_ += "  " + line + ";\n"; }
  void label(const std::string& name) { body_ += name + ":\n"; }
  void comment(const std::string& text) { body_ += "  // " + text + "\n"; }

  // Declarations and body, every register renamed "%v_<name>": the driver's JIT (r580)
  // crashed on some short names that ptxas accepts, so none of ours may look like a builtin.
  std::string finish() const {
    const std::string text = decls_ + body_;
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (size_t i = 0; i < text.size();) {
      if (text[i] != '%') {
        out += text[i++];
        continue;
      }
      size_t j = i + 1;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      const std::string ident = text.substr(i + 1, j - i - 1);
      out += declared_.count(ident) ? "%v_" + ident : "%" + ident;
      i = j;
    }
    return out;
  }

 private:
  std::set<std::string> declared_;
  std::string decls_;
  std::string body_;
};

}  // namespace ptxblas::gen
