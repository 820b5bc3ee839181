#include "orchestrator/fetch/dataset_table.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "orchestrator/fetch/download_progress.hpp"
#include "orchestrator/fetch/file_digest.hpp"

namespace scalestudy::fetch {
namespace {

TEST_CASE("the built-in table is datasets.tsv and holds the seeds' data sets") {
  const char* source_dir = std::getenv("SCALESTUDY_SOURCE_DIR");
  REQUIRE(source_dir != nullptr);
  std::ifstream file(std::string(source_dir) + "/orchestrator/fetch/datasets.tsv");
  std::stringstream contents;
  contents << file.rdbuf();
  CHECK(contents.str() == builtin_dataset_table());

  auto table = parse_dataset_table(builtin_dataset_table(), "datasets.tsv");
  REQUIRE_MESSAGE(table.is_ok(), table.status().message());
  auto cifar = find_dataset(*table, "cifar10");
  REQUIRE(cifar.is_ok());
  REQUIRE(cifar->files.size() == 1);
  CHECK(cifar->files[0].file_name == "cifar-10-binary.tar.gz");
  CHECK(cifar->files[0].size_bytes == 170052171);
  CHECK(cifar->files[0].digest_kind == DigestKind::kSha256);
  CHECK(cifar->files[0].digest_hex ==
        "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd");
  CHECK(cifar->files[0].extract == ExtractKind::kTarGz);
  std::map<std::string, size_t> file_counts;
  for (const auto& dataset : *table) file_counts[dataset.name] = dataset.files.size();
  CHECK(file_counts ==
        std::map<std::string, size_t>{
            {"cifar10", 1}, {"mnist", 4}, {"fashion-mnist", 4}, {"tiny-imagenet-200", 1}});
  CHECK(table->back().files[0].extract == ExtractKind::kZip);
  auto unknown = find_dataset(*table, "imagenet");
  REQUIRE_FALSE(unknown.is_ok());
  CHECK(unknown.status().message() ==
        "unknown data set 'imagenet'; known: cifar10, mnist, fashion-mnist, tiny-imagenet-200");
}

TEST_CASE("Debian's fashion-mnist files are recompressed: same sizes minus the gzip name") {
  // Why the table carries upstream md5 digests rather than digests of these files.
  auto table = parse_dataset_table(builtin_dataset_table(), "datasets.tsv");
  REQUIRE(table.is_ok());
  const std::string debian = "/usr/share/datasets/fashion-mnist/";
  auto fashion = find_dataset(*table, "fashion-mnist");
  REQUIRE(fashion.is_ok());
  for (const auto& file : fashion->files) {
    std::ifstream local(debian + file.file_name, std::ios::binary | std::ios::ate);
    if (!local) continue;
    std::string stem = file.file_name.substr(0, file.file_name.size() - 3);  // FNAME + NUL
    CHECK(static_cast<unsigned long long>(local.tellg()) + stem.size() + 1 == file.size_bytes);
    CHECK(*file_digest(debian + file.file_name, DigestKind::kMd5) != file.digest_hex);
  }
}

TEST_CASE("table errors name file, line, column and field") {
  auto bad_digest = parse_dataset_table(
      "# comment\nmnist\tf.gz\t10\tsha256:xyz\tnone\thttp://a/f.gz\n", "datasets.tsv");
  REQUIRE_FALSE(bad_digest.is_ok());
  CHECK(bad_digest.status().message() ==
        "datasets.tsv:2:15: digest: expected sha256:<64 hex digits>, md5:<32 hex digits> or -, "
        "got 'sha256:xyz'");
  auto bad_bytes = parse_dataset_table("mnist\tf.gz\t1O\t-\tnone\thttp://a\n", "t.tsv");
  CHECK(bad_bytes.status().message() == "t.tsv:1:12: bytes: expected a byte count, got '1O'");
  auto bad_extract = parse_dataset_table("m\tf\t1\t-\trar\thttp://a\n", "t.tsv");
  CHECK(bad_extract.status().message() ==
        "t.tsv:1:9: extract: expected none, tar.gz or zip, got 'rar'");
  auto few = parse_dataset_table("m\tf\t1\n", "t.tsv");
  CHECK(few.status().message().find("t.tsv:1:") == 0);
  auto scattered = parse_dataset_table(
      "a\tf\t1\t-\tnone\tu\nb\tf\t1\t-\tnone\tu\na\tg\t1\t-\tnone\tu\n", "t.tsv");
  CHECK(scattered.status().message() == "t.tsv:3:1: name: rows of data set 'a' must be adjacent");
  auto path_name = parse_dataset_table("a\t../f\t1\t-\tnone\tu\n", "t.tsv");
  CHECK(path_name.status().message().find("t.tsv:1:3: file:") == 0);
  // A data set is the folder <root>/<name>: a name that leaves the root is refused.
  for (const char* name : {"../x", "a/b", "/abs", ".hidden", "..", "a b"}) {
    CAPTURE(name);
    auto escaping = parse_dataset_table(std::string(name) + "\tf\t1\t-\tnone\tu\n", "t.tsv");
    REQUIRE_FALSE(escaping.is_ok());
    CHECK(escaping.status().message().find("t.tsv:1:1: name: '" + std::string(name) +
                                           "' is no data set name") == 0);
  }
}

TEST_CASE("progress text: bytes, percent, rate and ETA") {
  CHECK(describe_progress(50ULL << 20, 100ULL << 20, 10.0 * (1 << 20)) ==
        "50% 50.0 MiB / 100.0 MiB 10.0 MiB/s ETA 0:05");
  CHECK(describe_progress(512, 0, 0) == "512 B");
  CHECK(describe_progress(1ULL << 30, 2ULL << 30, 1 << 10) ==
        "50% 1.0 GiB / 2.0 GiB 1.0 KiB/s ETA 291:16:16");
}

TEST_CASE("progress on a log (not a terminal) prints plain lines") {
  std::FILE* log = std::tmpfile();
  DownloadProgress progress(log, false, "data.bin", 0.0);
  progress.update(10, 100);
  progress.finish(100, 100);
  std::rewind(log);
  char line[256] = {};
  REQUIRE(std::fgets(line, sizeof(line), log));
  CHECK(std::string(line).find("data.bin: 10% 10 B / 100 B") == 0);
  REQUIRE(std::fgets(line, sizeof(line), log));
  CHECK(std::string(line).find("data.bin: 100% 100 B / 100 B") == 0);
  std::fclose(log);
}

}  // namespace
}  // namespace scalestudy::fetch
