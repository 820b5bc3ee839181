// libscalestudy_nvtx_trace.so: an NVTX injection library that writes every NVTX range and
// mark of a process as a Chrome trace (chrome://tracing, Perfetto). NVTX loads it when
// NVTX_INJECTION64_PATH names it; it then receives the core and domain push/pop/mark
// calls instead of a profiler. The trace goes to $SCALESTUDY_NVTX_TRACE, where "{rank}"
// becomes RANK (else SLURM_PROCID, else 0) and "%p" the process id. It is the `torch`
// profile's trace writer (Debian's LibTorch has no Kineto) and the NVTX test's recorder.
//
// Format: the Chrome "JSON Array" trace, one event per line, written as it happens:
//   {"name":"step","cat":"scalestudy","ph":"B","ts":12.5,"pid":1,"tid":2,"args":{"payload":3}}
// "B"/"E" open and close a push/pop range on a thread, "i" is a mark; ts in microseconds of
// CLOCK_MONOTONIC; cat is the domain ("default" for the global one). The closing "]" is
// written at exit; Chrome's format allows it missing after a crash. Thread-safe: events
// are written under one mutex, range stacks are per thread.
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

class TraceFile {
 public:
  bool open(const std::string& path) {
    file_ = std::fopen(path.c_str(), "w");
    if (file_ == nullptr) return false;
    std::fputs("[", file_);
    return true;
  }
  ~TraceFile() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (file_ == nullptr) return;
    std::fputs("\n]\n", file_);
    std::fclose(file_);
    file_ = nullptr;  // ranges popped by later static destructors are dropped
  }
  void write(const std::string& event) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (file_ == nullptr) return;
    std::fputs(first_ ? "\n" : ",\n", file_);
    std::fputs(event.c_str(), file_);
    std::fflush(file_);  // readable while the process runs, and after a crash
    first_ = false;
  }

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  bool first_ = true;
};

// Process-wide by necessity: NVTX calls plain C function pointers with no user data.
TraceFile trace;
std::mutex names_mutex;
std::map<const void*, std::string> domain_names;  // nvtxDomainHandle_t -> name
std::vector<std::string> registered_strings;      // nvtxStringHandle_t - 1 -> text

// Keeps domain handles distinct from nullptr (the default domain) and stable.
struct DomainTag {};

std::string escape_json(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof(code), "\\u%04x", c);
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string domain_name(nvtxDomainHandle_t domain) {
  if (domain == nullptr) return "default";
  std::lock_guard<std::mutex> lock(names_mutex);
  auto found = domain_names.find(domain);
  return found == domain_names.end() ? "unknown" : found->second;
}

std::string message_of(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return "";
  if (attributes->messageType == NVTX_MESSAGE_TYPE_ASCII && attributes->message.ascii) {
    return attributes->message.ascii;
  }
  if (attributes->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
    auto index = reinterpret_cast<uintptr_t>(attributes->message.registered);
    std::lock_guard<std::mutex> lock(names_mutex);
    if (index >= 1 && index <= registered_strings.size()) return registered_strings[index - 1];
  }
  return "";
}

std::string payload_json(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return "";
  char text[64];
  switch (attributes->payloadType) {
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
      std::snprintf(text, sizeof(text), "%" PRIu64, attributes->payload.ullValue);
      break;
    case NVTX_PAYLOAD_TYPE_INT64:
      std::snprintf(text, sizeof(text), "%" PRId64, attributes->payload.llValue);
      break;
    case NVTX_PAYLOAD_TYPE_DOUBLE:
      std::snprintf(text, sizeof(text), "%.17g", attributes->payload.dValue);
      break;
    default:
      return "";
  }
  return text;
}

void write_event(const char* phase, const std::string& domain, const std::string& name,
                 const std::string& payload) {
  static const long pid = static_cast<long>(getpid());
  thread_local const long tid = static_cast<long>(syscall(SYS_gettid));
  char head[160];
  std::snprintf(head, sizeof(head), "\",\"ph\":\"%s\",\"ts\":%.3f,\"pid\":%ld,\"tid\":%ld", phase,
                now_us(), pid, tid);
  std::string event =
      "{\"name\":\"" + escape_json(name) + "\",\"cat\":\"" + escape_json(domain) + head;
  if (phase[0] == 'i') event += ",\"s\":\"t\"";
  if (!payload.empty()) event += ",\"args\":{\"payload\":" + payload + "}";
  event += "}";
  trace.write(event);
}

// Open ranges of this thread per domain, so a pop names the range it closes.
thread_local std::map<std::string, std::vector<std::string>> open_ranges;

int push(const std::string& domain, const std::string& name, const std::string& payload) {
  auto& stack = open_ranges[domain];
  stack.push_back(name);
  write_event("B", domain, name, payload);
  return static_cast<int>(stack.size()) - 1;
}

