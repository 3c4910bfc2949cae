// load_yaml_within_limits (yaml_load.hpp).
#include "host/io/yaml_load.hpp"

#include <yaml-cpp/depthguard.h>

namespace softik::io_detail {

std::optional<YAML::Node> load_yaml_within_limits(const std::string& text, std::size_t max_bytes,
                                                  YamlLoadFailure& failure) {
  if (text.size() > max_bytes) {
    failure = {YAML::Mark::null_mark(), "the file has " + std::to_string(text.size()) + " bytes, more than the " +
                                            std::to_string(max_bytes) +
                                            " this kind of file may have; is it the right file?"};
    return std::nullopt;
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp stops at a recursion depth of 500 (about as many nested lists or maps); its mark
    // is not the place, so the file is named without one.
    failure = {YAML::Mark::null_mark(), "lists and maps nested about " + std::to_string(e.depth()) +
                                            " levels deep, past the YAML reader's limit; softik's files need a few "
                                            "levels: was this one generated wrongly?"};
  } catch (const YAML::Exception& e) {
    failure = {e.mark, "YAML syntax error: " + e.msg};
  }
  return std::nullopt;
}

}  // namespace softik::io_detail
