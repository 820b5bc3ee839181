#include "orchestrator/fetch/file_digest.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "harness/core/hex.hpp"

namespace scalestudy::fetch {

Result<std::string> file_digest(const std::string& path, DigestKind kind) {
  const EVP_MD* algorithm = kind == DigestKind::kSha256 ? EVP_sha256()
                            : kind == DigestKind::kMd5  ? EVP_md5()
                                                        : nullptr;
  if (algorithm == nullptr) return Status::error("file_digest: no digest for 'size only'");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) return Status::error("cannot read " + path + ": " + std::strerror(errno));
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), algorithm, nullptr) != 1) {
    return Status::error("OpenSSL: cannot start a " + std::string(digest_name(kind)) + " digest");
  }
  std::vector<unsigned char> buffer(1 << 20);
  size_t count = 0;
  while ((count = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0) {
    EVP_DigestUpdate(context.get(), buffer.data(), count);
  }
  if (std::ferror(file.get())) return Status::error("read error in " + path);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_DigestFinal_ex(context.get(), digest, &length);
  return to_hex(digest, length);
}

}  // namespace scalestudy::fetch
