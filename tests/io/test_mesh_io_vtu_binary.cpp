// Binary .vtu (mesh_io.hpp, host/io/vtu_binary.hpp): write_vtu's three encodings read back
// bit for bit; the compressed layout checked against VTK's definition ([blocks, block size, last
// partial size, compressed sizes] in UInt64); the other layouts VTK and ParaView write (inline
// base64, appended base64, UInt32 headers) made from our files by a converter in this test and
// read to the same numbers; a file written by meshio; damaged files refused with an Error naming
// the file and the DataArray. (Reading our files with meshio: tests/python/test_vtu_meshio.py.)
#include "tests/mesh_io_fixtures.hpp"

namespace softik::mesh_io_test {
namespace {

const VtuEncoding kEncodings[] = {VtuEncoding::Compressed, VtuEncoding::Binary, VtuEncoding::Ascii};

struct Written {
  Mesh mesh;
  std::vector<Real> x;
  VtuField u, s;
};

// A box with perturbed positions, a point field (with a negative zero and a subnormal) and a cell field.
Written sample(CellType type, std::array<int, 3> cells) {
  BoxSpec spec;
  spec.size = {1.0 / 3.0, 0.2, 0.7};
  spec.cells = cells;
  Written w{make_box(3, type, spec), {}, {"displacement", 3, {}}, {"von \"Mises\" <Pa>", 1, {}}};
  w.x = w.mesh.rest_positions();
  for (size_t k = 0; k < w.x.size(); ++k) w.x[k] += 1e-3 * std::sin(static_cast<Real>(k));
  for (size_t k = 0; k < w.x.size(); ++k) w.u.values.push_back(w.x[k] - w.mesh.X[k]);
  w.u.values[1] = -0.0;
  w.u.values[2] = 4.9e-324;  // the smallest subnormal
  // Finite for any cell count (write_vtu refuses non-finite values; exp(0.1 c) overflowed past 7,097 cells).
  for (int c = 0; c < w.mesh.num_cells(); ++c) w.s.values.push_back(std::exp((c % 1000) * 0.1) * 1e5 + 1.0 / 3.0);
  return w;
}

std::string write(const Written& w, const std::string& name, VtuEncoding encoding) {
  const std::string path = (temp_dir() / name).string();
  write_vtu(path, w.mesh, w.x, {w.u}, {w.s}, VtuOptions{encoding});
  return path;
}

// Bit-for-bit equality of doubles (EXPECT_EQ on vectors would let -0.0 == 0.0 pass).
void expect_bits(const std::vector<Real>& a, const std::vector<Real>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Real)), 0) << what;
}

void expect_read_back(const Written& w, const std::string& path) {
  const MeshData back = read_mesh_data(path);
  EXPECT_EQ(back.mesh.dim, 3) << path;
  EXPECT_EQ(back.mesh.cell_type, w.mesh.cell_type) << path;
  EXPECT_EQ(back.mesh.cells, w.mesh.cells) << path;
  expect_bits(back.mesh.X, w.x, path + ": points");
  ASSERT_EQ(back.point_fields.size(), 1u) << path;
  EXPECT_EQ(back.point_fields[0].name, w.u.name);
  EXPECT_EQ(back.point_fields[0].components, 3);
  expect_bits(back.point_fields[0].values, w.u.values, path + ": displacement");
  ASSERT_EQ(back.cell_fields.size(), 1u) << path;
  EXPECT_EQ(back.cell_fields[0].name, w.s.name);
  expect_bits(back.cell_fields[0].values, w.s.values, path + ": von Mises");
}

TEST(MeshIoVtu, EveryEncodingReadsBackBitForBit) {
  for (CellType type : {CellType::Hex8, CellType::Tet4}) {
    const Written w = sample(type, {3, 2, 2});
    for (VtuEncoding encoding : kEncodings) {
      const std::string path = write(w, std::string("encoding_") + vtu_encoding_name(encoding) + ".vtu", encoding);
      expect_read_back(w, path);
      const std::string text = read_text(path);
      const bool ascii = encoding == VtuEncoding::Ascii;
      EXPECT_EQ(text.find("format=\"ascii\"") != std::string::npos, ascii) << path;
      EXPECT_EQ(text.find("<AppendedData encoding=\"raw\">\n   _") != std::string::npos, !ascii) << path;
      EXPECT_EQ(text.find("header_type=\"UInt64\"") != std::string::npos, !ascii) << path;
      EXPECT_EQ(text.find("compressor=\"vtkZLibDataCompressor\"") != std::string::npos,
                encoding == VtuEncoding::Compressed)
          << path;
      EXPECT_NE(text.find("<DataArray type=\"UInt8\" Name=\"types\""), std::string::npos) << path;
      EXPECT_NE(text.find("<DataArray type=\"Int64\" Name=\"connectivity\""), std::string::npos) << path;
      EXPECT_FALSE(fs::exists(path + ".tmp"));
    }
    // The default is the compressed encoding.
    const std::string by_default = (temp_dir() / "default.vtu").string();
    write_vtu(by_default, w.mesh, w.x, {w.u}, {w.s});
    EXPECT_EQ(read_text(by_default), read_text(write(w, "explicit.vtu", VtuEncoding::Compressed)));
  }
  EXPECT_STREQ(vtu_encoding_name(VtuEncoding::Compressed), "compressed");
  EXPECT_STREQ(vtu_encoding_name(VtuEncoding::Binary), "binary");
  EXPECT_STREQ(vtu_encoding_name(VtuEncoding::Ascii), "ascii");
}

