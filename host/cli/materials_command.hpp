// `softik materials [NAME]`: the materials library (docs/materials.md) as text.
//   softik materials        one line per material: name, title, maker, its fits (law, default,
//                           who fitted them), density
//   softik materials NAME   that material in full: every fit's constants as the source printed
//                           them and in softik's convention (Pa), the initial shear modulus and
//                           the D1 of the library's closure, the source (citation, DOI or URL,
//                           where, test, strain range), and for softik's own fits the method, the
//                           quoted rows of the measured curve and the fit's stress there
// An unknown NAME throws softik::Error (Input) naming the closest known name and the list.
#pragma once

#include <ostream>
#include <string>

namespace softik::cli {

/// Writes the library (name empty) or one material to `out`.
void print_materials(const std::string& name, std::ostream& out);

}  // namespace softik::cli
