#include "orchestrator/study/study_name.hpp"

#include <algorithm>
#include <cctype>

namespace scalestudy {

bool is_study_name(const std::string& text) {
  return !text.empty() && text.size() <= 100 && std::isalnum(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
         });
}

}  // namespace scalestudy