std::uint64_t le(const std::string& s, size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[at + k])) << (8 * k);
  return v;
}

// One appended DataArray of a file write_vtu wrote: its offset attribute and block.
struct AppendedBlock {
  size_t offset;      // its offset attribute
  std::string bytes;  // the block, header included
};

// The start of the appended data (after '_') and its blocks, in file order.
std::vector<AppendedBlock> blocks_of(const std::string& file, bool compressed, size_t* data_start) {
  *data_start =
      file.find("<AppendedData encoding=\"raw\">\n   _") + std::strlen("<AppendedData encoding=\"raw\">\n   _");
  std::vector<AppendedBlock> blocks;
  for (size_t p = file.find("offset=\""); p < *data_start; p = file.find("offset=\"", p + 1)) {
    AppendedBlock b;
    b.offset = std::stoul(file.substr(p + 8, file.find('"', p + 8) - p - 8));
    const size_t at = *data_start + b.offset;
    size_t size = 8 + le(file, at, 8);
    if (compressed) {
      const size_t n = le(file, at, 8);
      size = 8 * (3 + n);
      for (size_t k = 0; k < n; ++k) size += le(file, at + 8 * (3 + k), 8);
    }
    b.bytes = file.substr(at, size);
    blocks.push_back(b);
  }
  return blocks;
}

TEST(MeshIoVtu, CompressedBlocksFollowVtkLayoutAndAreSmallerThanRaw) {
  // 32^3 hexahedra: the types array is exactly one full 32 KiB block (last partial size 0), the
  // points array (35937 x 24 bytes) 27 blocks, the last one partial.
  const Written w = sample(CellType::Hex8, {32, 32, 32});
  const std::string raw_path = write(w, "big_raw.vtu", VtuEncoding::Binary);
  const std::string zip_path = write(w, "big_zip.vtu", VtuEncoding::Compressed);
  expect_read_back(w, raw_path);
  expect_read_back(w, zip_path);
  const std::string raw = read_text(raw_path), zip = read_text(zip_path);
  size_t raw_start = 0, zip_start = 0;
  const std::vector<AppendedBlock> raw_blocks = blocks_of(raw, false, &raw_start),
                                   zip_blocks = blocks_of(zip, true, &zip_start);
  ASSERT_EQ(raw_blocks.size(), 6u);  // points, connectivity, offsets, types, displacement, von Mises
  ASSERT_EQ(zip_blocks.size(), 6u);
  size_t raw_next = 0, zip_next = 0;
  for (size_t a = 0; a < 6; ++a) {
    EXPECT_EQ(raw_blocks[a].offset, raw_next) << a << ": arrays follow each other";
    EXPECT_EQ(zip_blocks[a].offset, zip_next) << a;
    raw_next += raw_blocks[a].bytes.size();
    zip_next += zip_blocks[a].bytes.size();
    const std::uint64_t size = raw_blocks[a].bytes.size() - 8;  // the uncompressed array
    const std::string& z = zip_blocks[a].bytes;
    EXPECT_EQ(le(z, 0, 8), (size + 32767) / 32768) << a << ": number of blocks";
    EXPECT_EQ(le(z, 8, 8), 32768u) << a << ": block size";
    EXPECT_EQ(le(z, 16, 8), size % 32768) << a << ": size of the last partial block (0: full)";
    for (size_t k = 0; k < le(z, 0, 8); ++k) {
      const size_t first = 8 * (3 + le(z, 0, 8));
      size_t before = 0;
      for (size_t j = 0; j < k; ++j) before += le(z, 8 * (3 + j), 8);
      EXPECT_EQ(static_cast<unsigned char>(z[first + before]), 0x78u) << a << ": block " << k << " is a zlib stream";
    }
  }
  EXPECT_EQ(zip_blocks[3].bytes.size(), 8 * 4 + le(zip_blocks[3].bytes, 24, 8));  // types: one block
  EXPECT_EQ(le(zip_blocks[3].bytes, 16, 8), 0u);
  EXPECT_EQ(raw.substr(raw_start + raw_next), "\n  </AppendedData>\n</VTKFile>\n");
  EXPECT_EQ(zip.substr(zip_start + zip_next), "\n  </AppendedData>\n</VTKFile>\n");
  const std::string ascii_path = write(w, "big_ascii.vtu", VtuEncoding::Ascii);
  const auto ascii_size = fs::file_size(ascii_path), raw_size = fs::file_size(raw_path),
             zip_size = fs::file_size(zip_path);
  std::printf("32^3 hex box (35937 nodes, 32768 cells): ascii %ju B, binary %ju B, compressed %ju B (%.2f of binary)\n",
              static_cast<std::uintmax_t>(ascii_size), static_cast<std::uintmax_t>(raw_size),
              static_cast<std::uintmax_t>(zip_size), static_cast<double>(zip_size) / static_cast<double>(raw_size));
  EXPECT_LT(zip_size, raw_size * 3 / 4);
  EXPECT_LT(raw_size, ascii_size);
}

