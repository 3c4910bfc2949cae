// Writers (mesh_io.hpp): VTK XML UnstructuredGrid (.vtu, ASCII, Float64) and the ParaView
// collection (.pvd) of a time/load series. Numbers are written by std::to_chars in the shortest
// form that reads back to the same double; names and file names are XML-escaped.
#include <cerrno>
#include <cstring>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "host/io/atomic_file.hpp"
#include "host/io/mesh_io_common.hpp"

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

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// Appends the shortest decimal form of v that reads back to the same double ("nan"/"inf" for
// non-finite values), then `sep`.
void put(std::string& out, double v, char sep) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
  out += sep;
}

void put(std::string& out, long long v, char sep) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
  out += sep;
}

void put_field(std::string& out, const VtuField& f) {
  out += "        <DataArray type=\"Float64\" Name=\"" + xml_escape(f.name) + "\" NumberOfComponents=\"" +
         std::to_string(f.components) + "\" format=\"ascii\">\n";
  for (size_t k = 0; k < f.values.size(); ++k)
    put(out, f.values[k], (k + 1) % static_cast<size_t>(f.components) == 0 ? '\n' : ' ');
  out += "        </DataArray>\n";
}

void check_fields(const std::string& path, const std::vector<VtuField>& fields, size_t count, const char* what) {
  for (size_t k = 0; k < fields.size(); ++k) {
    const VtuField& f = fields[k];
    SOFTIK_CHECK(!f.name.empty(), path << ": " << what << " field " << k << " has an empty name: name it");
    SOFTIK_CHECK(f.components >= 1, path << ": " << what << " field '" << f.name << "' has " << f.components
                                         << " components, expected at least 1");
    SOFTIK_CHECK(f.values.size() == count * static_cast<size_t>(f.components),
                 path << ": " << what << " field '" << f.name << "' has " << f.values.size() << " values, expected "
                      << count << " " << what << "s x " << f.components << " components = "
                      << count * static_cast<size_t>(f.components));
  }
}

}  // namespace

void write_vtu(const std::string& path, const Mesh& mesh, const std::vector<Real>& x,
               const std::vector<VtuField>& point_fields, const std::vector<VtuField>& cell_fields) {
  SOFTIK_CHECK(mesh.dim >= 1 && mesh.dim <= 3, path << ": mesh dimension " << mesh.dim << " is not 1, 2 or 3");
  SOFTIK_CHECK(x.size() == static_cast<size_t>(mesh.num_dofs()),
               path << ": the positions x have " << x.size() << " entries, expected num_dofs = " << mesh.num_dofs()
                    << " (" << mesh.num_nodes() << " nodes x dim " << mesh.dim << ")");
  const int npc = nodes_per_cell(mesh.cell_type);
  SOFTIK_CHECK(mesh.cells.size() % static_cast<size_t>(npc) == 0,
               path << ": the connectivity has " << mesh.cells.size() << " entries, not a multiple of " << npc);
  check_fields(path, point_fields, static_cast<size_t>(mesh.num_nodes()), "point");
  check_fields(path, cell_fields, static_cast<size_t>(mesh.num_cells()), "cell");
  std::string out;
  out.reserve(64 * (static_cast<size_t>(mesh.num_nodes()) + mesh.cells.size()) + 1024);
  out += "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
         "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"" +
         std::to_string(mesh.num_nodes()) + "\" NumberOfCells=\"" + std::to_string(mesh.num_cells()) +
         "\">\n      <Points>\n        <DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" "
         "format=\"ascii\">\n";
  for (int n = 0; n < mesh.num_nodes(); ++n)
    for (int i = 0; i < 3; ++i)
      put(out, i < mesh.dim ? x[static_cast<size_t>(n) * mesh.dim + i] : 0.0, i == 2 ? '\n' : ' ');
  out += "        </DataArray>\n      </Points>\n      <Cells>\n"
         "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  for (size_t k = 0; k < mesh.cells.size(); ++k)
    put(out, static_cast<long long>(mesh.cells[k]), (k + 1) % static_cast<size_t>(npc) == 0 ? '\n' : ' ');
  out += "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  for (int c = 0; c < mesh.num_cells(); ++c) put(out, static_cast<long long>(c + 1) * npc, '\n');
  out += "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
  for (int c = 0; c < mesh.num_cells(); ++c) put(out, static_cast<long long>(vtk_type(mesh.cell_type)), '\n');
  out += "        </DataArray>\n      </Cells>\n      <PointData>\n";
  for (const VtuField& f : point_fields) put_field(out, f);
  out += "      </PointData>\n      <CellData>\n";
  for (const VtuField& f : cell_fields) put_field(out, f);
  out += "      </CellData>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n";
  detail::write_atomically(path, out);
}

PvdWriter::PvdWriter(std::string path) : path_(std::move(path)) {}

void PvdWriter::add(double t, const std::string& vtu_file) {
  SOFTIK_CHECK(std::isfinite(t), path_ << ": time value " << t << " of '" << vtu_file << "' is not finite");
  SOFTIK_CHECK(!vtu_file.empty(), path_ << ": an empty .vtu file name at time " << t);
  entries_.emplace_back(t, vtu_file);
}

void PvdWriter::write() const {
  std::string out = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
                    "byte_order=\"LittleEndian\">\n  <Collection>\n";
  for (const auto& [t, file] : entries_) {
    out += "    <DataSet timestep=\"";
    put(out, t, '"');
    out += " group=\"\" part=\"0\" file=\"" + xml_escape(file) + "\"/>\n";
  }
  out += "  </Collection>\n</VTKFile>\n";
  detail::write_atomically(path_, out);
}

}  // namespace softik
