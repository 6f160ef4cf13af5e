// Scanning the class folders once at construction, decoding and resizing per sample in get().
// Files are sorted by name so the index of an image never depends on the file system's order.
#include "kiln/data/image_folder_dataset.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "kiln/core/error.h"
#include "kiln/core/excerpt.h"
#include "kiln/data/image_io.h"

namespace fs = std::filesystem;

namespace kiln {

namespace {

bool is_image(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

bool hidden(const fs::path& path) { return path.filename().string().starts_with('.'); }

float channel_value(const std::vector<float>& v, int c) {
  return v.size() == 1 ? v[0] : v[static_cast<std::size_t>(c)];
}

}  // namespace

void resize_normalize(const std::uint8_t* in, std::int64_t in_h, std::int64_t in_w, int channels,
                      float* out, std::int64_t out_h, std::int64_t out_w,
                      const std::vector<float>& mean, const std::vector<float>& stddev) {
  const float sy = static_cast<float>(in_h) / static_cast<float>(out_h);
  const float sx = static_cast<float>(in_w) / static_cast<float>(out_w);
  for (int c = 0; c < channels; ++c) {
    const float scale = 1.0f / (255.0f * channel_value(stddev, c));
    const float shift = channel_value(mean, c) / channel_value(stddev, c);
    float* plane = out + c * out_h * out_w;
    for (std::int64_t y = 0; y < out_h; ++y) {
      const float fy = std::clamp((static_cast<float>(y) + 0.5f) * sy - 0.5f, 0.0f,
                                  static_cast<float>(in_h - 1));
      const auto y0 = static_cast<std::int64_t>(fy);
      const std::int64_t y1 = std::min(y0 + 1, in_h - 1);
      const float wy = fy - static_cast<float>(y0);
      for (std::int64_t x = 0; x < out_w; ++x) {
        const float fx = std::clamp((static_cast<float>(x) + 0.5f) * sx - 0.5f, 0.0f,
                                    static_cast<float>(in_w - 1));
        const auto x0 = static_cast<std::int64_t>(fx);
        const std::int64_t x1 = std::min(x0 + 1, in_w - 1);
        const float wx = fx - static_cast<float>(x0);
        auto at = [&](std::int64_t r, std::int64_t q) {
          return static_cast<float>(in[(r * in_w + q) * channels + c]);
        };
        const float top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * wx;
        const float bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * wx;
        plane[y * out_w + x] = (top + (bottom - top) * wy) * scale - shift;
      }
    }
  }
}

ImageFolderDataset::ImageFolderDataset(const std::string& root, ImageFolderOptions options)
    : root_(root), options_(std::move(options)) {
  KILN_CHECK(options_.channels == 1 || options_.channels == 3,
             "image folders decode to 1 (gray) or 3 (RGB) "
             "channels, not {}",
             options_.channels);
  const auto per_channel = [&](const std::vector<float>& v) {
    return v.size() == 1 || static_cast<int>(v.size()) == options_.channels;
  };
  KILN_CHECK(
      per_channel(options_.mean) && per_channel(options_.stddev),
      "image folder normalisation needs 1 or {} means and standard deviations, found {} and {}",
      options_.channels, options_.mean.size(), options_.stddev.size());
  for (float s : options_.stddev)
    KILN_CHECK(s > 0.0f, "image folder normalisation needs positive stddev, found {}", s);
  KILN_CHECK(options_.height >= 0 && options_.width >= 0,
             "image size must be non-negative, found {} x {}", options_.height, options_.width);
  KILN_CHECK(fs::is_directory(root), "image folder {} does not exist or is not a folder", root);

  std::vector<fs::path> class_dirs;
  for (const fs::directory_entry& e : fs::directory_iterator(root))
    if (e.is_directory() && !hidden(e.path())) class_dirs.push_back(e.path());
  std::sort(class_dirs.begin(), class_dirs.end());
  KILN_CHECK(!class_dirs.empty(),
             "image folder {} has no class sub-folders: expected {}/<class>/<image>.png", root,
             root);
  for (const fs::path& dir : class_dirs) {
    std::vector<std::string> images;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && !hidden(e.path()) && is_image(e.path()))
        images.push_back(e.path().string());
    KILN_CHECK(!images.empty(), "class folder {} holds no PNG or JPEG image (.png, .jpg, .jpeg)",
               shown_path(dir.string()));
    std::sort(images.begin(), images.end());
    const auto label = static_cast<std::int32_t>(classes_.size());
    classes_.push_back(dir.filename().string());
    labels_.insert(labels_.end(), images.size(), label);
    files_.insert(files_.end(), images.begin(), images.end());
  }
  KILN_CHECK((options_.height == 0) == (options_.width == 0),
             "image size must give both height and width (or neither, to take the first image's), "
             "found {} x {}",
             options_.height, options_.width);
  resize_ = options_.height > 0;
  if (!resize_) {
    const Image8 first = read_image(files_.front(), options_.channels);
    options_.height = first.height;
    options_.width = first.width;
  }
}

void ImageFolderDataset::get(std::int64_t index, float* x_out, TargetOut y_out) const {
  check_sample_index(*this, index);
  const Image8 image = read_image(path(index), options_.channels);
  KILN_CHECK(resize_ || (image.height == options_.height && image.width == options_.width),
             "{} is {} x {} pixels but {} (the first image) is {} x {}: the images of a folder "
             "must share one size, or give a size (ImageFolderOptions height and width) to resize "
             "them all",
             shown_path(path(index)), image.height, image.width, shown_path(files_.front()),
             options_.height, options_.width);
  resize_normalize(image.pixels.data(), image.height, image.width, options_.channels, x_out,
                   options_.height, options_.width, options_.mean, options_.stddev);
  *y_out.label() = labels_[static_cast<std::size_t>(index)];
}

std::string ImageFolderDataset::describe() const {
  return fmt::format("image folder {} ({} x {}, {} classes)", root_, size(), sample_shape().str(),
                     classes_.size());
}

}  // namespace kiln
