// The human output of a collective sweep on rank 0, laid out like nccl-tests' (one row
// per size: size, count, type, redop, time, algbw, busbw, #wrong; then the count of wrong
// values and the average bus bandwidth). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/record/run_writer.hpp"

namespace scalestudy::collectives {

// One measured size: the collectives row plus what only the output shows.
struct SizeResult {
  record::CollectiveRow row;
  int64_t elements = 0;
  int64_t wrong = 0;  // over all ranks
};

std::string sweep_table_header(const std::string& title);
std::string sweep_table_row(const SizeResult& result, const std::string& reduction);
std::string sweep_table_footer(const std::vector<SizeResult>& results);

// Wrong values over all sizes and ranks.
int64_t total_wrong(const std::vector<SizeResult>& results);
// Mean bus bandwidth over the sizes (nccl-tests' "Avg bus bandwidth"); 0 for none.
double average_busbw_gbps(const std::vector<SizeResult>& results);

}  // namespace scalestudy::collectives
