// expect_refused: the check of the bad-input tests of the network suites: building or running
// `run` must throw a softik::Error whose message contains `words`.
#pragma once

#include <string>

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

}  // namespace softik
