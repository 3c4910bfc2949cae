// VTK binary DataArray blocks and base64 (vtu_binary.hpp).
#include "host/io/vtu_binary.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace softik::mesh_io {

namespace {

const char* const kDamaged =
    ": the binary data is damaged (a truncated or partly overwritten file?); write the file again";

#define SOFTIK_BLOCK_CHECK(cond, context, msg) \
  SOFTIK_PARSE_CHECK(cond, (context).where, "DataArray '" << (context).array << "': " << msg << kDamaged)

// Frees a z_stream however the decoding ends.
struct Inflater {
  z_stream zs{};
  bool open = false;
  ~Inflater() {
    if (open) inflateEnd(&zs);
  }
};

// Inflates the zlib stream in[0..csize) to exactly `usize` bytes appended to *out.
void inflate_block(const char* in, size_t csize, size_t usize, std::string* out, const VtuBlockContext& context,
                   size_t block, size_t blocks) {
  Inflater z;
  SOFTIK_CHECK_KIND(inflateInit(&z.zs) == Z_OK, ErrorKind::Internal,
                    "zlib could not start decompressing (out of memory?)");
  z.open = true;
  SOFTIK_BLOCK_CHECK(csize <= UINT_MAX, context,
                     "zlib block " << block + 1 << " of " << blocks << " declares " << csize
                                   << " compressed bytes, more than zlib reads at once");
  z.zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
  z.zs.avail_in = static_cast<uInt>(csize);
  const size_t start = out->size();
  const size_t cap = usize + 1;  // one byte more than declared: room to see a stream that is too long
  size_t room = std::min<size_t>(cap, 1 << 16);
  for (;;) {
    out->resize(start + room);
    z.zs.next_out = reinterpret_cast<Bytef*>(&(*out)[start + z.zs.total_out]);
    z.zs.avail_out = static_cast<uInt>(std::min<size_t>(room - z.zs.total_out, UINT_MAX));
    const int ret = inflate(&z.zs, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) break;
    const bool out_full = z.zs.avail_out == 0;
    if (ret == Z_OK || (ret == Z_BUF_ERROR && out_full)) {
      if (out_full) {
        SOFTIK_BLOCK_CHECK(room < cap, context,
                           "zlib block " << block + 1 << " of " << blocks << " decompresses to more than the " << usize
                                         << " bytes its header declares");
        room = std::min(cap, 2 * room);
      }
      continue;
    }
    SOFTIK_BLOCK_CHECK(ret != Z_BUF_ERROR, context,
                       "zlib block " << block + 1 << " of " << blocks << " ends before its zlib stream does (" << csize
                                     << " compressed bytes)");
    SOFTIK_BLOCK_CHECK(false, context,
                       "zlib block " << block + 1 << " of " << blocks << " is corrupt (zlib: "
                                     << (z.zs.msg ? z.zs.msg : "error " + std::to_string(ret)) << ")");
  }
  const size_t produced = z.zs.total_out;
  SOFTIK_BLOCK_CHECK(produced == usize, context,
                     "zlib block " << block + 1 << " of " << blocks << " decompresses to " << produced
                                   << " bytes, its header declares " << usize);
  SOFTIK_BLOCK_CHECK(z.zs.avail_in == 0, context,
                     "zlib block " << block + 1 << " of " << blocks << " has " << z.zs.avail_in
                                   << " bytes after the end of its zlib stream");
  out->resize(start + produced);
}

// The compressed block's header, checked against data.size().
struct ZHeader {
  size_t blocks = 0, block_size = 0, last = 0, header = 0, total = 0;  // total: header + compressed bytes
};

ZHeader read_zheader(std::string_view data, const VtuBlockContext& c) {
  const size_t H = static_cast<size_t>(c.header_bytes);
  SOFTIK_BLOCK_CHECK(data.size() >= 3 * H, c,
                     "the compression header needs " << 3 * H << " bytes, " << data.size() << " remain");
  ZHeader z;
  const std::uint64_t blocks = get_le(data.data(), c.header_bytes);
  const std::uint64_t block_size = get_le(data.data() + H, c.header_bytes);
  const std::uint64_t last = get_le(data.data() + 2 * H, c.header_bytes);
  SOFTIK_BLOCK_CHECK(blocks <= (data.size() - 3 * H) / H, c,
                     "the compression header declares " << blocks << " blocks, more than the " << data.size()
                                                        << " bytes left can describe");
  SOFTIK_BLOCK_CHECK(last <= block_size, c,
                     "the last block's size " << last << " exceeds the block size " << block_size);
  z.blocks = static_cast<size_t>(blocks);
  z.block_size = static_cast<size_t>(block_size);
  z.last = static_cast<size_t>(last);
  z.header = (3 + z.blocks) * H;
  size_t compressed = 0;
  for (size_t b = 0; b < z.blocks; ++b) {
    const std::uint64_t size = get_le(data.data() + (3 + b) * H, c.header_bytes);
    SOFTIK_BLOCK_CHECK(size <= data.size() - z.header - compressed, c,
                       "zlib block " << b + 1 << " of " << z.blocks << " declares " << size
                                     << " compressed bytes, more than the " << data.size() - z.header - compressed
                                     << " bytes left in the file");
    compressed += static_cast<size_t>(size);
  }
  z.total = z.header + compressed;
  return z;
}

int base64_value(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

}  // namespace

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out += static_cast<char>((v >> (8 * k)) & 0xff);
}

