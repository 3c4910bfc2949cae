// One GPU per MPI rank (batch_mpi.hpp): which device a rank should see, as the value of
// CUDA_VISIBLE_DEVICES set before the CUDA runtime starts.
#pragma once

#include <string>
#include <vector>

namespace softik::cli {

/// The CUDA_VISIBLE_DEVICES value for the rank `node_rank` of those on a node: the
/// (node_rank mod n)-th entry of `visible` (the variable's value when set, else null: a
/// comma-separated list of indices or UUIDs the job was given), else of 0 .. gpus-1 (the node's
/// GPUs); empty (leave the variable alone) when there is no GPU to choose from.
inline std::string visible_device_for_rank(const char* visible_env, int gpus, int node_rank) {
  std::vector<std::string> devices;
  if (visible_env) {
    const std::string visible = visible_env;
    size_t start = 0;
    for (size_t comma = visible.find(',');; comma = visible.find(',', start)) {
      const std::string d = visible.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!d.empty()) devices.push_back(d);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    for (int g = 0; g < gpus; ++g) devices.push_back(std::to_string(g));
  }
  if (devices.empty() || node_rank < 0) return "";
  return devices[static_cast<size_t>(node_rank) % devices.size()];
}

}  // namespace softik::cli
