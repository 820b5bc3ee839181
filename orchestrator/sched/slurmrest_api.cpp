#include "orchestrator/sched/slurmrest_api.hpp"

#include <algorithm>
#include <regex>
#include <set>

namespace scalestudy::sched {

Result<RestApi> parse_rest_api(const std::string& text) {
  static const std::regex kVersion("(db)?v0\\.0\\.([0-9]{1,3})");
  std::smatch match;
  if (!std::regex_match(text, match, kVersion)) {
    return Status::error("'" + text + "' is not a slurmrestd API version (like v0.0.42)");
  }
  return RestApi{std::stoi(match[2].str())};
}

std::vector<RestApi> spoken_rest_apis() {
  return {RestApi{45}, RestApi{44}, RestApi{43}, RestApi{42},
          RestApi{41}, RestApi{40}, RestApi{38}};
}

std::vector<RestApi> offered_rest_apis(const nlohmann::json& openapi) {
  static const std::regex kPathVersion("^/slurm(db)?/((db)?v0\\.0\\.[0-9]+)/");
  std::set<RestApi> offered;
  if (!openapi.contains("paths") || !openapi["paths"].is_object()) return {};
  for (const auto& [path, unused] : openapi["paths"].items()) {
    std::smatch match;
    if (!std::regex_search(path, match, kPathVersion)) continue;
    if (auto api = parse_rest_api(match[2].str())) offered.insert(*api);
  }
  return {offered.begin(), offered.end()};
}

std::string rest_api_names(const std::vector<RestApi>& apis) {
  std::string names;
  for (const auto& api : apis) names += (names.empty() ? "" : ", ") + api.name();
  return names.empty() ? "none" : names;
}

Result<RestApi> choose_rest_api(const std::vector<RestApi>& offered, const std::string& pinned) {
  const std::vector<RestApi> spoken = spoken_rest_apis();
  auto has = [](const std::vector<RestApi>& apis, const RestApi& api) {
    return std::find(apis.begin(), apis.end(), api) != apis.end();
  };
  if (!pinned.empty()) {
    auto api = parse_rest_api(pinned);
    if (!api) return api.status();
    if (!has(spoken, *api)) {
      return Status::error("slurmrestd API " + pinned + " is not one scalestudy speaks (" +
                           rest_api_names(spoken) + ")");
    }
    if (!has(offered, *api)) {
      return Status::error("slurmrestd API " + pinned + " is not offered by this slurmrestd (it " +
                           "offers " + rest_api_names(offered) + ")");
    }
    return *api;
  }
  for (const auto& api : spoken) {  // newest first
    if (has(offered, api)) return api;
  }
  return Status::error("this slurmrestd offers " + rest_api_names(offered) +
                       ", none of which scalestudy speaks (" + rest_api_names(spoken) + ")");
}

}  // namespace scalestudy::sched
