// A Section is what one probe found about one part of the machine (CPU, GPUs, SLURM ...):
// facts with a stable key (the key/value form the run database stores as provenance),
// a human label and the place each value came from, plus tables and notes for Markdown.
// Plain value types.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace scalestudy::sysinfo {

struct Fact {
  std::string key;      // stable snake_case key: "cpu_model", "memory_total_bytes"
  std::string label;    // Markdown row label: "Model"
  std::string value;    // machine-readable value; empty when it could not be found
  std::string display;  // Markdown text when it differs from value ("23.5 GiB"); may be empty
  std::string source;   // where it came from, or what was searched when not found
};

struct Table {
  std::string title;  // rendered as a "###" heading; may be empty
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct Section {
  std::string title;
  std::vector<Fact> facts;
  std::vector<Table> tables;
  std::vector<std::string> notes;  // Markdown paragraphs after the tables

  void add(std::string key, std::string label, std::string value, std::string source) {
    facts.push_back({std::move(key), std::move(label), std::move(value), "", std::move(source)});
  }
  void add_bytes(std::string key, std::string label, unsigned long long bytes, std::string source);
};

// key -> value of every fact that was found, across sections.
std::map<std::string, std::string> facts_of(const std::vector<Section>& sections);

}  // namespace scalestudy::sysinfo
