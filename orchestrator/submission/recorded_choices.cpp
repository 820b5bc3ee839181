#include "orchestrator/submission/recorded_choices.hpp"

#include "orchestrator/sched/scheduler_registry.hpp"
#include "orchestrator/submission/system_choice.hpp"

namespace scalestudy::submission {
namespace {

constexpr char kCampaignOption[] = "--campaign";
constexpr char kSchedulerOption[] = "--scheduler";
constexpr char kPackedOption[] = "--packed";

// The scheduler option `flag` as the registry declares it, or nullptr.
const sched::SchedulerOption* declared_option(const std::string& flag) {
  for (const sched::SchedulerEntry& entry : sched::scheduler_entries()) {
    for (const sched::SchedulerOption& option : entry.options) {
      if (option.flag == flag) return &option;
    }
  }
  return nullptr;
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
    if (flag == kPackedOption) {
      request.packed = true;
      continue;
    }
    const sched::SchedulerOption* declared = declared_option(flag);
    const bool takes_value = flag == kCampaignOption || flag == kSchedulerOption ||
                             flag == kSystemOption ||
                             (declared != nullptr && !declared->value_name.empty());
    if (declared == nullptr && !takes_value) {
      return Status::error("recorded submit option " + flag + " is not a submit option");
    }
    if (takes_value && index + 1 == options.size()) {
      return Status::error("recorded submit option " + flag + " has no value");
    }
    const std::string value = takes_value ? options[++index] : "";
    if (flag == kCampaignOption) {
      request.campaign = value;
    } else if (flag == kSchedulerOption) {
      request.scheduler = value;
    } else if (flag == kSystemOption) {
      request.systems.push_back(value);
    } else {
      request.scheduler_options[flag] = value;
    }
  }
  return request;
}

}  // namespace scalestudy::submission
