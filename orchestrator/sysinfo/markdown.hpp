// SYSTEM.md: the sections as Markdown tables (value and where it came from), followed by
// the human notes that a previous SYSTEM.md carried under "## Human notes" — the
// generator rewrites everything above that heading and keeps everything below it.
// Pure functions.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.hpp"
#include "orchestrator/sysinfo/section.hpp"

namespace scalestudy::sysinfo {

extern const char kHumanNotesHeading[];  // "## Human notes"

// `human_notes` is the text to place under the heading (see extract_human_notes).
std::string render_system_markdown(const std::vector<Section>& sections,
                                   const std::string& generated_at, const std::string& human_notes);

// Everything after the "## Human notes" heading line of an existing SYSTEM.md; nullopt-like
// empty string when the file has no such heading.
std::string extract_human_notes(const std::string& existing_markdown);

// Renders `sections` into the SYSTEM.md at `path` (created if missing), keeping the human
// notes it has, and replaces it atomically: written beside it, then rename(2)d over it.
Status update_system_file(const std::string& path, const std::vector<Section>& sections,
                          const std::string& generated_at);

// The notes a fresh SYSTEM.md starts with: what the generator cannot know.
std::string default_human_notes();

}  // namespace scalestudy::sysinfo
