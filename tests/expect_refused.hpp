// The checks of the bad-input tests: running `run` must throw a softik::Error whose message
// contains `words` (expect_refused) or every one of `pieces` (expect_error_mentions).
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "softik/error.hpp"

namespace softik {

template <class Run>
void expect_refused(const Run& run, const std::string& words) {
  try {
    run();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    return;
  }
  ADD_FAILURE() << "accepted; expected an error about '" << words << "'";
}

template <class Run>
void expect_error_mentions(const Run& run, const std::vector<std::string>& pieces) {
  try {
    run();
    ADD_FAILURE() << "no softik::Error thrown";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& p : pieces) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
  }
}

}  // namespace softik
