// `scalestudy fetch DATASET...`: download, verify and unpack data sets into the data root.
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "orchestrator/cli/args.hpp"
#include "orchestrator/cli/command.hpp"
#include "orchestrator/fetch/dataset_table.hpp"
#include "orchestrator/fetch/fetch_dataset.hpp"

namespace scalestudy::cli {
namespace {

const char kFetchUsage[] =
    "usage: scalestudy fetch DATASET... [--data-root DIR] [--mirror URL]... [--offline]\n"
    "                        [--table FILE] [--extract-unverified] [--list]\n\n"
    "Downloads each data set's files into DIR/<DATASET>/, resuming an interrupted download\n"
    "(HTTP Range), verifying size and digest before renaming a file into place, and\n"
    "unpacking archives. A verified copy already there is used without the network.\n"
    "Interrupted downloads wait in DIR/.partial/; one that fails verification is kept there\n"
    "as <file>.rejected and never resumed.\n\n"
    "options:\n"
    "  --data-root DIR  where data sets live (default: $SCALESTUDY_DATA_ROOT, else data)\n"
    "  --mirror URL     a mirror holding URL/<DATASET>/<file> (http, https or file://);\n"
    "                   repeatable. Order tried: these, then $SCALESTUDY_MIRRORS (comma- or\n"
    "                   blank-separated), then the table's URLs\n"
    "  --offline        never use the network: only verify (and unpack) present copies\n"
    "  --table FILE     read the data set table from FILE instead of the built-in one\n"
    "                   (orchestrator/fetch/datasets.tsv: name, file, bytes, digest,\n"
    "                   extract, urls)\n"
    "  --extract-unverified  unpack archives whose row has no digest (size only); without\n"
    "                   it such a row is refused: a size says nothing of what unpacks\n"
    "  --list           print the data sets of the table and exit\n\n"
    "exit codes: 0 every data set present and verified; 1 a download or verification\n"
    "failed, or an unknown data set; 2 wrong arguments; 3 the table cannot be read.";

void print_table(const std::vector<fetch::Dataset>& table) {
  for (const auto& dataset : table) {
    unsigned long long bytes = 0;
    for (const auto& file : dataset.files) bytes += file.size_bytes;
    std::printf("%-20s %2zu file(s) %12llu bytes  %s\n", dataset.name.c_str(), dataset.files.size(),
                bytes, fetch::digest_name(dataset.files.front().digest_kind));
  }
}

int run_fetch(const std::vector<std::string>& args) {
  auto parsed = parse_args(args, {{"--data-root", "--mirror", "--table"},
                                  {"--offline", "--list", "--extract-unverified"}});
  if (auto done = parse_error_or_help("fetch", parsed, kFetchUsage)) return *done;
  auto table = fetch::load_dataset_table(parsed->value("--table"));
  if (!table) {
    std::fprintf(stderr, "scalestudy fetch: %s\n", table.status().message().c_str());
    return kExitEnvironment;
  }
  if (parsed->has("--list")) {
    print_table(*table);
    return kExitOk;
  }
  if (parsed->positionals.empty()) {
    std::fprintf(stderr, "scalestudy fetch: expected DATASET (see --list)\n%s\n", kFetchUsage);
    return kExitUsage;
  }

  fetch::FetchOptions options;
  options.data_root = parsed->value_or("--data-root", fetch::default_data_root());
  options.mirrors = fetch::mirrors_with_environment(parsed->values("--mirror"));
  options.offline = parsed->has("--offline");
  options.extract_unverified = parsed->has("--extract-unverified");
  options.interactive = isatty(fileno(stderr)) != 0;

  for (const auto& name : parsed->positionals) {
    auto dataset = fetch::find_dataset(*table, name);
    if (!dataset) {
      std::fprintf(stderr, "scalestudy fetch: %s\n", dataset.status().message().c_str());
      return kExitFailure;
    }
    auto report = fetch::fetch_dataset(*dataset, options);
    if (!report) {
      std::fprintf(stderr, "scalestudy fetch: %s\n", report.status().message().c_str());
      return kExitFailure;
    }
    for (const auto& warning : report->warnings) {
      std::fprintf(stderr, "warning: %s\n", warning.c_str());
    }
    for (const auto& file : report->files) {
      std::printf("%s  %s  (%s)\n", file.path.c_str(), file.verification.c_str(),
                  file.downloaded ? file.source.c_str() : "already present");
    }
  }
  std::error_code error;
  auto absolute = std::filesystem::absolute(options.data_root, error);
  std::printf("data root: %s  (export SCALESTUDY_DATA_ROOT=%s for the workloads)\n",
              absolute.c_str(), absolute.c_str());
  return kExitOk;
}

}  // namespace

extern const Command kFetchCommand = {"fetch", "download and verify data sets into the data root",
                                      fixed_usage<kFetchUsage>, run_fetch};

}  // namespace scalestudy::cli
