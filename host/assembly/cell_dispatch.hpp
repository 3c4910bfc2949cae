// The one dispatch table from runtime choices to compile-time kernels (docs/architecture.md,
// "One kernel body for every backend"), used by every backend: the element trait
// (host/mesh/element_dispatch.hpp), the law (the alternatives of softik::Material, in order) and
// the formulation tag of cell_kernel.hpp. A law added to softik::Material and an element added to
// the trait table reach every backend's kernels through these functions, with no backend code.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

#include "host/assembly/cell_kernel.hpp"
#include "host/mesh/element_dispatch.hpp"
#include "softik/assembly.hpp"
#include "softik/error.hpp"
#include "softik/material.hpp"

namespace softik::assembly {

template <class M>
struct LawTag {
  using type = M;
};
template <class Form>
struct FormulationTag {
  using type = Form;
};

namespace detail {
template <class F, std::size_t... I>
void dispatch_law(std::size_t law, F& f, std::index_sequence<I...>) {
  ((law == I ? f(LawTag<std::variant_alternative_t<I, Material>>{}) : void()), ...);
}
}  // namespace detail

/// Calls f(LawTag<M>{}) for the alternative with index `law` of softik::Material.
template <class F>
void dispatch_law(std::size_t law, F&& f) {
  SOFTIK_CHECK_KIND(law < std::variant_size<Material>::value, ErrorKind::Internal,
                    "material law index " << law << " out of range");
  detail::dispatch_law(law, f, std::make_index_sequence<std::variant_size<Material>::value>{});
}

/// Calls f(FormulationTag<Form>{}) for the compile-time formulation of law M under `formulation`:
/// for LinearElastic under Formulation::Corotational, the streamed kernel of the tangent
/// (RotatedCorotational, ConsistentCorotational) without the SPD projection, Corotational (the
/// element matrix, which the projection needs) with it; TotalLagrangian for
/// everything else (the Assembler refuses non-linear laws under the corotational and
/// small-strain formulations).
template <class M, class F>
void dispatch_formulation(Formulation formulation, fem::CorotationalTangent tangent, bool project_spd, F&& f) {
  if constexpr (std::is_same<M, fem::LinearElastic>::value) {
    if (formulation == Formulation::Corotational) {
      if (project_spd) return f(FormulationTag<Corotational>{});
      if (tangent == fem::CorotationalTangent::Consistent) return f(FormulationTag<ConsistentCorotational>{});
      return f(FormulationTag<RotatedCorotational>{});
    }
  }
  (void)formulation, (void)tangent, (void)project_spd;
  f(FormulationTag<TotalLagrangian>{});
}

/// Calls f(LawTag<M>{}, FormulationTag<Form>{}) for the law with index `law` under the
/// formulation choices of dispatch_formulation.
template <class F>
void dispatch_kernel(std::size_t law, Formulation formulation, fem::CorotationalTangent tangent, bool project_spd,
                     F&& f) {
  dispatch_law(law, [&](auto law_tag) {
    using M = typename decltype(law_tag)::type;
    dispatch_formulation<M>(formulation, tangent, project_spd, [&](auto form_tag) { f(law_tag, form_tag); });
  });
}

}  // namespace softik::assembly
