// What the batch tests share (test_batch*.cpp): the base scene their batch files override, and
// the text of the softik::Error a call throws.
#pragma once

#include <functional>
#include <string>

#include "scene_test_support.hpp"
#include "softik/error.hpp"

namespace softik {

/// kBlock with its cavity inflated to 6 kPa in 2 load steps and a probe at the free end.
inline const std::string kBatchBase = kBlock + R"(loads: {pressure: {name: cavity, surface: cavity0, value: 6000}}
solver: {load_steps: 2}
outputs: {vtu: false, probes: [{name: tip, point: [0.03, 0.006, 0.006]}]}
)";

/// The message of the softik::Error `f` throws, or "(no error)".
inline std::string batch_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace softik
