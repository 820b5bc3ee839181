#include "harness/dist/process_group_communicator.hpp"

#include "harness/core/first_line.hpp"
#include "harness/dist/connect.hpp"
#include "harness/dist/tensor_layout.hpp"

namespace scalestudy::dist {
namespace {

// A dtype the backend has no reduction for (gloo's type switch in LibTorch 1.13 for
// bfloat16; NCCL's type map) is this rank's tensor, not a peer.
bool is_type_error(const std::string& message) {
  return message.find("Invalid scalar type") != std::string::npos ||
         message.find("data type is not supported") != std::string::npos;
}

c10d::ReduceOp to_reduce_op(ScalarReduction reduction) {
  switch (reduction) {
    case ScalarReduction::kMax:
      return c10d::ReduceOp::MAX;
    case ScalarReduction::kMin:
      return c10d::ReduceOp::MIN;
    case ScalarReduction::kSum:
      break;
  }
  return c10d::ReduceOp::SUM;
}

// c10d's NCCL backend takes only tensors dense in their memory format; gloo is held to the
// same rule, so that the CPU runs refuse what the GPU would.
Status check_layout(const std::string& operation, const torch::Tensor& tensor) {
  if (is_dense_in_own_layout(tensor)) return Status::ok();
  return Status::error(operation + " needs a tensor dense in its memory format");
}

Status check_layouts(const std::string& operation, std::initializer_list<torch::Tensor> tensors) {
  for (const torch::Tensor& tensor : tensors) {
    if (Status dense = check_layout(operation, tensor); !dense) return dense;
  }
  return Status::ok();
}

}  // namespace

class ProcessGroupCommunicator::AsyncWork : public CollectiveWork {
 public:
  AsyncWork(ProcessGroupCommunicator& owner, c10::intrusive_ptr<c10d::Work> work, std::string what)
      : owner_(owner), work_(std::move(work)), what_(std::move(what)) {}

  Status wait() override {
    try {
      work_->wait();
      return Status::ok();
    } catch (const std::exception& error) {
      return owner_.failed(what_, error);
    }
  }

