#include "orchestrator/sched/redact.hpp"

namespace scalestudy::sched {

std::string redact(const std::string& text, const std::string& secret,
                   const std::string& placeholder) {
  if (secret.empty()) return text;
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, from)) {
    out.append(text, from, at - from);
    out += placeholder;
    from = at + secret.size();
  }
  out.append(text, from, std::string::npos);
  return out;
}

}  // namespace scalestudy::sched
