#include "orchestrator/campaign/campaign_name.hpp"

#include <algorithm>
#include <cctype>

namespace scalestudy::campaign {

std::string campaign_storage_name(const std::string& study, const std::string& campaign) {
  return campaign.empty() || campaign == kDefaultCampaign ? study : study + "@" + campaign;
}

Status check_campaign_name(const std::string& name) {
  const bool allowed =
      !name.empty() && name.size() <= 64 && name[0] != '.' && name[0] != '-' &&
      std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
      });
  if (!allowed) {
    return Status::error("--campaign '" + name +
                         "': a campaign name is 1 to 64 letters, digits, '.', '_' or '-', "
                         "not starting with '.' or '-'");
  }
  if (name == "auto" || name == kDefaultCampaign) {
    return Status::error("--campaign '" + name + "' is reserved");
  }
  return Status::ok();
}

std::string auto_campaign_name(const std::string& utc_date_yyyymmdd, const std::string& git_commit,
                               const std::string& content_key) {
  // The content key tells apart builds of one commit (a dirty tree) and binaries that do not
  // say their commit; a rebuild of the same sources keeps it.
  const std::string digits = content_key.substr(content_key.rfind('-') + 1).substr(0, 8);
  std::string name = utc_date_yyyymmdd;
  if (!git_commit.empty() && git_commit != "unknown") name += "-" + git_commit.substr(0, 7);
  return name + "-" + (digits.empty() ? "unknown" : digits);
}

}  // namespace scalestudy::campaign
