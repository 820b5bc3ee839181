// Writers of real ImageFolder trees for the ImageFolder tests: JPEGs encoded with
// libjpeg-turbo's tjCompress2 (and PNGs with libpng), laid out as TinyImageNet ships:
// train/<wnid>/images/<wnid>_<i>.JPEG plus a <wnid>_boxes.txt, wnids.txt, and
// val/images/val_<k>.JPEG labelled by val/val_annotations.txt. Each class has its own
// colour, so a decoded sample shows which class it came from.
#pragma once

#include <png.h>
#include <turbojpeg.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace scalestudy::testing {

struct Rgb {
  uint8_t red, green, blue;
};

// The colour of class `label` (distinct, far from each other after JPEG coding).
inline Rgb class_colour(int label) {
  static const Rgb kColours[] = {{200, 40, 40},  {40, 190, 60},  {50, 60, 210},
                                 {220, 200, 40}, {150, 60, 170}, {40, 180, 190}};
  return kColours[label % 6];
}

// A height x width x 3 image of `colour` with a gentle diagonal ramp that differs by `variant`.
inline std::vector<uint8_t> colour_image(Rgb colour, int height, int width, int variant) {
  std::vector<uint8_t> pixels(static_cast<size_t>(height * width * 3));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int ramp = ((x + y) * 8) / (width + height) + variant % 4;  // 0..11
      uint8_t* pixel = pixels.data() + (y * width + x) * 3;
      pixel[0] = static_cast<uint8_t>(colour.red + ramp);
      pixel[1] = static_cast<uint8_t>(colour.green + ramp);
      pixel[2] = static_cast<uint8_t>(colour.blue + ramp);
    }
  }
  return pixels;
}

inline void write_file(const std::string& path, const void* data, size_t size) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Encodes `pixels` (height x width x channels of `pixel_format`) with tjCompress2.
inline std::vector<uint8_t> encode_jpeg(const std::vector<uint8_t>& pixels, int height, int width,
                                        int pixel_format = TJPF_RGB, int subsampling = TJSAMP_444,
                                        int quality = 95) {
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long jpeg_bytes = 0;
  const int failed = tjCompress2(handle, pixels.data(), width, 0, height, pixel_format, &jpeg,
                                 &jpeg_bytes, subsampling, quality, 0);
  std::string message = failed != 0 ? tjGetErrorStr2(handle) : "";
  tjDestroy(handle);
  if (failed != 0) throw std::runtime_error("tjCompress2: " + message);
  std::vector<uint8_t> bytes(jpeg, jpeg + jpeg_bytes);
  tjFree(jpeg);
  return bytes;
}

inline void write_jpeg(const std::string& path, const std::vector<uint8_t>& rgb, int height,
                       int width) {
  const std::vector<uint8_t> bytes = encode_jpeg(rgb, height, width);
  write_file(path, bytes.data(), bytes.size());
}

inline void write_png(const std::string& path, const std::vector<uint8_t>& rgb, int height,
                      int width) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&image, path.c_str(), 0, rgb.data(), 0, nullptr)) {
    throw std::runtime_error("cannot write PNG " + path + ": " + image.message);
  }
}

// The wnid of class `label`; wnids sort in label order.
inline std::string wnid(int label) {
  return "n0" + std::to_string(1000 + label);
}

struct TreeShape {
  int classes = 3;
  int train_per_class = 8;
  int val_per_class = 2;
  int image_size = 64;
};

// A TinyImageNet-style tree under `root`. Validation image k belongs to class k % classes.
inline void write_tiny_imagenet_tree(const std::string& root, const TreeShape& shape) {
  std::ofstream wnids(std::filesystem::path(root) / "wnids.txt");
  for (int label = shape.classes - 1; label >= 0; --label) wnids << wnid(label) << "\n";
  for (int label = 0; label < shape.classes; ++label) {
    const std::string folder = root + "/train/" + wnid(label);
    std::filesystem::create_directories(folder);
    std::ofstream(folder + "/" + wnid(label) + "_boxes.txt") << "not an image\n";
    for (int i = 0; i < shape.train_per_class; ++i) {
      write_jpeg(folder + "/images/" + wnid(label) + "_" + std::to_string(i) + ".JPEG",
                 colour_image(class_colour(label), shape.image_size, shape.image_size, i),
                 shape.image_size, shape.image_size);
    }
  }
  std::filesystem::create_directories(root + "/val/images");
  std::ofstream annotations(root + "/val/val_annotations.txt");
  for (int k = 0; k < shape.val_per_class * shape.classes; ++k) {
    const int label = k % shape.classes;
    const std::string file = "val_" + std::to_string(k) + ".JPEG";
    write_jpeg(root + "/val/images/" + file,
               colour_image(class_colour(label), shape.image_size, shape.image_size, k),
               shape.image_size, shape.image_size);
    annotations << file << "\t" << wnid(label) << "\t0\t0\t" << shape.image_size - 1 << "\t"
                << shape.image_size - 1 << "\n";
  }
}

}  // namespace scalestudy::testing
