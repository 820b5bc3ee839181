#include "orchestrator/sched/render/profile_wrapper.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace scalestudy {

Result<std::vector<std::string>> load_profile_wrapper(const std::string& profiles_dir,
                                                      const std::string& name) {
  std::string path = (std::filesystem::path(profiles_dir) / (name + ".yaml")).string();
  if (!std::filesystem::is_regular_file(path)) {
    return Status::error("profile '" + name + "': no file " + path);
  }
  try {
    YAML::Node root = YAML::LoadFile(path);
    YAML::Node wrapper = root["wrapper"];
    if (!wrapper) return std::vector<std::string>{};
    if (!wrapper.IsSequence()) {
      return Status::error(path + ":" + std::to_string(wrapper.Mark().line + 1) + ":" +
                           std::to_string(wrapper.Mark().column + 1) +
                           ": field 'wrapper': expected a list of words");
    }
    std::vector<std::string> words;
    for (const auto& word : wrapper) {
      if (!word.IsScalar()) {
        return Status::error(path + ":" + std::to_string(word.Mark().line + 1) + ":" +
                             std::to_string(word.Mark().column + 1) +
                             ": field 'wrapper': each word is a single value");
      }
      words.push_back(word.Scalar());
    }
    return words;
  } catch (const YAML::Exception& error) {
    return Status::error(path + ":" + std::to_string(error.mark.line + 1) + ":" +
                         std::to_string(error.mark.column + 1) + ": " + error.msg);
  }
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
