#include "harness/data/image_folder_decode.hpp"

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "harness/data/image_folder_resample.hpp"

namespace scalestudy::data {
namespace {

bool starts_with(const std::vector<uint8_t>& bytes, std::initializer_list<uint8_t> prefix) {
  return bytes.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), bytes.begin());
}

// Reads a whole file into `bytes`, reusing its capacity (one buffer per worker thread).
Status read_into(const std::string& path, std::vector<uint8_t>& bytes) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) return Status::error(path + ": cannot open (" + std::strerror(errno) + ")");
  bytes.clear();
  constexpr size_t kChunkBytes = 1 << 16;
  for (;;) {
    const size_t old_size = bytes.size();
    bytes.resize(old_size + kChunkBytes);
    const size_t read_bytes = std::fread(bytes.data() + old_size, 1, kChunkBytes, file.get());
    bytes.resize(old_size + read_bytes);
    if (read_bytes < kChunkBytes) break;
  }
  if (std::ferror(file.get())) return Status::error(path + ": read failed");
  return Status::ok();
}

// The smallest libjpeg-turbo DCT scale whose shorter side still covers `out_size`.
tjscalingfactor choose_scale(int width, int height, int64_t out_size) {
  int count = 0;
  const tjscalingfactor* factors = tjGetScalingFactors(&count);
  tjscalingfactor best{1, 1};
  for (int i = 0; i < count; ++i) {
    const tjscalingfactor factor = factors[i];
    if (factor.num > factor.denom) continue;
    const int scaled_short = std::min(TJSCALED(width, factor), TJSCALED(height, factor));
    if (scaled_short >= out_size && TJSCALED(width, factor) < TJSCALED(width, best)) best = factor;
  }
  return best;
}

}  // namespace

ImageDecoder::ImageDecoder() : jpeg_handle_(tjInitDecompress()) {}

ImageDecoder::~ImageDecoder() {
  if (jpeg_handle_ != nullptr) tjDestroy(static_cast<tjhandle>(jpeg_handle_));
}

Status ImageDecoder::decode(const std::vector<uint8_t>& bytes, const std::string& path,
                            int64_t out_size, uint8_t* out_chw, std::string& warning) {
  warning.clear();
  Status decoded;
  if (starts_with(bytes, {0xFF, 0xD8})) {
    decoded = decode_jpeg(bytes, path, out_size, warning);
  } else if (starts_with(bytes, {0x89, 'P', 'N', 'G'})) {
    decoded = decode_png(bytes, path);
  } else {
    return Status::error(path + ": corrupt or unsupported image (neither JPEG nor PNG)");
  }
  if (!decoded) return decoded;
  resample_center_square(decoded_.data(), height_, width_, out_size, out_chw);
  return Status::ok();
}

Status ImageDecoder::decode_jpeg(const std::vector<uint8_t>& bytes, const std::string& path,
                                 int64_t out_size, std::string& warning) {
  tjhandle handle = static_cast<tjhandle>(jpeg_handle_);
  if (handle == nullptr) return Status::error(path + ": cannot initialise libjpeg-turbo");
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle, bytes.data(), bytes.size(), &width, &height, &subsampling,
                          &colorspace) != 0) {
    return Status::error(path + ": corrupt JPEG (" + tjGetErrorStr2(handle) + ")");
  }
  // A header cut short only warns ("Premature end of JPEG file") and reports no size.
  if (width <= 0 || height <= 0) {
    return Status::error(path + ": corrupt JPEG (" + tjGetErrorStr2(handle) + ")");
  }
  const tjscalingfactor scale = choose_scale(width, height, out_size);
  width_ = TJSCALED(width, scale);
  height_ = TJSCALED(height, scale);
  const bool cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
  const int pixel_format = cmyk ? TJPF_CMYK : TJPF_RGB;
  const int64_t pixel_bytes = tjPixelSize[pixel_format];
  decoded_.resize(static_cast<size_t>(width_ * height_ * pixel_bytes));
  if (tjDecompress2(handle, bytes.data(), bytes.size(), decoded_.data(), static_cast<int>(width_),
                    0, static_cast<int>(height_), pixel_format, 0) != 0) {
    if (tjGetErrorCode(handle) != TJERR_WARNING) {
      return Status::error(path + ": corrupt JPEG (" + tjGetErrorStr2(handle) + ")");
    }
    warning = tjGetErrorStr2(handle);
  }
  if (cmyk) {
    // Adobe JPEGs store inverted CMYK, so the ink-free white is (255, 255, 255, 255).
    const int64_t pixels = width_ * height_;
    for (int64_t i = 0; i < pixels; ++i) {
      const uint8_t* ink = decoded_.data() + i * 4;
      for (int c = 0; c < 3; ++c) {
        decoded_[i * 3 + c] = static_cast<uint8_t>((ink[c] * ink[3] + 127) / 255);
      }
    }
    decoded_.resize(static_cast<size_t>(pixels * 3));
  }
  return Status::ok();
}

Status ImageDecoder::decode_png(const std::vector<uint8_t>& bytes, const std::string& path) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
    return Status::error(path + ": corrupt PNG (" + image.message + ")");
  }
  image.format = PNG_FORMAT_RGB;
  width_ = image.width;
  height_ = image.height;
  decoded_.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, decoded_.data(), 0, nullptr)) {
    const std::string message = image.message;
    png_image_free(&image);
    return Status::error(path + ": corrupt PNG (" + message + ")");
  }
  return Status::ok();
}

Result<DecodeReport> decode_images(const std::vector<std::string>& paths, int64_t out_size,
                                   int threads, uint8_t* out) {
  DecodeReport report;
  report.images = static_cast<int64_t>(paths.size());
  report.threads =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  report.threads =
      static_cast<int>(std::min<int64_t>(report.threads, std::max<int64_t>(1, report.images)));
  const int64_t sample_bytes = 3 * out_size * out_size;
  const auto start = std::chrono::steady_clock::now();

  std::atomic<int64_t> cursor{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  int64_t error_index = report.images;    // guarded by mutex
  Status error;                           // guarded by mutex
  int64_t warning_index = report.images;  // guarded by mutex
  auto work = [&] {
    ImageDecoder decoder;
    std::vector<uint8_t> bytes;
    std::string warning;
    // Every index below a failed one was claimed before it and still finishes, so the
    // lowest failing index is always found.
    for (int64_t i = cursor++; i < report.images && !failed; i = cursor++) {
      const std::string& path = paths[static_cast<size_t>(i)];
      Status status = read_into(path, bytes);
      if (status) status = decoder.decode(bytes, path, out_size, out + i * sample_bytes, warning);
      if (!status || !warning.empty()) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!status && i < error_index) {
          error_index = i;
          error = status;
          failed = true;
        } else if (status) {
          report.warnings += 1;
          if (i < warning_index) {
            warning_index = i;
            report.first_warning = path + ": " + warning;
          }
        }
      }
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < report.threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();
  if (!error) return error;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace scalestudy::data
