// Writing a whole file so that a reader never sees half of it (mesh_io_write.cpp's .vtu and
// .pvd, batch.cpp's results table).
#pragma once

#include <string>

namespace softik::detail {

/// Writes `text` to path + ".tmp", flushed and checked, then renames it over `path`: `path` holds
/// its previous content until the new one is complete. A failure is an Error of kind Io naming
/// the path and the cause; the temporary file is removed and `path` left as it was.
void write_atomically(const std::string& path, const std::string& text);

}  // namespace softik::detail
