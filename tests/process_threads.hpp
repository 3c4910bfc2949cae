// The process's thread count, for tests that check who starts or stops threads.
#pragma once

#include <fstream>
#include <string>

namespace softik {

/// Threads of this process (/proc/self/status); -1 where that file is missing.
inline int process_threads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

}  // namespace softik
