// Text inside XML attributes and elements (the .vtu/.pvd writers, the batch report's SVG plots).
#pragma once

#include <string>

namespace softik::detail {

/// `s` with & < > " ' written as XML entities.
inline std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace softik::detail
