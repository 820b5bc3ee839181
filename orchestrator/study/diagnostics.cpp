#include "orchestrator/study/diagnostics.hpp"

#include "harness/core/nearest_name.hpp"
#include "harness/core/printable_text.hpp"

namespace scalestudy {

void Diagnostics::add(const SourceLocation& where, const std::string& field,
                      const std::string& message) {
  std::string text = where.to_string() + ": ";
  if (!field.empty()) text += "field '" + field + "': ";
  text = printable_text(text + message);
  if (seen_.insert(text).second) messages_.push_back(std::move(text));
}

void Diagnostics::add_unknown(const SourceLocation& where, const std::string& field,
                              const std::string& what, const std::string& word,
                              const std::vector<std::string>& candidates) {
  std::string message = "unknown " + what + " '" + word + "'";
  if (auto suggestion = nearest_name(word, candidates)) {
    message += " (did you mean '" + *suggestion + "'?)";
  }
  add(where, field, message);
}

void Diagnostics::absorb(const Diagnostics& other) {
  for (const auto& message : other.messages_) {
    if (seen_.insert(message).second) messages_.push_back(message);
  }
}

Status Diagnostics::to_status() const {
  if (messages_.empty()) return Status::ok();
  std::string joined;
  for (const auto& message : messages_) {
    if (!joined.empty()) joined += '\n';
    joined += message;
  }
  return Status::error(joined);
}

}  // namespace scalestudy
