#include "orchestrator/sysinfo/section.hpp"

#include "orchestrator/common/human_bytes.hpp"
#include "orchestrator/sysinfo/text.hpp"

namespace scalestudy::sysinfo {

void Section::add_bytes(std::string key, std::string label, unsigned long long bytes,
                        std::string source) {
  facts.push_back({std::move(key), std::move(label), std::to_string(bytes),
                   common::human_bytes(bytes), std::move(source)});
}

std::map<std::string, std::string> facts_of(const std::vector<Section>& sections) {
  std::map<std::string, std::string> facts;
  for (const auto& section : sections) {
    for (const auto& fact : section.facts) {
      if (!fact.value.empty()) facts[fact.key] = fact.value;
    }
  }
  return facts;
}

}  // namespace scalestudy::sysinfo
