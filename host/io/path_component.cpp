// path_component_problem (path_component.hpp).
#include "host/io/path_component.hpp"

namespace softik::detail {

std::string path_component_problem(const std::string& name) {
  if (name.empty()) return "it is empty";
  if (name == "." || name == "..")
    return "'" + name + "' names " + (name == "." ? "the output folder itself" : "the output folder's parent");
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                    ch == '-' || ch == '.';
    if (ok) continue;
    if (ch == '/' || ch == '\\') return "it holds a path separator";
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) return "it holds a control character";
    return std::string("it holds '") + ch + "'";
  }
  return "";
}

}  // namespace softik::detail
