// Writers (mesh_io.hpp): VTK XML UnstructuredGrid (.vtu: appended raw binary, zlib-compressed or
// not, or ASCII) and the ParaView collection (.pvd) of a time/load series. ASCII numbers are
// written by std::to_chars in the shortest form that reads back to the same double; binary ones
// as their little-endian bytes (vtu_binary.hpp); names and file names are XML-escaped.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <system_error>

#include "host/io/atomic_file.hpp"
#include "host/io/mesh_io_common.hpp"
#include "host/io/vtu_binary.hpp"
#include "host/io/xml_escape.hpp"

namespace softik {

namespace {

int vtk_type(CellType t) {
  // in CellType's order: Edge2, Tri3, Quad4, Tet4, Hex8, Tet10 (VTK's quadratic tetra: softik's node order)
  constexpr int kVtkTypes[] = {3, 5, 9, 10, 12, 24};
  const int k = static_cast<int>(t);
  return k >= 0 && k < int(std::size(kVtkTypes)) ? kVtkTypes[k] : 0;
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

/// No non-finite number reaches a file (DESIGN.md 7): a position or field value that is NaN or
/// infinite is a numerical failure of the solve that made the state, named with its first entry.
void check_finite(const std::string& path, const std::vector<Real>& values, int components, const char* what,
                  const std::string& name) {
  for (size_t k = 0; k < values.size(); ++k)
    SOFTIK_CHECK_NUMERICAL(std::isfinite(values[k]),
                           path << ": not written: " << what << " " << k / static_cast<size_t>(components) << "'s "
                                << name << " is " << values[k]
                                << " (the state to write is not finite: the solve that produced it diverged; a "
                                   "smaller step, bounds on the actuators or a reachable goal keep it finite)");
}

void check_fields(const std::string& path, const std::vector<VtuField>& fields, size_t count, const char* what) {
  for (size_t k = 0; k < fields.size(); ++k) {
    const VtuField& f = fields[k];
    SOFTIK_CHECK(!f.name.empty(), path << ": " << what << " field " << k << " has an empty name: name it");
    SOFTIK_CHECK(f.components >= 1, path << ": " << what << " field '" << f.name << "' has " << f.components
                                         << " components, expected at least 1");
    SOFTIK_CHECK(f.values.size() == count * static_cast<size_t>(f.components),
                 path << ": " << what << " field '" << f.name << "' has " << f.values.size() << " values, expected "
                      << count << " " << what << "s x " << f.components
                      << " components = " << count * static_cast<size_t>(f.components));
  }
}

// One DataArray as write_vtu writes it: its values as ASCII text or as little-endian bytes.
class ArrayWriter {
 public:
  ArrayWriter(VtuEncoding encoding, std::string* xml) : encoding_(encoding), xml_(*xml) {}

  void reals(const char* name, int components, size_t count, const std::function<double(size_t)>& value) {
    open("Float64", name, components);
    if (encoding_ == VtuEncoding::Ascii) {
      for (size_t k = 0; k < count; ++k)
        put(xml_, value(k), (k + 1) % static_cast<size_t>(components) == 0 ? '\n' : ' ');
    } else {
      bytes_.clear();
      bytes_.reserve(8 * count);
      for (size_t k = 0; k < count; ++k) mesh_io::put_le_double(bytes_, value(k));
    }
    close();
  }

  // Int64 (bytes = 8) or UInt8 (bytes = 1) values, `per_line` to a line in ASCII.
  void integers(const char* type, int bytes, const char* name, size_t count, size_t per_line,
                const std::function<long long(size_t)>& value) {
    open(type, name, 1);
    if (encoding_ == VtuEncoding::Ascii) {
      for (size_t k = 0; k < count; ++k) put(xml_, value(k), (k + 1) % per_line == 0 ? '\n' : ' ');
    } else {
      bytes_.clear();
      bytes_.reserve(static_cast<size_t>(bytes) * count);
      for (size_t k = 0; k < count; ++k) mesh_io::put_le(bytes_, static_cast<std::uint64_t>(value(k)), bytes);
    }
    close();
  }

  /// The <AppendedData> element and the end of the file (after the last array).
  std::string finish() const {
    if (encoding_ == VtuEncoding::Ascii) return "</VTKFile>\n";
    std::string tail = "  <AppendedData encoding=\"raw\">\n   _";
    tail += appended_;
    tail += "\n  </AppendedData>\n</VTKFile>\n";
    return tail;
  }

 private:
  void open(const char* type, const char* name, int components) {
    xml_ += std::string("        <DataArray type=\"") + type + "\" Name=\"" + detail::xml_escape(name) + "\"";
    xml_ += " NumberOfComponents=\"" + std::to_string(components) + "\"";
    if (encoding_ == VtuEncoding::Ascii)
      xml_ += " format=\"ascii\">\n";
    else
      xml_ += " format=\"appended\" offset=\"" + std::to_string(appended_.size()) + "\"/>\n";
  }

  void close() {
    if (encoding_ == VtuEncoding::Ascii)
      xml_ += "        </DataArray>\n";
    else
      mesh_io::append_vtu_block(appended_, bytes_, encoding_ == VtuEncoding::Compressed);
  }

  VtuEncoding encoding_;
  std::string& xml_;
  std::string bytes_, appended_;
};

}  // namespace

const char* vtu_encoding_name(VtuEncoding encoding) {
  constexpr const char* kNames[] = {"compressed", "binary", "ascii"};  // in VtuEncoding's order
  const int k = static_cast<int>(encoding);
  return k >= 0 && k < int(std::size(kNames)) ? kNames[k] : "compressed";
}

void write_vtu(const std::string& path, const Mesh& mesh, const std::vector<Real>& x,
               const std::vector<VtuField>& point_fields, const std::vector<VtuField>& cell_fields,
               const VtuOptions& options) {
  SOFTIK_CHECK(mesh.dim >= 1 && mesh.dim <= 3, path << ": mesh dimension " << mesh.dim << " is not 1, 2 or 3");
  SOFTIK_CHECK(x.size() == static_cast<size_t>(mesh.num_dofs()),
               path << ": the positions x have " << x.size() << " entries, expected num_dofs = " << mesh.num_dofs()
                    << " (" << mesh.num_nodes() << " nodes x dim " << mesh.dim << ")");
  const int npc = nodes_per_cell(mesh.cell_type);
  SOFTIK_CHECK(mesh.cells.size() % static_cast<size_t>(npc) == 0,
               path << ": the connectivity has " << mesh.cells.size() << " entries, not a multiple of " << npc);
  SOFTIK_CHECK(
      options.encoding == VtuEncoding::Compressed || options.encoding == VtuEncoding::Binary ||
          options.encoding == VtuEncoding::Ascii,
      path << ": VtuOptions::encoding " << static_cast<int>(options.encoding) << " is not Compressed, Binary or Ascii");
  check_fields(path, point_fields, static_cast<size_t>(mesh.num_nodes()), "point");
  check_fields(path, cell_fields, static_cast<size_t>(mesh.num_cells()), "cell");
  check_finite(path, x, mesh.dim, "node", "position");
  for (const VtuField& f : point_fields) check_finite(path, f.values, f.components, "node", "'" + f.name + "'");
  for (const VtuField& f : cell_fields) check_finite(path, f.values, f.components, "cell", "'" + f.name + "'");
  const bool ascii = options.encoding == VtuEncoding::Ascii;
  std::string out;
  out.reserve((ascii ? 64 : 2) * (static_cast<size_t>(mesh.num_nodes()) + mesh.cells.size()) + 1024);
  out += "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\"";
  if (!ascii) out += " header_type=\"UInt64\"";
  if (options.encoding == VtuEncoding::Compressed) out += " compressor=\"vtkZLibDataCompressor\"";
  out += ">\n  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"" + std::to_string(mesh.num_nodes()) +
         "\" NumberOfCells=\"" + std::to_string(mesh.num_cells()) + "\">\n      <Points>\n";
  ArrayWriter arrays(options.encoding, &out);
  const size_t nodes = static_cast<size_t>(mesh.num_nodes()), cells = static_cast<size_t>(mesh.num_cells());
  arrays.reals("Points", 3, 3 * nodes, [&](size_t k) {
    const size_t n = k / 3, i = k % 3;
    return i < static_cast<size_t>(mesh.dim) ? x[n * mesh.dim + i] : 0.0;
  });
  out += "      </Points>\n      <Cells>\n";
  arrays.integers("Int64", 8, "connectivity", mesh.cells.size(), static_cast<size_t>(npc),
                  [&](size_t k) { return static_cast<long long>(mesh.cells[k]); });
  arrays.integers("Int64", 8, "offsets", cells, 1, [&](size_t c) { return static_cast<long long>(c + 1) * npc; });
  const long long type = vtk_type(mesh.cell_type);
  arrays.integers("UInt8", 1, "types", cells, 1, [&](size_t) { return type; });
  out += "      </Cells>\n      <PointData>\n";
  for (const VtuField& f : point_fields)
    arrays.reals(f.name.c_str(), f.components, f.values.size(), [&](size_t k) { return f.values[k]; });
  out += "      </PointData>\n      <CellData>\n";
  for (const VtuField& f : cell_fields)
    arrays.reals(f.name.c_str(), f.components, f.values.size(), [&](size_t k) { return f.values[k]; });
  out += "      </CellData>\n    </Piece>\n  </UnstructuredGrid>\n";
  out += arrays.finish();
  detail::write_atomically(path, out);
}

PvdWriter::PvdWriter(std::string path) : path_(std::move(path)) {}

void PvdWriter::add(double t, const std::string& vtu_file) {
  SOFTIK_CHECK(std::isfinite(t), path_ << ": time value " << t << " of '" << vtu_file << "' is not finite");
  SOFTIK_CHECK(!vtu_file.empty(), path_ << ": an empty .vtu file name at time " << t);
  entries_.emplace_back(t, vtu_file);
}

void PvdWriter::write() const {
  std::string out =
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
      "byte_order=\"LittleEndian\">\n  <Collection>\n";
  for (const auto& [t, file] : entries_) {
    out += "    <DataSet timestep=\"";
    put(out, t, '"');
    out += " group=\"\" part=\"0\" file=\"" + detail::xml_escape(file) + "\"/>\n";
  }
  out += "  </Collection>\n</VTKFile>\n";
  detail::write_atomically(path_, out);
}

}  // namespace softik
