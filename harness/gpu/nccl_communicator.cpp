#include "harness/gpu/nccl_communicator.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "harness/dist/tensor_layout.hpp"
#include "harness/gpu/cuda_device.hpp"

namespace scalestudy::gpu {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kUniqueIdKey = "scalestudy/nccl/unique_id";

Status peer_failure(const std::string& what, const std::string& reason) {
  return Status::error("peer rank died or timed out: " + what + ": " + reason);
}

Result<ncclDataType_t> nccl_type(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return ncclFloat32;
    case at::kDouble:
      return ncclFloat64;
    case at::kHalf:
      return ncclFloat16;
    case at::kBFloat16:
      return ncclBfloat16;
    case at::kInt:
      return ncclInt32;
    case at::kLong:
      return ncclInt64;
    case at::kByte:
      return ncclUint8;
    default:
      return Status::error(std::string("NCCL cannot reduce tensors of type ") +
                           c10::toString(type));
  }
}

ncclRedOp_t nccl_op(dist::ScalarReduction reduction) {
  switch (reduction) {
    case dist::ScalarReduction::kMax:
      return ncclMax;
    case dist::ScalarReduction::kMin:
      return ncclMin;
    case dist::ScalarReduction::kSum:
      break;
  }
  return ncclSum;
}

bool stream_is_capturing(const c10::cuda::CUDAStream& stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(stream.stream(), &status) == cudaSuccess &&
         status != cudaStreamCaptureStatusNone;
}

class FailedWork : public dist::CollectiveWork {
 public:
  explicit FailedWork(Status status) : status_(std::move(status)) {}
  Status wait() override { return status_; }

 private:
  Status status_;
};

class NcclCommunicator : public dist::Communicator {
 public:
  NcclCommunicator(ncclComm_t comm, c10::intrusive_ptr<c10d::Store> store, int rank, int world_size,
                   c10::Device device, std::chrono::milliseconds timeout)
      : store_(std::move(store)),
        comm_(comm),
        rank_(rank),
        world_size_(world_size),
        device_(device),
        timeout_(timeout),
        comm_stream_(c10::cuda::getStreamFromPool(/*isHighPriority=*/true, device.index())),
        watchdog_([this] { watch(); }) {}

  ~NcclCommunicator() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    watchdog_.join();
    if (aborted_) return;
    // Finalize flushes outstanding work; it is bounded like everything else.
    if (!poll_until_ready(ncclCommFinalize(comm_), "finalize").is_ok()) return;
    ncclCommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  std::string backend() const override { return "nccl"; }

