#include "orchestrator/sched/slurmrest_url.hpp"

namespace scalestudy::sched {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The host of "http://HOST[:PORT][/PATH]", brackets of an IPv6 address removed.
std::string host_of(const std::string& rest) {
  std::string authority = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
  if (starts_with(authority, "[")) return authority.substr(1, authority.find(']') - 1);
  return authority.substr(0, authority.find(':'));
}

bool is_loopback(const std::string& host) {
  const bool dotted_numbers = host.find_first_not_of("0123456789.") == std::string::npos;
  return host == "localhost" || host == "::1" || (starts_with(host, "127.") && dotted_numbers);
}

}  // namespace

Status check_slurmrest_url(const std::string& url) {
  const std::string http = "http://";
  if (!starts_with(url, http)) return Status::ok();
  const std::string host = host_of(url.substr(http.size()));
  if (is_loopback(host)) return Status::ok();
  return Status::error("slurmrest: " + url + ": plain http to '" + host +
                       "' would send the user's token unencrypted over the network: use "
                       "https:// (or a unix: socket, or http:// to localhost only)");
}

}  // namespace scalestudy::sched