std::string base64(const std::string& bytes) {
  static const char* const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = 0;
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    for (size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (size_t k = 0; k < 4; ++k) out += k <= n ? digits[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

// A block with its UInt64 header integers rewritten as UInt32.
std::string to_uint32_header(const std::string& block, bool compressed) {
  const size_t items = compressed ? 3 + le(block, 0, 8) : 1;
  std::string out;
  for (size_t k = 0; k < items; ++k) out += le_bytes(le(block, 8 * k, 8), 4);
  return out + block.substr(8 * items);
}

enum class Layout { InlineBase64, AppendedBase64, AppendedRaw };

// Our appended raw file rewritten in another of VTK's layouts, with UInt32 or UInt64 headers. As
// VTK does, base64 encodes the header and the data as two runs (each padded).
std::string convert(const std::string& file, bool compressed, Layout layout, int header_bytes) {
  size_t start = 0;
  const std::vector<AppendedBlock> blocks = blocks_of(file, compressed, &start);
  std::string out, appended;
  size_t copied = 0;
  for (const AppendedBlock& b : blocks) {
    const std::string block = header_bytes == 4 ? to_uint32_header(b.bytes, compressed) : b.bytes;
    const size_t header = static_cast<size_t>(header_bytes) * (compressed ? 3 + le(block, 0, header_bytes) : 1);
    const std::string text = base64(block.substr(0, header)) + base64(block.substr(header));
    const std::string attribute = "format=\"appended\" offset=\"" + std::to_string(b.offset) + "\"";
    const size_t at = file.find(attribute, copied);
    out += file.substr(copied, at - copied);
    copied = at + attribute.size();
    if (layout == Layout::InlineBase64) {
      out += "format=\"binary\">\n" + text + "\n        </DataArray";
      ++copied;  // the '/' of "/>"
    } else {
      out += "format=\"appended\" offset=\"" + std::to_string(appended.size()) + "\"";
      appended += layout == Layout::AppendedRaw ? block : text;
    }
  }
  const size_t appended_tag = file.find("  <AppendedData");
  out += file.substr(copied, appended_tag - copied);
  if (layout == Layout::InlineBase64) return out + "</VTKFile>\n";
  out += std::string("  <AppendedData encoding=\"") + (layout == Layout::AppendedRaw ? "raw" : "base64") + "\">\n   _";
  return out + appended + "\n  </AppendedData>\n</VTKFile>\n";
}

TEST(MeshIoVtu, InlineAndAppendedBase64AndUInt32HeadersReadToTheSameNumbers) {
  const Written w = sample(CellType::Tet4, {12, 12, 12});  // arrays of several 32 KiB blocks
  for (const bool compressed : {true, false}) {
    const std::string ours =
        read_text(write(w, "ours.vtu", compressed ? VtuEncoding::Compressed : VtuEncoding::Binary));
    for (const int header_bytes : {4, 8})
      for (const Layout layout : {Layout::InlineBase64, Layout::AppendedBase64, Layout::AppendedRaw}) {
        const std::string name = std::string(compressed ? "zlib" : "raw") + "_h" + std::to_string(header_bytes) + "_" +
                                 std::to_string(static_cast<int>(layout)) + ".vtu";
        std::string text = convert(ours, compressed, layout, header_bytes);
        if (header_bytes == 4) text = replace(text, "header_type=\"UInt64\"", "header_type=\"UInt32\"");
        if (layout == Layout::InlineBase64) {
          ASSERT_EQ(text.find("AppendedData"), std::string::npos) << name;
          ASSERT_NE(text.find("format=\"binary\">\n"), std::string::npos) << name;
        }
        SCOPED_TRACE(name);
        expect_read_back(w, temp_file(name, text));
      }
  }
}

TEST(MeshIoVtu, ReadsAFileWrittenByMeshio) {
  // tests/data/unit_cube_meshio.vtu: tests/data/unit_cube.msh written by meshio 5.3.5
  // (meshio.write(path, meshio.read(msh), binary=True): inline base64, zlib, UInt32 headers,
  // Float64 points, Int64 cells and cell data such as gmsh:physical; the 4 triangles come first,
  // then the 6 tetrahedra).
  const fs::path data = fs::path(SOFTIK_SOURCE_DIR) / "tests" / "data";
  const Mesh ascii = read_mesh((data / "unit_cube.msh").string());
  const MeshData m = read_mesh_data((data / "unit_cube_meshio.vtu").string());
  EXPECT_EQ(m.mesh.cell_type, CellType::Tet4);
  expect_bits(m.mesh.X, ascii.X, "points");
  EXPECT_EQ(m.mesh.cells, ascii.cells);
  ASSERT_EQ(m.mesh.surface_groups.at("vtk_faces").triangles.size(), 4u);
  bool physical = false;
  for (const VtuField& f : m.cell_fields)
    if (f.name == "gmsh:physical") {
      physical = true;
      EXPECT_EQ(f.values, std::vector<Real>(6, 3.0));  // the tetrahedra's physical volume "body"
    }
  EXPECT_TRUE(physical);
}

// ---- damaged files ---------------------------------------------------------------------------

// Reading `text` as `name` throws an Error whose message starts with the path and a line, and
// contains every piece of `what`.
void expect_damaged(const std::string& name, const std::string& text, const std::vector<std::string>& what) {
  const ReadFailure f = read_failure(name, text);
  if (!f.thrown) return;
  EXPECT_EQ(f.message.rfind(f.path + ":", 0), 0u) << name << ": " << f.message;
  EXPECT_EQ(f.kind, ErrorKind::Input) << name;
  for (const std::string& piece : what)
    EXPECT_NE(f.message.find(piece), std::string::npos) << name << ": '" << piece << "' in: " << f.message;
}

TEST(MeshIoVtu, DamagedBinaryDataNamesTheFileAndTheArray) {
  const Written w = sample(CellType::Hex8, {3, 2, 2});
  const std::string zip = read_text(write(w, "damage_zip.vtu", VtuEncoding::Compressed));
  const std::string raw = read_text(write(w, "damage_raw.vtu", VtuEncoding::Binary));
  size_t zs = 0, rs = 0;
  const std::vector<AppendedBlock> zb = blocks_of(zip, true, &zs), rb = blocks_of(raw, false, &rs);
  const std::string damaged = ": the binary data is damaged";
  // Truncated inside the points' first zlib block, inside a header, and just before the end tags.
  expect_damaged("cut_points.vtu", zip.substr(0, zs + 40),
                 {"DataArray 'Points'", "zlib block 1 of 1 declares", damaged});
  expect_damaged("cut_header.vtu", zip.substr(0, zs + zb[2].offset + 12),
                 {"DataArray 'offsets'", "the compression header needs 24 bytes, 12 remain", damaged});
  expect_damaged("cut_end.vtu", zip.substr(0, zip.size() - 12),
                 {"</AppendedData></VTKFile> does not follow", "truncated"});
  // The zlib header of the points' block overwritten, a compressed size too large and too small.
  const size_t first_stream = zs + 8 * 4;
  std::string bad = zip;
  bad[first_stream] = '\0';
  expect_damaged("zlib_header.vtu", bad,
                 {"DataArray 'Points'", "zlib block 1 of 1 is corrupt (zlib: incorrect header check)"});
  bad = zip;
  bad.replace(zs + 24, 8, le_bytes(le(zip, zs + 24, 8) - 10, 8));
  expect_damaged("zlib_short.vtu", bad, {"DataArray 'Points'", "ends before its zlib stream does"});
  bad = zip;
  bad.replace(zs + 16, 8, le_bytes(le(zip, zs + 16, 8) - 1, 8));  // the block decompresses to 1 byte more
  expect_damaged("zlib_long.vtu", bad, {"DataArray 'Points'", "decompresses to 864 bytes, its header declares 863"});
  bad.replace(zs + 16, 8, le_bytes(100, 8));
  expect_damaged("zlib_longer.vtu", bad,
                 {"DataArray 'Points'", "decompresses to more than the 100 bytes its header declares"});
  bad = zip;
  bad.replace(zs + 24, 8, le_bytes(1u << 30, 8));
  expect_damaged("zlib_size.vtu", bad, {"DataArray 'Points'", "declares 1073741824 compressed bytes, more than the"});
  bad = zip;
  bad.replace(zs, 8, le_bytes(~0ull, 8));
  expect_damaged("zlib_blocks.vtu", bad, {"DataArray 'Points'", "blocks, more than the"});
  // Uncompressed: a byte count beyond the file, one that is not a whole number of values.
  bad = raw;
  bad.replace(rs + rb[1].offset, 8, le_bytes(1ull << 40, 8));
  expect_damaged("raw_count.vtu", bad, {"DataArray 'connectivity'", "the size header declares 1099511627776 bytes"});
  bad = raw;
  bad.replace(rs, 8, le_bytes(le(raw, rs, 8) - 3, 8));
  expect_damaged("raw_partial.vtu", bad, {"DataArray 'Points'", "not a whole number of Float64 values"});
  // Attributes: an unknown type, a floating-point connectivity, other compressors, offsets, encodings.
  expect_damaged("type.vtu", replace(zip, "type=\"Float64\" Name=\"Points\"", "type=\"Float128\" Name=\"Points\""),
                 {"DataArray 'Points' has type \"Float128\", which softik does not read"});
  expect_damaged("float_cells.vtu",
                 replace(zip, "type=\"Int64\" Name=\"connectivity\"", "type=\"Float64\" Name=\"connectivity\""),
                 {"the <Cells> arrays need an integer type"});
  expect_damaged("lz4.vtu", replace(zip, "vtkZLibDataCompressor", "vtkLZ4DataCompressor"),
                 {"compressor \"vtkLZ4DataCompressor\" is not read"});
  expect_damaged("offset.vtu", replace(zip, "offset=\"" + std::to_string(zb[1].offset) + "\"", "offset=\"999999\""),
                 {"DataArray 'connectivity' has offset 999999, beyond the"});
  expect_damaged("encoding.vtu", replace(zip, "encoding=\"raw\"", "encoding=\"hex\""),
                 {"needs encoding=\"raw\" or \"base64\""});
  expect_damaged("big_endian.vtu", replace(zip, "LittleEndian", "BigEndian"), {"byte_order BigEndian"});
  expect_damaged("no_appended.vtu", zip.substr(0, zip.find("  <AppendedData")) + "</VTKFile>\n",
                 {"DataArray 'Points' has format \"appended\" but the file has no <AppendedData>"});
  // Base64: a character outside the alphabet, a text cut inside a group.
  std::string b64 = convert(zip, true, Layout::InlineBase64, 8);
  const size_t text_at = b64.find("format=\"binary\">\n") + std::strlen("format=\"binary\">\n");
  bad = b64;
  bad[text_at + 5] = '*';
  expect_damaged("b64_char.vtu", bad, {"DataArray 'Points'", "a character outside the base64 alphabet"});
  bad = b64;
  bad.erase(text_at + 2, 1);
  expect_damaged("b64_cut.vtu", bad, {"DataArray 'Points'", damaged});
}

// Every prefix and 600 random byte changes of a compressed and an uncompressed file read (to a
// mesh whose indices are in range) or throw softik::Error naming the file; nothing else escapes.
TEST(MeshIoVtu, TruncatedAndMutatedBinaryFilesReadOrThrowError) {
  const Written w = sample(CellType::Tet4, {1, 1, 2});
  std::mt19937 rng(20261126);
  int errors = 0, reads = 0;
  for (const VtuEncoding encoding : {VtuEncoding::Compressed, VtuEncoding::Binary}) {
    const std::string text = read_text(write(w, "fuzz_source.vtu", encoding));
    const std::string path = (temp_dir() / "fuzz_binary.vtu").string();
    std::vector<std::string> variants;
    for (size_t n = 0; n < text.size(); ++n) variants.push_back(text.substr(0, n));
    const size_t data = text.find("   _");
    for (int k = 0; k < 600; ++k) {
      std::string t = text;
      t[data + rng() % (t.size() - data)] = static_cast<char>(rng() & 0xff);
      variants.push_back(t);
    }
    read_or_error(variants, path, reads, errors);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(errors, 2000);
  EXPECT_GT(reads, 100);  // changes in the values themselves (positions, fields) still read
}

}  // namespace
}  // namespace softik::mesh_io_test
