#include "harness/metrics/nvtx_domain.hpp"

#if SCALESTUDY_HAVE_NVTX3
#include <nvtx3/nvToolsExt.h>
#endif

namespace scalestudy::metrics {

#if SCALESTUDY_HAVE_NVTX3
namespace {

nvtxEventAttributes_t attributes_of(const char* name, int64_t payload) {
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  attributes.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  attributes.payload.llValue = payload;
  return attributes;
}

}  // namespace

NvtxDomain::NvtxDomain(const char* name) : handle_(nvtxDomainCreateA(name)) {}

NvtxDomain::~NvtxDomain() {
  nvtxDomainDestroy(static_cast<nvtxDomainHandle_t>(handle_));
}

void NvtxDomain::push(const char* range_name, int64_t payload) const {
  nvtxEventAttributes_t attributes = attributes_of(range_name, payload);
  nvtxDomainRangePushEx(static_cast<nvtxDomainHandle_t>(handle_), &attributes);
}

void NvtxDomain::pop() const {
  nvtxDomainRangePop(static_cast<nvtxDomainHandle_t>(handle_));
}

void NvtxDomain::mark(const char* name, int64_t payload) const {
  nvtxEventAttributes_t attributes = attributes_of(name, payload);
  nvtxDomainMarkEx(static_cast<nvtxDomainHandle_t>(handle_), &attributes);
}

bool NvtxDomain::available() {
  return true;
}

#else

NvtxDomain::NvtxDomain(const char*) {}
NvtxDomain::~NvtxDomain() = default;
void NvtxDomain::push(const char*, int64_t) const {}
void NvtxDomain::pop() const {}
void NvtxDomain::mark(const char*, int64_t) const {}
bool NvtxDomain::available() {
  return false;
}

#endif

}  // namespace scalestudy::metrics
