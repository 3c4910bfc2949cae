// Writers (mesh_io.hpp): VTK XML UnstructuredGrid (.vtu, ASCII, Float64) and the ParaView
// collection (.pvd) of a time/load series. Numbers are written with 17 significant digits, which
// read back to the same double.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include "mesh_io_common.hpp"

namespace softik {

namespace {

int vtk_type(CellType t) {
  switch (t) {
    case CellType::Edge2: return 3;
    case CellType::Tri3: return 5;
    case CellType::Quad4: return 9;
    case CellType::Tet4: return 10;
    case CellType::Hex8: return 12;
  }
  return 0;
}

void write_field(std::ostream& o, const VtuField& f) {
  o << "        <DataArray type=\"Float64\" Name=\"" << f.name << "\" NumberOfComponents=\"" << f.components
    << "\" format=\"ascii\">\n";
  for (size_t k = 0; k < f.values.size(); ++k)
    o << f.values[k] << ((k + 1) % static_cast<size_t>(f.components) == 0 ? '\n' : ' ');
  o << "        </DataArray>\n";
}

void check_fields(const std::string& path, const std::vector<VtuField>& fields, size_t count, const char* what) {
  for (const VtuField& f : fields) {
    SOFTIK_CHECK(!f.name.empty() && f.name.find_first_of("\"<>&") == std::string::npos,
                 path << ": a " << what << " field has an empty name or one with XML characters (\" < > &)");
    SOFTIK_CHECK(f.components >= 1 && f.values.size() == count * static_cast<size_t>(f.components),
                 path << ": " << what << " field '" << f.name << "' has " << f.values.size() << " values, expected "
                      << count << " x " << f.components);
  }
}

/// Writes through a temporary file renamed over `path`, so that a reader never sees half a file.
template <class Body>
void write_atomically(const std::string& path, Body&& body) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp);
    SOFTIK_CHECK(o.good(), path << ": cannot write the file (does its folder exist and is it writable?)");
    o << std::setprecision(17);
    body(o);
    o.flush();
    SOFTIK_CHECK(o.good(), path << ": writing failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  SOFTIK_CHECK(!ec, path << ": cannot replace the file (" << ec.message() << ")");
}

}  // namespace

void write_vtu(const std::string& path, const Mesh& mesh, const std::vector<Real>& x,
               const std::vector<VtuField>& point_fields, const std::vector<VtuField>& cell_fields) {
  SOFTIK_CHECK(x.size() == static_cast<size_t>(mesh.num_dofs()),
               path << ": positions have " << x.size() << " entries, expected num_dofs = " << mesh.num_dofs());
  check_fields(path, point_fields, static_cast<size_t>(mesh.num_nodes()), "point");
  check_fields(path, cell_fields, static_cast<size_t>(mesh.num_cells()), "cell");
  const int npc = nodes_per_cell(mesh.cell_type);
  write_atomically(path, [&](std::ostream& o) {
    o << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      << "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"" << mesh.num_nodes() << "\" NumberOfCells=\""
      << mesh.num_cells() << "\">\n      <Points>\n"
      << "        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n";
    for (int n = 0; n < mesh.num_nodes(); ++n)
      for (int i = 0; i < 3; ++i)
        o << (i < mesh.dim ? x[static_cast<size_t>(n) * mesh.dim + i] : 0.0) << (i == 2 ? '\n' : ' ');
    o << "        </DataArray>\n      </Points>\n      <Cells>\n"
      << "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
    for (int c = 0; c < mesh.num_cells(); ++c)
      for (int a = 0; a < npc; ++a) o << mesh.cell(c)[a] << (a + 1 == npc ? '\n' : ' ');
    o << "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
    for (int c = 0; c < mesh.num_cells(); ++c) o << static_cast<long long>(c + 1) * npc << '\n';
    o << "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
    for (int c = 0; c < mesh.num_cells(); ++c) o << vtk_type(mesh.cell_type) << '\n';
    o << "        </DataArray>\n      </Cells>\n      <PointData>\n";
    for (const VtuField& f : point_fields) write_field(o, f);
    o << "      </PointData>\n      <CellData>\n";
    for (const VtuField& f : cell_fields) write_field(o, f);
    o << "      </CellData>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n";
  });
}

PvdWriter::PvdWriter(std::string path) : path_(std::move(path)) {}

void PvdWriter::add(double t, const std::string& vtu_file) {
  SOFTIK_CHECK(std::isfinite(t), path_ << ": time value " << t << " is not finite");
  entries_.emplace_back(t, vtu_file);
}

void PvdWriter::write() const {
  write_atomically(path_, [&](std::ostream& o) {
    o << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
    for (const auto& [t, file] : entries_)
      o << "    <DataSet timestep=\"" << t << "\" part=\"0\" file=\"" << file << "\"/>\n";
    o << "  </Collection>\n</VTKFile>\n";
  });
}

}  // namespace softik
