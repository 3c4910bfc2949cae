// The per-cell loops of Assembler, instantiated once per element trait and material law.
// Private to host/. The physics is the single-source headers in include/softik/fem/; this file
// only loops over cells (colour by colour; the cell blocks of a colour in parallel with OpenMP,
// the cells of a block in order) and scatters element results through the precomputed
// element -> CSR slot map.
#pragma once

#include <memory>
#include <vector>

#include "softik/assembly.hpp"
#include "softik/fem/corotational_element.hpp"
#include "softik/fem/hyperelastic_element.hpp"
#include "softik/fem/stress_measures.hpp"

namespace softik {

/// Read-only description of the cells and their colouring handed to the kernels.
struct CellLoop {
  const Mesh* mesh = nullptr;
  const int* color_ptr = nullptr;     ///< blocks of colour k: color_blocks[color_ptr[k] .. color_ptr[k+1])
  const int* color_blocks = nullptr;  ///< block b holds cells [b*block_size, (b+1)*block_size)
  int num_colors = 0;
  const int* slots = nullptr;  ///< per cell, (npc*dim)^2 entries
  int num_threads = 1;
  int block_size = 1024;
};

class ElementKernels {
 public:
  virtual ~ElementKernels() = default;
  /// cell_energy: num_cells (or null); force: num_dofs, accumulated; K: nnz, accumulated.
  virtual void assemble(const CellLoop& loop, const Real* x, Real* cell_energy, Real* force, Real* K) const = 0;
  virtual void von_mises(const CellLoop& loop, const Real* x, Real* out) const = 0;
  virtual void lumped_mass(const CellLoop& loop, Real density, Real* out) const = 0;
};

/// Builds the kernels for `mesh.cell_type`, the law held by `materials` and the options.
std::unique_ptr<ElementKernels> make_element_kernels(const Mesh& mesh, const std::vector<Material>& materials,
                                                     const AssemblyOptions& options);

/// Per element trait (host/element_kernels_<trait>.cpp).
template <class E>
std::unique_ptr<ElementKernels> make_element_kernels_for(const Mesh& mesh, const std::vector<Material>& materials,
                                                         const AssemblyOptions& options);

}  // namespace softik