  std::unique_ptr<dist::CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) override {
    auto done = enqueue("all-reduce", tensor,
                        [&](void* data, size_t count, ncclDataType_t type, cudaStream_t stream) {
                          return ncclAllReduce(data, data, count, type, ncclSum, comm_, stream);
                        });
    if (!done.is_ok()) return std::make_unique<FailedWork>(done.status());
    return std::make_unique<Work>(*this, std::move(done).value());
  }

  Status broadcast(const torch::Tensor& tensor, int root_rank) override {
    return run_blocking("broadcast", tensor,
                        [&](void* data, size_t count, ncclDataType_t type, cudaStream_t stream) {
                          return ncclBroadcast(data, data, count, type, root_rank, comm_, stream);
                        });
  }

  Status barrier() override {
    torch::Tensor token = torch::zeros({1}, torch::TensorOptions().device(device_));
    return run_blocking("barrier", token,
                        [&](void* data, size_t count, ncclDataType_t type, cudaStream_t stream) {
                          return ncclAllReduce(data, data, count, type, ncclSum, comm_, stream);
                        });
  }

 protected:
  Status allreduce_tensor(const torch::Tensor& tensor, dist::ScalarReduction reduction) override {
    torch::Tensor on_device = tensor.to(device_);
    Status status = run_blocking(
        "scalar all-reduce", on_device,
        [&](void* data, size_t count, ncclDataType_t type, cudaStream_t stream) {
          return ncclAllReduce(data, data, count, type, nccl_op(reduction), comm_, stream);
        });
    if (status.is_ok()) tensor.copy_(on_device);
    return status;
  }

 private:
  using Event = std::shared_ptr<at::cuda::CUDAEvent>;

  class Work : public dist::CollectiveWork {
   public:
    Work(NcclCommunicator& owner, Event done) : owner_(owner), done_(std::move(done)) {}
    Status wait() override {
      if (Status failure = owner_.failure(); !failure.is_ok()) return failure;
      done_->block(at::cuda::getCurrentCUDAStream(owner_.device_.index()));
      return Status::ok();
    }

   private:
    NcclCommunicator& owner_;
    Event done_;
  };

  struct InFlight {
    Event done;
    Clock::time_point started;
    std::string what;
  };

  Status failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

  // Orders the communication stream after the caller's, launches the collective there and
  // returns its completion event.
  template <typename Launch>
  Result<Event> enqueue(const std::string& what, const torch::Tensor& tensor, Launch&& launch) {
    if (Status failed = failure(); !failed.is_ok()) return failed;
    if (!tensor.is_cuda() || !dist::is_dense_in_own_layout(tensor)) {
      return Status::error("NCCL " + what + " needs a CUDA tensor dense in its memory format");
    }
    Result<ncclDataType_t> type = nccl_type(tensor.scalar_type());
    if (!type.is_ok()) return type.status();
    c10::cuda::CUDAGuard guard(device_);
    c10::cuda::CUDAStream caller = at::cuda::getCurrentCUDAStream(device_.index());
    at::cuda::CUDAEvent ready;
    ready.record(caller);
    ready.block(comm_stream_);
    // The tensor is now in use on the communication stream too; its memory must not be
    // reused before the collective finished.
    c10::cuda::CUDACachingAllocator::recordStream(tensor.storage().data_ptr(), comm_stream_);
    ncclResult_t launched = launch(tensor.data_ptr(), static_cast<size_t>(tensor.numel()), *type,
                                   comm_stream_.stream());
    if (Status status = poll_until_ready(launched, what); !status.is_ok()) return status;
    auto done = std::make_shared<at::cuda::CUDAEvent>(cudaEventDisableTiming);
    done->record(comm_stream_);
    if (!stream_is_capturing(caller)) {
      std::lock_guard<std::mutex> lock(mutex_);
      in_flight_.push_back(InFlight{done, Clock::now(), what});
    }
    return done;
  }

  template <typename Launch>
  Status run_blocking(const std::string& what, const torch::Tensor& tensor, Launch&& launch) {
    Result<Event> done = enqueue(what, tensor, std::forward<Launch>(launch));
    if (!done.is_ok()) return done.status();
    const Clock::time_point deadline = Clock::now() + timeout_;
    while (true) {
      cudaError_t query = cudaEventQuery((*done)->event());
      if (query == cudaSuccess) break;
      if (query != cudaErrorNotReady) {
        return fail(what, std::string("CUDA error: ") + cudaGetErrorString(query));
      }
      if (Status failed = failure(); !failed.is_ok()) return failed;
      if (Clock::now() > deadline) {
        return fail(what, "not done within " + std::to_string(timeout_.count()) + " ms");
      }
      std::this_thread::yield();
    }
    (*done)->block(at::cuda::getCurrentCUDAStream(device_.index()));
    return failure();
  }

  // With a non-blocking communicator NCCL calls may return ncclInProgress; the operation
  // is ready once the asynchronous error turns ncclSuccess.
  Status poll_until_ready(ncclResult_t result, const std::string& what) {
    const Clock::time_point deadline = Clock::now() + timeout_;
    while (result == ncclInProgress) {
      if (Clock::now() > deadline) {
        return fail(what,
                    "NCCL still in progress after " + std::to_string(timeout_.count()) + " ms");
      }
      std::this_thread::yield();
      ncclCommGetAsyncError(comm_, &result);
    }
    if (result != ncclSuccess) return fail(what, nccl_reason(result));
    return Status::ok();
  }

  std::string nccl_reason(ncclResult_t result) {
    std::string reason = ncclGetErrorString(result);
    const char* detail = ncclGetLastError(comm_);
    if (detail != nullptr && *detail != '\0') reason += std::string(" (") + detail + ")";
    return reason;
  }

  // Aborts the communicator once; the first reason sticks.
  Status fail(const std::string& what, const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    return fail_locked(what, reason);
  }

  Status fail_locked(const std::string& what, const std::string& reason) {
    if (failure_.is_ok()) {
      failure_ = peer_failure("NCCL " + what + " on rank " + std::to_string(rank_), reason);
      aborted_ = true;
      ncclCommAbort(comm_);
      in_flight_.clear();
    }
    return failure_;
  }

  void watch() {
    c10::cuda::CUDAGuard guard(device_);
    // The training thread may be capturing a CUDA graph in global mode, which forbids
    // event queries from every thread; this thread's queries are safe in thread-local
    // mode (what ProcessGroupNCCL's watchdog does since PyTorch 2.1).
    cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal;
    cudaThreadExchangeStreamCaptureMode(&mode);
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_ && failure_.is_ok()) {
      wake_.wait_for(lock, std::chrono::milliseconds(100));
      // The communication stream completes collectives in order.
      while (!in_flight_.empty() &&
             cudaEventQuery(in_flight_.front().done->event()) == cudaSuccess) {
        in_flight_.pop_front();
      }
      ncclResult_t state = ncclSuccess;
      ncclCommGetAsyncError(comm_, &state);
      if (state != ncclSuccess && state != ncclInProgress) {
        fail_locked("watchdog", nccl_reason(state));
      } else if (!in_flight_.empty() && Clock::now() - in_flight_.front().started > timeout_) {
        fail_locked(in_flight_.front().what,
                    "not done within " + std::to_string(timeout_.count()) + " ms");
      }
    }
  }

  // The run's rendezvous store, kept for the communicator's life: on rank 0 it is the
  // server, which must outlive every rank's initialisation.
  c10::intrusive_ptr<c10d::Store> store_;
  ncclComm_t comm_;
  int rank_;
  int world_size_;
  c10::Device device_;
  std::chrono::milliseconds timeout_;
  c10::cuda::CUDAStream comm_stream_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<InFlight> in_flight_;  // guarded by mutex_
  Status failure_;                  // guarded by mutex_
  bool stopping_ = false;           // guarded by mutex_
  std::atomic<bool> aborted_{false};
  std::thread watchdog_;  // last: starts once everything above exists
};