void put_le_double(std::string& out, double v) {
  std::uint64_t bits = 0;
  static_assert(sizeof bits == sizeof v, "IEEE-754 double expected");
  std::memcpy(&bits, &v, sizeof v);
  put_le(out, bits, 8);
}

std::uint64_t get_le(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return v;
}

void append_vtu_block(std::string& out, std::string_view bytes, bool compress) {
  if (!compress) {
    put_le(out, bytes.size(), 8);
    out.append(bytes);
    return;
  }
  const size_t blocks = (bytes.size() + kVtuBlockSize - 1) / kVtuBlockSize;
  const size_t header_at = out.size();
  put_le(out, blocks, 8);
  put_le(out, kVtuBlockSize, 8);
  put_le(out, bytes.size() % kVtuBlockSize, 8);  // 0: the last block is full
  out.append(8 * blocks, '\0');                  // the compressed sizes, filled in below
  std::string buffer(compressBound(kVtuBlockSize), '\0');
  for (size_t b = 0; b < blocks; ++b) {
    const size_t begin = b * kVtuBlockSize, size = std::min(kVtuBlockSize, bytes.size() - begin);
    uLongf compressed = static_cast<uLongf>(buffer.size());
    const int ret =
        compress2(reinterpret_cast<Bytef*>(&buffer[0]), &compressed,
                  reinterpret_cast<const Bytef*>(bytes.data() + begin), static_cast<uLong>(size), Z_BEST_SPEED);
    SOFTIK_CHECK_KIND(ret == Z_OK, ErrorKind::Internal, "zlib could not compress a .vtu block (error " << ret << ")");
    out.append(buffer.data(), compressed);
    std::string size_bytes;
    put_le(size_bytes, compressed, 8);
    out.replace(header_at + 8 * (3 + b), 8, size_bytes);
  }
}

size_t vtu_block_extent(std::string_view data, const VtuBlockContext& c) {
  const size_t H = static_cast<size_t>(c.header_bytes);
  if (c.compressed) return read_zheader(data, c).total;
  SOFTIK_BLOCK_CHECK(data.size() >= H, c, "the size header needs " << H << " bytes, " << data.size() << " remain");
  const std::uint64_t count = get_le(data.data(), c.header_bytes);
  SOFTIK_BLOCK_CHECK(count <= data.size() - H, c,
                     "the size header declares " << count << " bytes, " << data.size() - H << " remain in the file");
  return H + static_cast<size_t>(count);
}

size_t decode_vtu_block(std::string_view data, const VtuBlockContext& c, std::string* out) {
  out->clear();
  if (!c.compressed) {
    const size_t extent = vtu_block_extent(data, c);
    const size_t H = static_cast<size_t>(c.header_bytes);
    out->assign(data.data() + H, extent - H);
    return extent;
  }
  const ZHeader z = read_zheader(data, c);
  size_t at = z.header;
  for (size_t b = 0; b < z.blocks; ++b) {
    const size_t csize = static_cast<size_t>(get_le(data.data() + (3 + b) * c.header_bytes, c.header_bytes));
    const size_t usize = b + 1 == z.blocks && z.last != 0 ? z.last : z.block_size;
    inflate_block(data.data() + at, csize, usize, out, c, b, z.blocks);
    at += csize;
  }
  return z.total;
}

