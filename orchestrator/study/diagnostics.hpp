// Diagnostics: the errors found while reading one study, each "file:line:column: field
// 'a.b': message". The study loader collects every error it can find before giving up, so
// `scalestudy validate` shows them all at once. Not synchronised; one per load.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/study/source_location.hpp"

namespace scalestudy {

class Diagnostics {
 public:
  // Identical messages are kept once; control bytes are escaped (printable_text).
  void add(const SourceLocation& where, const std::string& field, const std::string& message);
  // As add(), with " (did you mean 'x'?)" appended when a candidate is close to `word`.
  void add_unknown(const SourceLocation& where, const std::string& field, const std::string& what,
                   const std::string& word, const std::vector<std::string>& candidates);

  // Every message of `other` not already here, in its order.
  void absorb(const Diagnostics& other);

  bool empty() const { return messages_.empty(); }
  size_t size() const { return messages_.size(); }
  // Every message, one per line; ok when there are none.
  Status to_status() const;

 private:
  std::vector<std::string> messages_;
  std::unordered_set<std::string> seen_;  // the same problem in many runs is reported once
};

}  // namespace scalestudy
