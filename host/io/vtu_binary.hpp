// The binary encodings of VTK XML DataArrays (mesh_io.hpp): VTK's block of bytes behind a size
// header, uncompressed ([byte count] + bytes) or zlib-compressed ([blocks, block size, size of
// the last partial block or 0, compressed size of each block] + the zlib streams), with header
// integers of 4 (UInt32) or 8 (UInt64) bytes, little-endian; and base64 text. Written by
// write_vtu (mesh_io_write.cpp), read by read_vtu (mesh_io_vtu.cpp). Every malformed input is a
// softik::Error naming the file, the DataArray's line and name, and what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host/io/mesh_io_common.hpp"

namespace softik::mesh_io {

/// Uncompressed size of the zlib blocks write_vtu writes (VTK's default block size).
constexpr size_t kVtuBlockSize = 32768;

/// Appends v as `bytes` little-endian bytes (bytes <= 8).
void put_le(std::string& out, std::uint64_t v, int bytes);
/// Appends the IEEE-754 double v as 8 little-endian bytes.
void put_le_double(std::string& out, double v);
/// The unsigned little-endian integer of `bytes` bytes at p.
std::uint64_t get_le(const char* p, int bytes);

/// Appends `bytes` as one VTK binary block with a UInt64 header: uncompressed, or zlib-compressed
/// in blocks of kVtuBlockSize at level 1 (Z_BEST_SPEED: on a 240k-tetrahedron box with three
/// fields, 1% larger than zlib's default level 6 and 2.8x faster to write, 0.32 s instead of 0.90 s).
void append_vtu_block(std::string& out, std::string_view bytes, bool compress);

/// How the binary DataArrays of a .vtu are laid out (the <VTKFile> attributes header_type and
/// compressor), and the DataArray being read (for error messages).
struct VtuBlockContext {
  int header_bytes = 4;     ///< 4 (header_type UInt32, VTK's default) or 8 (UInt64)
  bool compressed = false;  ///< compressor="vtkZLibDataCompressor"
  Where where;              ///< the file and the line of the <DataArray> tag
  std::string array;        ///< the DataArray's Name
};

/// Decodes the block at the start of `data` into `out` (the array's bytes, uncompressed) and
/// returns how many bytes of `data` the block takes (header included). Throws naming the
/// DataArray when the header declares more bytes than `data` holds, the sizes are inconsistent,
/// or zlib finds a block corrupt, short or long.
size_t decode_vtu_block(std::string_view data, const VtuBlockContext& context, std::string* out);

/// The bytes the block at the start of `data` takes (header included), checked against
/// data.size() as decode_vtu_block does, without decompressing.
size_t vtu_block_extent(std::string_view data, const VtuBlockContext& context);

/// Decodes base64 text (whitespace ignored; padded groups may be followed by more groups, as VTK
/// writes a header and its data as two base64 runs). Throws naming the DataArray on a character
/// outside the base64 alphabet or an incomplete last group.
std::string decode_base64(std::string_view text, const VtuBlockContext& context);

/// The values in `bytes` (little-endian, of the DataArray type `type`: Int8 ... UInt64, Float32,
/// Float64) as integers (into *ints, when `integers`: the Cells arrays) or as doubles (*reals).
/// Throws naming the DataArray on another type, a byte count that is not a whole number of
/// values, a real type where integers are needed, or an UInt64 beyond the range of long long.
void vtu_values(const std::string& bytes, const std::string& type, bool integers, const VtuBlockContext& context,
                std::vector<double>* reals, std::vector<long long>* ints);

}  // namespace softik::mesh_io