std::string decode_base64(std::string_view text, const VtuBlockContext& c) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  int group[4];
  int filled = 0, pads = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') continue;
    if (ch == '=') {
      SOFTIK_BLOCK_CHECK(filled >= 2, c, "misplaced '=' in the base64 text (character " << i << ")");
      ++pads;
      group[filled++] = 0;
    } else {
      const int v = base64_value(ch);
      SOFTIK_BLOCK_CHECK(v >= 0 && pads == 0, c,
                         (v < 0 ? "a character outside the base64 alphabet" : "a character after '=' padding")
                             << " in the base64 text (character " << i << ")");
      group[filled++] = v;
    }
    if (filled == 4) {
      const std::uint32_t bits = (static_cast<std::uint32_t>(group[0]) << 18) |
                                 (static_cast<std::uint32_t>(group[1]) << 12) |
                                 (static_cast<std::uint32_t>(group[2]) << 6) | static_cast<std::uint32_t>(group[3]);
      out += static_cast<char>((bits >> 16) & 0xff);
      if (pads < 2) out += static_cast<char>((bits >> 8) & 0xff);
      if (pads < 1) out += static_cast<char>(bits & 0xff);
      filled = pads = 0;
    }
  }
  SOFTIK_BLOCK_CHECK(filled == 0, c, "the base64 text ends inside a group of four characters");
  return out;
}

void vtu_values(const std::string& bytes, const std::string& type, bool integers, const VtuBlockContext& c,
                std::vector<double>* reals, std::vector<long long>* ints) {
  struct Type {
    const char* name;
    int size;
    char kind;  // 'i' signed, 'u' unsigned, 'f' IEEE-754
  };
  static const Type kTypes[] = {{"Int8", 1, 'i'},    {"UInt8", 1, 'u'},  {"Int16", 2, 'i'}, {"UInt16", 2, 'u'},
                                {"Int32", 4, 'i'},   {"UInt32", 4, 'u'}, {"Int64", 8, 'i'}, {"UInt64", 8, 'u'},
                                {"Float32", 4, 'f'}, {"Float64", 8, 'f'}};
  const Type* t = nullptr;
  for (const Type& candidate : kTypes)
    if (type == candidate.name) t = &candidate;
  SOFTIK_PARSE_CHECK(t, c.where,
                     "DataArray '" << c.array << "' has type \"" << type
                                   << "\", which softik does not read: expected Int8, UInt8, Int16, UInt16, "
                                      "Int32, UInt32, Int64, UInt64, Float32 or Float64");
  SOFTIK_PARSE_CHECK(!integers || t->kind != 'f', c.where,
                     "DataArray '" << c.array << "' has type " << type << ": the <Cells> arrays need an integer type");
  SOFTIK_BLOCK_CHECK(bytes.size() % static_cast<size_t>(t->size) == 0, c,
                     "its " << bytes.size() << " bytes are not a whole number of " << type << " values (" << t->size
                            << " bytes each)");
  const size_t n = bytes.size() / static_cast<size_t>(t->size);
  if (integers)
    ints->reserve(n);
  else
    reals->reserve(n);
  for (size_t k = 0; k < n; ++k) {
    const std::uint64_t u = get_le(bytes.data() + k * static_cast<size_t>(t->size), t->size);
    const int bits = 8 * t->size;
    if (t->kind == 'f') {
      double v = 0;
      if (t->size == 8) {
        std::memcpy(&v, &u, sizeof v);
      } else {
        const std::uint32_t u32 = static_cast<std::uint32_t>(u);
        float f = 0;
        std::memcpy(&f, &u32, sizeof f);
        v = f;
      }
      reals->push_back(v);
      continue;
    }
    long long v = 0;
    if (t->kind == 'u') {
      SOFTIK_PARSE_CHECK(u <= static_cast<std::uint64_t>(LLONG_MAX), c.where,
                         "DataArray '" << c.array << "': value " << k << " (" << u << ") is beyond the range of Int64");
      v = static_cast<long long>(u);
    } else {  // sign-extend
      v = bits == 64 ? static_cast<long long>(u)
                     : static_cast<long long>(u) - ((u >> (bits - 1)) & 1 ? (1LL << bits) : 0LL);
    }
    if (integers)
      ints->push_back(v);
    else
      reals->push_back(static_cast<double>(v));
  }
}

}  // namespace softik::mesh_io
