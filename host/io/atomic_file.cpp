// write_atomically (atomic_file.hpp).
#include "host/io/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "softik/error.hpp"

namespace softik::detail {

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary);
    SOFTIK_CHECK_IO(o.good(), path << ": cannot write the file (" << std::strerror(errno)
                                   << "; does its folder exist and is it writable?)");
    o.write(text.data(), static_cast<std::streamsize>(text.size()));
    o.flush();
    if (!o.good()) {
      const std::string reason = std::strerror(errno);
      o.close();
      std::error_code ec;
      std::filesystem::remove(tmp, ec);  // the old file, if any, stays as it was
      SOFTIK_CHECK_IO(false, path << ": writing the file failed (" << reason << "; disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code removed;  // its own code: a successful removal must not clear the rename's failure
    std::filesystem::remove(tmp, removed);
  }
  SOFTIK_CHECK_IO(!ec, path << ": cannot replace the file (" << ec.message()
                            << (std::filesystem::is_directory(path) ? "; a folder of that name is in the way" : "")
                            << ")");
}

}  // namespace softik::detail
