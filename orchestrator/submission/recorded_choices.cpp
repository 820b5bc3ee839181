#include "orchestrator/submission/recorded_choices.hpp"

#include <set>

#include "harness/core/nearest_name.hpp"
#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/submission/system_choice.hpp"

namespace scalestudy::submission {
namespace {

constexpr char kCampaignOption[] = "--campaign";
constexpr char kSchedulerOption[] = "--scheduler";
constexpr char kPackedOption[] = "--packed";
// Never recorded, but `submit` takes them, and so did waves that parsed the options as it does.
constexpr char kDryRunOption[] = "--dry-run";
constexpr char kMaxGpuHoursOption[] = "--max-gpu-hours";
constexpr char kResultsDirOption[] = "--results-dir";

// The scheduler option `flag` as the registry declares it, or nullptr.
const sched::SchedulerOption* declared_option(const std::string& flag) {
  for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
    for (const sched::SchedulerOption& option : entry.options) {
      if (option.flag == flag) return &option;
    }
  }
  return nullptr;
}

// Every option `submit` takes, its value options first, each kind in order: the names an
// unknown option is matched against.
std::vector<std::string> submit_options() {
  std::set<std::string> values = {kSchedulerOption, kResultsDirOption, kMaxGpuHoursOption,
                                  kCampaignOption, kSystemOption};
  std::set<std::string> flags = {kDryRunOption, kPackedOption};
  for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
    for (const sched::SchedulerOption& option : entry.options) {
      (option.value_name.empty() ? flags : values).insert(option.flag);
    }
  }
  std::vector<std::string> known(values.begin(), values.end());
  known.insert(known.end(), flags.begin(), flags.end());
  return known;
}

}  // namespace

std::vector<std::string> recorded_choices(const SubmitRequest& request,
                                          const std::string& campaign) {
  std::vector<std::string> options;
  if (!campaign.empty()) options.insert(options.end(), {kCampaignOption, campaign});
  for (const auto& [flag, value] : request.scheduler_options) {
    options.push_back(flag);
    if (!value.empty()) options.push_back(value);
  }
  if (request.packed) options.push_back(kPackedOption);
  if (request.scheduler) {
    options.push_back(kSchedulerOption);
    options.push_back(*request.scheduler);
  }
  for (const std::string& label : request.systems) {
    options.push_back(kSystemOption);
    options.push_back(label);
  }
  return options;
}

Result<SubmitRequest> request_from_recorded_choices(const std::vector<std::string>& options) {
  SubmitRequest request;
  for (size_t index = 0; index < options.size(); ++index) {
    const std::string& flag = options[index];
    if (flag == kPackedOption || flag == kDryRunOption) {
      (flag == kPackedOption ? request.packed : request.dry_run) = true;
      continue;
    }
    const sched::SchedulerOption* declared = declared_option(flag);
    const bool takes_value = flag == kCampaignOption || flag == kSchedulerOption ||
                             flag == kSystemOption || flag == kMaxGpuHoursOption ||
                             flag == kResultsDirOption ||
                             (declared != nullptr && !declared->value_name.empty());
    // The messages of `submit`'s own parsing (cli/args).
    if (declared == nullptr && !takes_value) {
      std::string message = "unknown option " + flag;
      if (auto suggestion = nearest_name(flag, submit_options())) {
        message += " (did you mean " + *suggestion + "?)";
      }
      return Status::error(message);
    }
    if (takes_value && index + 1 == options.size()) {
      return Status::error("option " + flag + " needs a value");
    }
    const std::string value = takes_value ? options[++index] : "";
    if (flag == kCampaignOption) {
      request.campaign = value;
    } else if (flag == kSchedulerOption) {
      request.scheduler = value;
    } else if (flag == kSystemOption) {
      request.systems.push_back(value);
    } else if (flag == kMaxGpuHoursOption) {
      request.max_gpu_hours = value;
    } else if (flag != kResultsDirOption) {  // the waves' results dir is the database's
      request.scheduler_options[flag] = value;
    }
  }
  return request;
}

}  // namespace scalestudy::submission
