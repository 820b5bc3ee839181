// ASCII case folding for text compared without case: names that protocols and file systems
// fold (HTTP header names, digest prefixes, image extensions, PCI addresses) and log or error
// lines matched against patterns. Locale-free and stateless.
#pragma once

#include <cctype>
#include <string>

namespace scalestudy {

inline std::string ascii_lowercase(std::string text) {
  for (auto& character : text) {
    character = static_cast<char>(std::tolower(static_cast<unsigned char>(character)));
  }
  return text;
}

}  // namespace scalestudy
