// Which varied parameters belong to the repeat rather than the configuration: a key
// whose value is fixed by the repeat number alone (as `seed: ${repeat}` makes it) takes
// one value per repeat, the same at every scale and configuration. Such keys must not
// split a point's repeats into configurations of one run each. Pure; thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "orchestrator/results/report/run_measurements.hpp"

namespace scalestudy::results {

// Keys that take exactly one value per repeat number, and differing values over at least
// two repeat numbers.
std::set<std::string> repeat_derived_keys(const std::vector<RunMeasurement>& runs);

}  // namespace scalestudy::results
