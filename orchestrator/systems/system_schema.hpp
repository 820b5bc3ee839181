// The system file's schema (docs/systems.md): reads a merged system document into a
// SystemSpec, reporting every problem as "file:line:col: field 'a.b': message" and reading
// on, so one pass shows them all. Unknown keys are refused (with a did-you-mean); the keys of
// `scheduler:` are the ones its backend's registry entry declares. Pure apart from the
// diagnostics.
#pragma once

#include "orchestrator/study/diagnostics.hpp"
#include "orchestrator/systems/system_document.hpp"
#include "orchestrator/systems/system_spec.hpp"

namespace scalestudy::systems {

SystemSpec read_system(const SystemDocument& document, Diagnostics& diagnostics);

// What changes how a system's runs run, as text: the system's hash is taken of it
// (docs/systems.md, "Identity").
std::string canonical_system_serialization(const SystemSpec& system);

// The precisions `peak.tflops` may name.
const std::vector<std::string>& peak_precisions();

}  // namespace scalestudy::systems
