#include "orchestrator/study/allocation_section.hpp"

#include "orchestrator/study/schema_values.hpp"

namespace scalestudy {

void read_allocation_section(const ConfigNode& document, StudyTemplate& study,
                             Diagnostics& diagnostics) {
  const ConfigNode* allocation = document.find("allocation");
  if (!allocation) return;
  auto text = read_scalar(*allocation, "allocation", diagnostics);
  if (!text) return;
  if (*text == "packed" || *text == "per_run") {
    study.info.packed_allocation = *text == "packed";
  } else {
    diagnostics.add_unknown(allocation->location, "allocation", "allocation", *text,
                            {"per_run", "packed"});
  }
}

}  // namespace scalestudy
