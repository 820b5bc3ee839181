#include "harness/gpu/nccl_raw_allreduce.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <nccl.h>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "harness/dist/connect.hpp"
#include "harness/dist/process_group_communicator.hpp"

namespace scalestudy::gpu {
namespace {

Status nccl_failure(const std::string& what, ncclResult_t result) {
  return Status::error("peer rank died or timed out: raw NCCL " + what + ": " +
                       ncclGetErrorString(result));
}

Result<ncclDataType_t> nccl_type(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return ncclFloat32;
    case at::kHalf:
      return ncclFloat16;
    case at::kBFloat16:
      return ncclBfloat16;
    default:
      return Status::error(std::string("the raw NCCL all-reduce has no type ") +
                           c10::toString(type));
  }
}

class PendingError : public dist::CollectiveWork {
 public:
  explicit PendingError(ncclComm_t comm) : comm_(comm) {}
  Status wait() override {
    ncclResult_t state = ncclSuccess;
    ncclCommGetAsyncError(comm_, &state);
    if (state != ncclSuccess && state != ncclInProgress) return nccl_failure("all-reduce", state);
    return Status::ok();
  }

 private:
  ncclComm_t comm_;
};

class RawNcclAllreduce : public dist::Communicator {
 public:
  RawNcclAllreduce(dist::Communicator& group, ncclComm_t comm) : group_(group), comm_(comm) {}

  int rank() const override { return group_.rank(); }
  int world_size() const override { return group_.world_size(); }
  std::string backend() const override { return group_.backend(); }
  std::map<std::string, std::string> settings() const override { return group_.settings(); }

  std::unique_ptr<dist::CollectiveWork> allreduce_sum_async(const torch::Tensor& tensor) override {
    Result<ncclDataType_t> type = nccl_type(tensor.scalar_type());
    if (!type) return dist::finished_work(type.status());
    void* data = tensor.data_ptr();
    ncclResult_t result =
        ncclAllReduce(data, data, static_cast<size_t>(tensor.numel()), *type, ncclSum, comm_,
                      at::cuda::getCurrentCUDAStream(tensor.device().index()).stream());
    if (result != ncclSuccess) {
      return dist::finished_work(nccl_failure("all-reduce", result));
    }
    return std::make_unique<PendingError>(comm_);
  }
  Status broadcast(const torch::Tensor& tensor, int root_rank) override {
    return group_.broadcast(tensor, root_rank);
  }
  Status barrier() override { return group_.barrier(); }

 protected:
  Status allreduce_tensor(const torch::Tensor& tensor, dist::ScalarReduction reduction) override {
    std::vector<double> values(tensor.data_ptr<double>(),
                               tensor.data_ptr<double>() + tensor.numel());
    if (Status reduced = group_.allreduce_scalars(values, reduction); !reduced) return reduced;
    std::copy(values.begin(), values.end(), tensor.data_ptr<double>());
    return Status::ok();
  }

 private:
  dist::Communicator& group_;
  ncclComm_t comm_;
};

}  // namespace

Result<std::unique_ptr<dist::Communicator>> raw_nccl_allreduce(dist::Communicator& communicator) {
  auto* adapter = dynamic_cast<dist::ProcessGroupCommunicator*>(&communicator);
  auto* group =
      adapter ? dynamic_cast<c10d::ProcessGroupNCCL*>(&adapter->process_group()) : nullptr;
  if (group == nullptr) return std::unique_ptr<dist::Communicator>();
  ncclComm_t comm = nullptr;
  try {
    c10::cuda::CUDAGuard guard(adapter->device());  // the group's communicator of this device
    comm = reinterpret_cast<ncclComm_t>(compat::nccl_communicator_handle(*group));
  } catch (const std::exception& error) {
    return Status::error(dist::peer_failure_message("raw NCCL all-reduce setup", error));
  }
  if (comm == nullptr) {
    return Status::error(
        "the raw NCCL all-reduce needs the process group's communicator "
        "(ProcessGroupNCCL::getCommPtr of LibTorch 2.4 or newer, after it connected)");
  }
  return std::unique_ptr<dist::Communicator>(
      std::make_unique<RawNcclAllreduce>(communicator, comm));
}

}  // namespace scalestudy::gpu
