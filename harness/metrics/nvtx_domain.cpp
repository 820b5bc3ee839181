#include "harness/metrics/nvtx_domain.hpp"

#if SCALESTUDY_HAVE_NVTX3
#include <nvtx3/nvToolsExt.h>
#endif

namespace scalestudy::metrics {

#if SCALESTUDY_HAVE_NVTX3

NvtxDomain::NvtxDomain(const char* name) : handle_(nvtxDomainCreateA(name)) {}

NvtxDomain::~NvtxDomain() {
  nvtxDomainDestroy(static_cast<nvtxDomainHandle_t>(handle_));
}

void NvtxDomain::push(const char* range_name) const {
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = range_name;
  nvtxDomainRangePushEx(static_cast<nvtxDomainHandle_t>(handle_), &attributes);
}

void NvtxDomain::pop() const {
  nvtxDomainRangePop(static_cast<nvtxDomainHandle_t>(handle_));
}

bool NvtxDomain::available() {
  return true;
}

#else

NvtxDomain::NvtxDomain(const char*) {}
NvtxDomain::~NvtxDomain() = default;
void NvtxDomain::push(const char*) const {}
void NvtxDomain::pop() const {}
bool NvtxDomain::available() {
  return false;
}

#endif

}  // namespace scalestudy::metrics
