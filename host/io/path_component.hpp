// Names that become file or folder names (a scene's, a probe's, a batch design's): one safe
// path component, so that nothing a user names is ever written outside the output folder.
#pragma once

#include <string>

namespace softik::detail {

/// Why `name` cannot be one component of a path, or "" when it can. A safe component is
/// non-empty, made of letters, digits, '_', '-' and '.', and is not "." or ".." (the folder
/// itself and its parent). This excludes separators ('/', '\\'), control characters (NUL,
/// newline, ...), spaces and every non-ASCII byte.
std::string path_component_problem(const std::string& name);

}  // namespace softik::detail