int pop(const std::string& domain) {
  auto& stack = open_ranges[domain];
  if (stack.empty()) return -1;
  write_event("E", domain, stack.back(), "");
  stack.pop_back();
  return static_cast<int>(stack.size());
}

int NVTX_API range_push_a(const char* message) {
  return push("default", message ? message : "", "");
}
int NVTX_API range_push_ex(const nvtxEventAttributes_t* attributes) {
  return push("default", message_of(attributes), payload_json(attributes));
}
int NVTX_API range_pop() {
  return pop("default");
}
void NVTX_API mark_a(const char* message) {
  write_event("i", "default", message ? message : "", "");
}
void NVTX_API mark_ex(const nvtxEventAttributes_t* attributes) {
  write_event("i", "default", message_of(attributes), payload_json(attributes));
}

nvtxDomainHandle_t NVTX_API domain_create_a(const char* name) {
  std::string text = name ? name : "";
  std::lock_guard<std::mutex> lock(names_mutex);
  for (const auto& [handle, known] : domain_names) {
    if (known == text) return static_cast<nvtxDomainHandle_t>(const_cast<void*>(handle));
  }
  auto* handle = new DomainTag;  // lives as long as the process: NVTX may use it until exit
  domain_names[handle] = text;
  return reinterpret_cast<nvtxDomainHandle_t>(handle);
}
void NVTX_API domain_destroy(nvtxDomainHandle_t) {}
nvtxStringHandle_t NVTX_API domain_register_string_a(nvtxDomainHandle_t, const char* text) {
  std::lock_guard<std::mutex> lock(names_mutex);
  registered_strings.emplace_back(text ? text : "");
  return reinterpret_cast<nvtxStringHandle_t>(static_cast<uintptr_t>(registered_strings.size()));
}
int NVTX_API domain_push_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  return push(domain_name(domain), message_of(attributes), payload_json(attributes));
}
int NVTX_API domain_pop(nvtxDomainHandle_t domain) {
  return pop(domain_name(domain));
}
void NVTX_API domain_mark_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  write_event("i", domain_name(domain), message_of(attributes), payload_json(attributes));
}

std::string trace_path() {
  const char* configured = std::getenv("SCALESTUDY_NVTX_TRACE");
  if (configured == nullptr || *configured == '\0') return "";
  const char* rank = std::getenv("RANK");
  if (rank == nullptr) rank = std::getenv("SLURM_PROCID");
  std::string path = configured;
  for (const auto& [token, value] :
       {std::pair<std::string, std::string>{"{rank}", rank ? rank : "0"},
        std::pair<std::string, std::string>{"%p", std::to_string(getpid())}}) {
    for (size_t at = path.find(token); at != std::string::npos; at = path.find(token, at)) {
      path.replace(at, token.size(), value);
    }
  }
  return path;
}

bool install(NvtxGetExportTableFunc_t get_export_table, NvtxCallbackModule module,
             const std::vector<std::pair<unsigned, NvtxFunctionPointer>>& callbacks) {
  auto* exports =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (exports == nullptr || !exports->GetModuleFunctionTable(module, &table, &size)) return false;
  for (const auto& [id, function] : callbacks) {
    if (id < size && table[id] != nullptr) *table[id] = function;
  }
  return true;
}

template <typename F>
NvtxFunctionPointer fn(F function) {
  return reinterpret_cast<NvtxFunctionPointer>(function);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  std::string path = trace_path();
  if (path.empty() || !trace.open(path)) {
    std::fprintf(stderr, "scalestudy nvtx trace: cannot write '%s' (set SCALESTUDY_NVTX_TRACE)\n",
                 path.c_str());
    return 0;  // NVTX then disables itself: the run goes on without a trace
  }
  bool core = install(get_export_table, NVTX_CB_MODULE_CORE,
                      {{NVTX_CBID_CORE_MarkEx, fn(&mark_ex)},
                       {NVTX_CBID_CORE_MarkA, fn(&mark_a)},
                       {NVTX_CBID_CORE_RangePushEx, fn(&range_push_ex)},
                       {NVTX_CBID_CORE_RangePushA, fn(&range_push_a)},
                       {NVTX_CBID_CORE_RangePop, fn(&range_pop)}});
  bool core2 = install(get_export_table, NVTX_CB_MODULE_CORE2,
                       {{NVTX_CBID_CORE2_DomainMarkEx, fn(&domain_mark_ex)},
                        {NVTX_CBID_CORE2_DomainRangePushEx, fn(&domain_push_ex)},
                        {NVTX_CBID_CORE2_DomainRangePop, fn(&domain_pop)},
                        {NVTX_CBID_CORE2_DomainRegisterStringA, fn(&domain_register_string_a)},
                        {NVTX_CBID_CORE2_DomainCreateA, fn(&domain_create_a)},
                        {NVTX_CBID_CORE2_DomainDestroy, fn(&domain_destroy)}});
  return core && core2 ? 1 : 0;
}
