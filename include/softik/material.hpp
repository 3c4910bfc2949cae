// Host-side type erasure of the material laws (docs/method.md section 4: the law is a template
// parameter of the element loops; the variant exists only at the host boundary).
#pragma once

#include <variant>

#include "softik/fem/materials/materials.hpp"

namespace softik {

using Material = std::variant<fem::LinearElastic, fem::SaintVenantKirchhoff, fem::NeoHookean, fem::NeoHookeanD1,
                              fem::StableNeoHookean, fem::MooneyRivlin, fem::Ogden<3>, fem::Yeoh, fem::ArrudaBoyce>;

/// Human-readable name of the law held by `m` (for error messages and logs).
inline const char* material_name(const Material& m) {
  static const char* names[] = {"LinearElastic",    "SaintVenantKirchhoff", "NeoHookean", "NeoHookeanD1",
                                "StableNeoHookean", "MooneyRivlin",         "Ogden",      "Yeoh",
                                "ArrudaBoyce"};
  return names[m.index()];
}

}  // namespace softik