 private:
  ProcessGroupCommunicator& owner_;
  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
};

ProcessGroupCommunicator::ProcessGroupCommunicator(ProcessGroup group,
                                                   c10::intrusive_ptr<c10d::Store> store,
                                                   std::string store_kind,
                                                   std::chrono::milliseconds timeout)
    : group_(std::move(group)),
      store_(std::move(store)),
      store_kind_(std::move(store_kind)),
      timeout_(timeout) {}

ProcessGroupCommunicator::~ProcessGroupCommunicator() {
  if (!failure()) return;  // the backend's own destructor aborts what is left
  try {
    compat::shut_down(*group_.backend);
  } catch (const std::exception&) {
    // A failed flush at exit changes nothing the run recorded.
  }
}

int ProcessGroupCommunicator::rank() const {
  return group_.backend->getRank();
}
int ProcessGroupCommunicator::world_size() const {
  return group_.backend->getSize();
}

std::map<std::string, std::string> ProcessGroupCommunicator::settings() const {
  std::map<std::string, std::string> entries = group_.settings;
  entries["process_group"] = group_.name;
  entries["process_group_size"] = std::to_string(world_size());
  entries["process_group_store"] = store_kind_;
  entries["process_group_timeout_ms"] = std::to_string(timeout_.count());
  return entries;
}

std::unique_ptr<CollectiveWork> ProcessGroupCommunicator::allreduce_sum_async(
    const torch::Tensor& tensor) {
  const std::string what = "all-reduce";
  if (Status dense = check_layout(group_.name + " " + what, tensor); !dense) {
    return finished_work(dense);
  }
  auto work = start(what, [&] {
    std::vector<at::Tensor> tensors{tensor};
    return group_.backend->allreduce(tensors);
  });
  if (!work) return finished_work(work.status());
  return std::make_unique<AsyncWork>(*this, std::move(*work), what);
}

Status ProcessGroupCommunicator::broadcast(const torch::Tensor& tensor, int root_rank) {
  const std::string what = "broadcast";
  if (Status dense = check_layout(group_.name + " " + what, tensor); !dense) return dense;
  return wait_bounded(what, start(what, [&] {
                        std::vector<at::Tensor> tensors{tensor};
                        c10d::BroadcastOptions options;
                        options.rootRank = root_rank;
                        return group_.backend->broadcast(tensors, options);
                      }));
}

std::unique_ptr<CollectiveWork> ProcessGroupCommunicator::reduce_scatter_sum_async(
    const torch::Tensor& input, const torch::Tensor& output) {
  const std::string what = "reduce-scatter";
  if (Status dense = check_layouts(group_.name + " " + what, {input, output}); !dense) {
    return finished_work(dense);
  }
  auto work = start(what, [&] {
    at::Tensor in = input, out = output;
    return group_.backend->_reduce_scatter_base(out, in);
  });
  if (!work) return finished_work(work.status());
  return std::make_unique<AsyncWork>(*this, std::move(*work), what);
}

// NCCL gathers into one flat buffer (in place when `input` is output's own slice); gloo
// has only the list form, whose outputs are views of the flat buffer here.
std::unique_ptr<CollectiveWork> ProcessGroupCommunicator::all_gather_async(
    const torch::Tensor& output, const torch::Tensor& input) {
  const std::string what = "all-gather";
  if (Status dense = check_layouts(group_.name + " " + what, {input, output}); !dense) {
    return finished_work(dense);
  }
  auto work = start(what, [&] {
    at::Tensor in = input, out = output;
    if (group_.name == "nccl") return group_.backend->_allgather_base(out, in);
    const int64_t n = in.numel();
    std::vector<std::vector<at::Tensor>> outputs(1);
    for (int r = 0; r < world_size(); ++r) outputs[0].push_back(out.narrow(0, r * n, n));
    std::vector<at::Tensor> inputs{in};
    return group_.backend->allgather(outputs, inputs);
  });
  if (!work) return finished_work(work.status());
  return std::make_unique<AsyncWork>(*this, std::move(*work), what);
}

// A backend without one throws from the call itself, before anything is sent, alike on
// every rank; one with it runs a two-element collective, whose failure is a peer's.
Result<bool> ProcessGroupCommunicator::supports_reduce_scatter() {
  if (reduce_scatter_) return *reduce_scatter_;
  if (group_.name == "nccl") return *(reduce_scatter_ = true);
  if (Status failed_before = failure(); !failed_before) return failed_before;
  at::Tensor in = torch::zeros({world_size()}, torch::TensorOptions().device(group_.device));
  at::Tensor out = torch::zeros({1}, in.options());
  c10::intrusive_ptr<c10d::Work> work;
  try {
    work = group_.backend->_reduce_scatter_base(out, in);
  } catch (const std::exception&) {
    return *(reduce_scatter_ = false);
  }
  if (Status waited = wait_bounded("reduce-scatter probe", work); !waited) return waited;
  return *(reduce_scatter_ = true);
}

Status ProcessGroupCommunicator::barrier() {
  const std::string what = "barrier";
  return wait_bounded(what, start(what, [&] { return group_.backend->barrier(); }));
}

Status ProcessGroupCommunicator::allreduce_tensor(const torch::Tensor& tensor,
                                                  ScalarReduction reduction) {
  const std::string what = "scalar all-reduce";
  torch::Tensor on_device = tensor.to(group_.device);
  Status reduced = wait_bounded(what, start(what, [&] {
                                  std::vector<at::Tensor> tensors{on_device};
                                  c10d::AllreduceOptions options;
                                  options.reduceOp = to_reduce_op(reduction);
                                  return group_.backend->allreduce(tensors, options);
                                }));
  if (reduced) tensor.copy_(on_device);  // a no-op where on_device is the tensor itself
  return reduced;
}

// Starting a collective can itself throw: a closed connection, a communicator the watchdog
// aborted, a tensor the backend refuses.
template <typename Start>
Result<c10::intrusive_ptr<c10d::Work>> ProcessGroupCommunicator::start(const std::string& what,
                                                                       Start&& start_work) {
  if (Status failed_before = failure(); !failed_before) return failed_before;
  try {
    return start_work();
  } catch (const std::exception& error) {
    return failed(what, error);
  }
}

Status ProcessGroupCommunicator::wait_bounded(const std::string& what,
                                              const Result<c10::intrusive_ptr<c10d::Work>>& work) {
  if (!work) return work.status();
  try {
    if ((*work)->wait(timeout_)) return Status::ok();
    return failed(
        what, std::runtime_error("not done within " + std::to_string(timeout_.count()) + " ms"));
  } catch (const std::exception& error) {
    return failed(what, error);
  }
}

Status ProcessGroupCommunicator::failed(const std::string& what, const std::exception& error) {
  if (is_type_error(error.what())) {
    return Status::error(group_.name + " in this LibTorch cannot reduce the tensor's type: " +
                         what + ": " + first_line(error.what()));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_) failure_ = Status::error(peer_failure_message(group_.name + " " + what, error));
  return failure_;
}

Status ProcessGroupCommunicator::failure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

}  // namespace scalestudy::dist
