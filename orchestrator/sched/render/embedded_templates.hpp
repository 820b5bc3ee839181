// The job-script templates of slurm/templates/, compiled into the binary (CMake generates
// embedded_templates.cpp from the .sh.in files), so the CLI needs no data files at run time.
#pragma once

namespace scalestudy {

extern const char* const kSbatchTemplate;  // slurm/templates/sbatch.sh.in

}  // namespace scalestudy
