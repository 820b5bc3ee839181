#include "orchestrator/sched/render/profile_wrapper.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace scalestudy {
namespace {

std::string position(const std::string& path, const YAML::Mark& mark) {
  return path + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

Status read_params(const std::string& path, const YAML::Node& params,
                   std::map<std::string, std::string>& out) {
  if (!params.IsMap()) {
    return Status::error(position(path, params.Mark()) + ": field 'params': expected a map");
  }
  for (const auto& entry : params) {
    if (!entry.second.IsScalar()) {
      return Status::error(position(path, entry.second.Mark()) + ": field 'params." +
                           entry.first.Scalar() + "': expected a single value");
    }
    out[entry.first.Scalar()] = entry.second.Scalar();
  }
  return Status::ok();
}

Status read_wrapper(const std::string& path, const YAML::Node& wrapper,
                    std::vector<std::string>& out) {
  if (!wrapper.IsSequence()) {
    return Status::error(position(path, wrapper.Mark()) +
                         ": field 'wrapper': expected a list of words");
  }
  for (const auto& word : wrapper) {
    if (!word.IsScalar()) {
      return Status::error(position(path, word.Mark()) +
                           ": field 'wrapper': each word is a single value");
    }
    out.push_back(word.Scalar());
  }
  return Status::ok();
}

}  // namespace

Result<ProfileDefinition> load_profile(const std::string& profiles_dir, const std::string& name) {
  const std::string path = (std::filesystem::path(profiles_dir) / (name + ".yaml")).string();
  if (!std::filesystem::is_regular_file(path)) {
    return Status::error("profile '" + name + "': no file " + path);
  }
  ProfileDefinition profile;
  profile.name = name;
  try {
    YAML::Node root = YAML::LoadFile(path);
    if (YAML::Node params = root["params"]) {
      if (Status read = read_params(path, params, profile.params); !read) return read;
    }
    if (YAML::Node wrapper = root["wrapper"]) {
      if (Status read = read_wrapper(path, wrapper, profile.wrapper); !read) return read;
    }
  } catch (const YAML::Exception& error) {
    return Status::error(position(path, error.mark) + ": " + error.msg);
  }
  return profile;
}

std::string expand_wrapper_word(std::string word, const std::string& out_dir,
                                const std::string& run_id) {
  for (const auto& [placeholder, value] :
       {std::pair<std::string, const std::string&>{"{{out_dir}}", out_dir},
        std::pair<std::string, const std::string&>{"{{run_id}}", run_id}}) {
    for (size_t at = word.find(placeholder); at != std::string::npos;
         at = word.find(placeholder, at + value.size())) {
      word.replace(at, placeholder.size(), value);
    }
  }
  return word;
}

}  // namespace scalestudy
