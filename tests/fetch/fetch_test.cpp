#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "orchestrator/fetch/fetch_dataset.hpp"
#include "orchestrator/fetch/file_digest.hpp"
#include "tests/fetch/loopback_http_server.hpp"

namespace scalestudy::fetch {
namespace {

namespace fs = std::filesystem;
using testing::LoopbackHttpServer;

// A data root in a fresh temporary directory, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "fetch-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string random_bytes(size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::string bytes(count, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(generator() & 0xff);
  return bytes;
}

std::string read_all(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

void write_all(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string sha256_of(const std::string& bytes) {
  TempDir dir;
  write_all(dir.path / "blob", bytes);
  return *file_digest((dir.path / "blob").string(), DigestKind::kSha256);
}

Dataset one_file_dataset(const std::string& file_name, const std::string& bytes,
                         const std::string& url, std::string digest = "") {
  DatasetFile file;
  file.file_name = file_name;
  file.size_bytes = bytes.size();
  file.digest_kind = DigestKind::kSha256;
  file.digest_hex = digest.empty() ? sha256_of(bytes) : digest;
  file.urls = {url};
  return {"synthetic", {file}};
}

FetchOptions quiet_options(const fs::path& root) {
  FetchOptions options;
  options.data_root = root.string();
  options.log = nullptr;
  options.connect_timeout_s = 5;
  options.stall_timeout_s = 5;
  return options;
}

TEST_CASE("digests of known vectors") {
  TempDir dir;
  write_all(dir.path / "abc", "abc");
  CHECK(*file_digest((dir.path / "abc").string(), DigestKind::kSha256) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(*file_digest((dir.path / "abc").string(), DigestKind::kMd5) ==
        "900150983cd24fb0d6963f7d28e17f72");
  CHECK_FALSE(file_digest((dir.path / "missing").string(), DigestKind::kSha256).is_ok());
}

TEST_CASE("a download is verified and renamed into the root; nothing partial is left") {
  LoopbackHttpServer server;
  std::string bytes = random_bytes(700'000, 1);
  server.serve("/files/data.bin", bytes);
  TempDir root;
  auto report = fetch_dataset(one_file_dataset("data.bin", bytes, server.url("/files/data.bin")),
                              quiet_options(root.path));
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  fs::path final_path = root.path / "synthetic" / "data.bin";
  CHECK(read_all(final_path) == bytes);
  CHECK_FALSE(fs::exists(root.path / ".partial" / "synthetic" / "data.bin"));
  REQUIRE(report->files.size() == 1);
  CHECK(report->files[0].downloaded);
  CHECK(report->files[0].verification == "sha256 " + sha256_of(bytes));
  REQUIRE(server.requests().size() == 1);
  CHECK(server.requests()[0].range.empty());
}

TEST_CASE("a wrong checksum names the data set and both digests; nothing lands in the root") {
  LoopbackHttpServer server;
  std::string bytes = random_bytes(50'000, 2);
  server.serve("/data.bin", bytes);
  std::string expected(64, 'a');
  TempDir root;
  auto report =
      fetch_dataset(one_file_dataset("data.bin", bytes, server.url("/data.bin"), expected),
                    quiet_options(root.path));
  REQUIRE_FALSE(report.is_ok());
  const std::string message = report.status().message();
  CHECK(message.find("data set 'synthetic'") != std::string::npos);
  CHECK(message.find("expected " + expected) != std::string::npos);
  CHECK(message.find("actual " + sha256_of(bytes)) != std::string::npos);
  CHECK_FALSE(fs::exists(root.path / "synthetic" / "data.bin"));
  fs::path partial = root.path / ".partial" / "synthetic" / "data.bin";
  CHECK_FALSE(fs::exists(partial));                          // never resumed
  CHECK(read_all(partial.string() + ".rejected") == bytes);  // kept for inspection
  CHECK(message.find(partial.string() + ".rejected") != std::string::npos);
}

TEST_CASE("a truncated transfer leaves a partial file that the next run resumes with Range") {
  LoopbackHttpServer server;
  std::string bytes = random_bytes(1'000'000, 3);
  server.serve("/data.bin", bytes);
  server.set_truncate_at(300'000);
  TempDir root;
  Dataset dataset = one_file_dataset("data.bin", bytes, server.url("/data.bin"));
  auto first = fetch_dataset(dataset, quiet_options(root.path));
  REQUIRE_FALSE(first.is_ok());
  fs::path partial = root.path / ".partial" / "synthetic" / "data.bin";
  CHECK(fs::file_size(partial) == 300'000);
  CHECK(read_all(partial) == bytes.substr(0, 300'000));

  server.set_truncate_at(std::nullopt);
  size_t seen_before = server.requests().size();
  auto second = fetch_dataset(dataset, quiet_options(root.path));
  REQUIRE_MESSAGE(second.is_ok(), second.status().message());
  auto requests = server.requests();
  REQUIRE(requests.size() == seen_before + 1);
  CHECK(requests.back().range == "bytes=300000-");
  CHECK(read_all(root.path / "synthetic" / "data.bin") == bytes);
  CHECK_FALSE(fs::exists(partial));
}

TEST_CASE("a complete partial file from an interrupted run is verified without the network") {
  LoopbackHttpServer server;
  std::string bytes = random_bytes(30'000, 10);
  TempDir root;
  write_all(root.path / ".partial" / "synthetic" / "data.bin", bytes);
  auto report = fetch_dataset(one_file_dataset("data.bin", bytes, server.url("/data.bin")),
                              quiet_options(root.path));
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  CHECK(server.requests().empty());
  CHECK(read_all(root.path / "synthetic" / "data.bin") == bytes);
}

TEST_CASE("a server that ignores Range gets the file rewritten from the start") {
  LoopbackHttpServer server;
  std::string bytes = random_bytes(200'000, 4);
  server.serve("/data.bin", bytes);
  server.set_ignore_range(true);
  TempDir root;
  write_all(root.path / ".partial" / "synthetic" / "data.bin", std::string(1000, 'x'));
  auto report = fetch_dataset(one_file_dataset("data.bin", bytes, server.url("/data.bin")),
                              quiet_options(root.path));
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  CHECK(server.requests().at(0).range == "bytes=1000-");
  CHECK(read_all(root.path / "synthetic" / "data.bin") == bytes);
  REQUIRE(report->warnings.size() == 1);
  CHECK(report->warnings[0].find("ignored the Range request") != std::string::npos);
}

TEST_CASE("mirrors are tried in order: a 404 mirror, then a good one, before the table's URL") {
  LoopbackHttpServer server;
  std::string bytes = random_bytes(10'000, 5);
  server.serve("/good/synthetic/data.bin", bytes);
  TempDir root;
  FetchOptions options = quiet_options(root.path);
  options.mirrors = {server.url("/missing/"), server.url("/good")};
  auto report =
      fetch_dataset(one_file_dataset("data.bin", bytes, "http://127.0.0.1:1/unreachable"), options);
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].path == "/missing/synthetic/data.bin");
  CHECK(requests[1].path == "/good/synthetic/data.bin");
  CHECK(report->files[0].source == server.url("/good/synthetic/data.bin"));
}

TEST_CASE("every URL failing gives one error listing each attempt") {
  TempDir root;
  std::string bytes = "x";
  auto report = fetch_dataset(one_file_dataset("data.bin", bytes, "http://127.0.0.1:1/nothing"),
                              quiet_options(root.path));
  REQUIRE_FALSE(report.is_ok());
  CHECK(report.status().message().find(
            "could not fetch data.bin:\n  http://127.0.0.1:1/nothing: ") != std::string::npos);
}

TEST_CASE("a present verified copy needs no network; offline without one is a clear error") {
  LoopbackHttpServer server;
  std::string bytes = random_bytes(20'000, 6);
  server.serve("/data.bin", bytes);
  TempDir root;
  Dataset dataset = one_file_dataset("data.bin", bytes, server.url("/data.bin"));
  FetchOptions offline = quiet_options(root.path);
  offline.offline = true;

  auto missing = fetch_dataset(dataset, offline);
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message().find("data set 'synthetic': data.bin is not in " +
                                        (root.path / "synthetic").string()) != std::string::npos);
  CHECK(missing.status().message().find("--offline") != std::string::npos);
  CHECK(server.requests().empty());
  CHECK_FALSE(fs::exists(root.path / "synthetic"));  // offline only reads

  REQUIRE(fetch_dataset(dataset, quiet_options(root.path)).is_ok());
  REQUIRE(server.requests().size() == 1);
  auto again_offline = fetch_dataset(dataset, offline);
  REQUIRE(again_offline.is_ok());
  CHECK(again_offline->files[0].source == "present");
  auto again_online = fetch_dataset(dataset, quiet_options(root.path));
  REQUIRE(again_online.is_ok());
  CHECK_FALSE(again_online->files[0].downloaded);
  CHECK(server.requests().size() == 1);

  write_all(root.path / "synthetic" / "data.bin", "corrupted");
  auto corrupt_offline = fetch_dataset(dataset, offline);
  REQUIRE_FALSE(corrupt_offline.is_ok());
  CHECK(corrupt_offline.status().message().find("fails verification") != std::string::npos);
}

TEST_CASE("a size-only entry verifies by size, warns, and reports the sha256 to record") {
  LoopbackHttpServer server;
  std::string bytes = random_bytes(5'000, 7);
  server.serve("/data.bin", bytes);
  TempDir root;
  Dataset dataset = one_file_dataset("data.bin", bytes, server.url("/data.bin"));
  dataset.files[0].digest_kind = DigestKind::kNone;
  dataset.files[0].digest_hex.clear();
  auto report = fetch_dataset(dataset, quiet_options(root.path));
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  REQUIRE(report->warnings.size() == 1);
  CHECK(report->warnings[0].find("verified by size only") != std::string::npos);
  CHECK(report->warnings[0].find(sha256_of(bytes)) != std::string::npos);

  dataset.files[0].size_bytes += 1;  // a wrong size is caught without a digest
  fs::remove(root.path / "synthetic" / "data.bin");
  auto wrong_size = fetch_dataset(dataset, quiet_options(root.path));
  REQUIRE_FALSE(wrong_size.is_ok());
  CHECK(wrong_size.status().message().find("size 5000 bytes, expected 5001") != std::string::npos);
}

TEST_CASE("a verified .tar.gz is unpacked into the data set folder, once") {
  TempDir source;
  write_all(source.path / "cifar-10-batches-bin" / "data_batch_1.bin", random_bytes(3073, 8));
  fs::path archive = source.path / "archive.tar.gz";
  std::string command =
      "tar -czf " + archive.string() + " -C " + source.path.string() + " cifar-10-batches-bin";
  REQUIRE(std::system(command.c_str()) == 0);
  std::string bytes = read_all(archive);

  LoopbackHttpServer server;
  server.serve("/cifar.tar.gz", bytes);
  TempDir root;
  Dataset dataset = one_file_dataset("cifar.tar.gz", bytes, server.url("/cifar.tar.gz"));
  dataset.files[0].extract = ExtractKind::kTarGz;
  REQUIRE(fetch_dataset(dataset, quiet_options(root.path)).is_ok());
  fs::path extracted = root.path / "synthetic" / "cifar-10-batches-bin" / "data_batch_1.bin";
  CHECK(read_all(extracted) == read_all(source.path / "cifar-10-batches-bin" / "data_batch_1.bin"));

  fs::remove(extracted);  // the stamp says it was unpacked: not again
  REQUIRE(fetch_dataset(dataset, quiet_options(root.path)).is_ok());
  CHECK_FALSE(fs::exists(extracted));
}

// An archive made by `command` run in a fresh folder (which holds `payload`), as bytes.
std::string archive_of(const std::string& command) {
  TempDir source;
  write_all(source.path / "payload" / "data.bin", random_bytes(3000, 11));
  const std::string full = "cd " + source.path.string() + " && " + command + " >/dev/null";
  REQUIRE(std::system(full.c_str()) == 0);
  return read_all(source.path / "archive");
}

TEST_CASE("a size-only archive is not unpacked unless --extract-unverified says so") {
  const std::string bytes = archive_of("tar -czf archive payload");
  LoopbackHttpServer server;
  server.serve("/a.tar.gz", bytes);
  TempDir root;
  Dataset dataset = one_file_dataset("a.tar.gz", bytes, server.url("/a.tar.gz"));
  dataset.files[0].digest_kind = DigestKind::kNone;
  dataset.files[0].digest_hex.clear();
  dataset.files[0].extract = ExtractKind::kTarGz;
  auto refused = fetch_dataset(dataset, quiet_options(root.path));
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message().find("--extract-unverified") != std::string::npos);
  CHECK_FALSE(fs::exists(root.path / "synthetic" / "payload"));
  FetchOptions allowed = quiet_options(root.path);
  allowed.extract_unverified = true;
  auto unpacked = fetch_dataset(dataset, allowed);
  REQUIRE_MESSAGE(unpacked.is_ok(), unpacked.status().message());
  CHECK(fs::file_size(root.path / "synthetic" / "payload" / "data.bin") == 3000);
}

TEST_CASE("archives holding links, or unpacking to 100 times their size, are not unpacked") {
  struct Case {
    const char* command;
    ExtractKind kind;
    const char* error;
  };
  for (const Case& each :
       {Case{"ln -s /etc payload/etc && tar -czf archive payload", ExtractKind::kTarGz,
             "no file or folder"},
        Case{"ln payload/data.bin payload/hard && tar -czf archive payload", ExtractKind::kTarGz,
             "no file or folder"},
        Case{"ln -s /etc payload/etc && zip -qry archive.zip payload && mv archive.zip archive",
             ExtractKind::kZip, "no file or folder"},
        Case{"head -c 20000000 /dev/zero > payload/zeros && tar -czf archive payload",
             ExtractKind::kTarGz, "more than 100 times its size"},
        Case{"head -c 20000000 /dev/zero > payload/zeros && zip -qr archive.zip payload && "
             "mv archive.zip archive",
             ExtractKind::kZip, "more than 100 times its size"}}) {
    CAPTURE(each.command);
    const std::string bytes = archive_of(each.command);
    LoopbackHttpServer server;
    server.serve("/archive", bytes);
    TempDir root;
    Dataset dataset = one_file_dataset("archive", bytes, server.url("/archive"));
    dataset.files[0].extract = each.kind;
    auto refused = fetch_dataset(dataset, quiet_options(root.path));
    REQUIRE_FALSE(refused.is_ok());
    CHECK(refused.status().message().find(each.error) != std::string::npos);
    CHECK_FALSE(fs::exists(root.path / "synthetic" / "payload"));
  }
}

TEST_CASE("a server sending more than the table's size is cut off") {
  const std::string bytes = random_bytes(5'000, 12);
  LoopbackHttpServer server;
  server.serve("/data.bin", bytes + random_bytes(100'000, 13));
  TempDir root;
  auto report = fetch_dataset(one_file_dataset("data.bin", bytes, server.url("/data.bin")),
                              quiet_options(root.path));
  REQUIRE_FALSE(report.is_ok());
  CHECK(report.status().message().find("more than the expected 5000 bytes") != std::string::npos);
  CHECK(fs::file_size(root.path / ".partial" / "synthetic" / "data.bin") <= 5000);
}

TEST_CASE("mirror lists and candidate URLs") {
  CHECK(parse_mirror_list("http://a/x, http://b/y  http://c") ==
        std::vector<std::string>{"http://a/x", "http://b/y", "http://c"});
  CHECK(parse_mirror_list("").empty());
  Dataset dataset = one_file_dataset("f.gz", "x", "https://upstream/f.gz");
  CHECK(candidate_urls(dataset, dataset.files[0], {"file:///srv/mirror/"}) ==
        std::vector<std::string>{"file:///srv/mirror/synthetic/f.gz", "https://upstream/f.gz"});
}

TEST_CASE("a file:// mirror works too (no Range: always from the start)") {
  TempDir mirror;
  std::string bytes = random_bytes(4'000, 9);
  write_all(mirror.path / "synthetic" / "data.bin", bytes);
  TempDir root;
  write_all(root.path / ".partial" / "synthetic" / "data.bin", "stale");
  FetchOptions options = quiet_options(root.path);
  options.mirrors = {"file://" + mirror.path.string()};
  auto report = fetch_dataset(one_file_dataset("data.bin", bytes, "http://127.0.0.1:1/x"), options);
  REQUIRE_MESSAGE(report.is_ok(), report.status().message());
  CHECK(read_all(root.path / "synthetic" / "data.bin") == bytes);
}

}  // namespace
}  // namespace scalestudy::fetch