// Rank 0 draws the id and publishes it in the run's store; every rank reads it.
Result<ncclUniqueId> exchange_unique_id(const dist::RankInfo& rank_info, c10d::Store& store) {
  try {
    ncclUniqueId id;
    if (rank_info.rank == 0) {
      if (ncclResult_t result = ncclGetUniqueId(&id); result != ncclSuccess) {
        return Status::error(std::string("ncclGetUniqueId: ") + ncclGetErrorString(result));
      }
      const auto* bytes = reinterpret_cast<const uint8_t*>(&id);
      store.set(kUniqueIdKey, std::vector<uint8_t>(bytes, bytes + sizeof(id)));
    }
    std::vector<uint8_t> bytes = store.get(kUniqueIdKey);
    if (bytes.size() != sizeof(id)) {
      return Status::error("NCCL unique id from the store has " + std::to_string(bytes.size()) +
                           " bytes, expected " + std::to_string(sizeof(id)));
    }
    std::memcpy(&id, bytes.data(), sizeof(id));
    return id;
  } catch (const std::exception& error) {
    return Status::error(dist::peer_failure_message("NCCL rendezvous at TCPStore " +
                                                        rank_info.master_addr + ":" +
                                                        std::to_string(rank_info.master_port),
                                                    error));
  }
}

}  // namespace

Result<std::unique_ptr<dist::Communicator>> make_nccl_communicator(
    const dist::RankInfo& rank_info, const dist::ConnectOptions& options,
    const c10::intrusive_ptr<c10d::Store>& store) {
  Result<CudaDeviceInfo> device = select_cuda_device(rank_info.local_rank);
  if (!device.is_ok()) return device.status().with_context("NCCL communicator");
  Result<ncclUniqueId> id = exchange_unique_id(rank_info, *store);
  if (!id.is_ok()) return id.status();

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  ncclResult_t result =
      ncclCommInitRankConfig(&comm, rank_info.world_size, *id, rank_info.rank, &config);
  const auto deadline = Clock::now() + options.timeout;
  while (result == ncclInProgress && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ncclCommGetAsyncError(comm, &result);
  }
  if (result != ncclSuccess) {
    std::string reason = result == ncclInProgress
                             ? "not done within " + std::to_string(options.timeout.count()) + " ms"
                             : std::string(ncclGetErrorString(result));
    if (comm != nullptr) ncclCommAbort(comm);
    return peer_failure("ncclCommInitRankConfig on rank " + std::to_string(rank_info.rank), reason);
  }
  return std::unique_ptr<dist::Communicator>(std::make_unique<NcclCommunicator>(
      comm, store, rank_info.rank, rank_info.world_size,
      c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device->index)),
      options.timeout));
}

}  // namespace scalestudy::gpu
