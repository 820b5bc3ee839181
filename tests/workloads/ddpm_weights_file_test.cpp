// Checkpoints of the DDPM UNet: a save/load round trip reproduces the weights and the
// predictions of another initialisation exactly; weights of another width, or no file, are
// errors instead of silently resized tensors.
#include <filesystem>

#include "tests/harness/child_process.hpp"
#include "tests/harness/torch_doctest.hpp"
#include "workloads/ddpm/unet.hpp"
#include "workloads/ddpm/weights_file.hpp"

namespace scalestudy::ddpm {
namespace {

UNetConfig tiny_config(int64_t base_channels) {
  UNetConfig config;
  config.base_channels = base_channels;
  config.res_blocks = 1;
  return config;
}

// Random non-zero weights everywhere (the zero-initialised convolutions included).
void randomise(UNet& unet, uint64_t seed) {
  torch::manual_seed(seed);
  torch::NoGradGuard no_grad;
  for (torch::Tensor& parameter : unet->parameters()) parameter.normal_(0, 0.1);
}

}  // namespace

TEST_CASE("save_weights then load_weights reproduces the weights and the predictions") {
  const std::string dir = testing::fresh_dir("ddpm-weights");
  UNet trained(tiny_config(8)), fresh(tiny_config(8));
  randomise(trained, 1);
  randomise(fresh, 2);
  REQUIRE(save_weights(*trained, dir + "/unet.pt").is_ok());
  auto loaded = load_weights(*fresh, dir + "/unet.pt");
  REQUIRE_MESSAGE(loaded.is_ok(), loaded.message());
  auto expected = trained->named_parameters();
  for (const auto& item : fresh->named_parameters()) {
    CAPTURE(item.key());
    CHECK(torch::equal(item.value(), expected[item.key()]));
  }
  torch::NoGradGuard no_grad;
  torch::Tensor noisy = torch::randn({2, 1, 28, 28});
  torch::Tensor steps = torch::tensor({3, 700}, torch::kLong);
  CHECK(torch::equal(fresh(noisy, steps), trained(noisy, steps)));
  std::filesystem::remove_all(dir);
}

TEST_CASE("load_weights refuses weights of another model shape or a missing file") {
  const std::string dir = testing::fresh_dir("ddpm-weights-mismatch");
  UNet narrow(tiny_config(8)), wide(tiny_config(16));
  REQUIRE(save_weights(*narrow, dir + "/narrow.pt").is_ok());
  auto mismatch = load_weights(*wide, dir + "/narrow.pt");
  REQUIRE_FALSE(mismatch.is_ok());
  CHECK(mismatch.message().find("trained with other model flags") != std::string::npos);

  UNetConfig deeper = tiny_config(8);
  deeper.res_blocks = 2;
  UNet more_blocks(deeper);
  REQUIRE_FALSE(load_weights(*more_blocks, dir + "/narrow.pt").is_ok());

  auto missing = load_weights(*narrow, dir + "/absent.pt");
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.message().find("cannot load weights from " + dir + "/absent.pt") == 0);
  std::filesystem::remove_all(dir);
}

}  // namespace scalestudy::ddpm
