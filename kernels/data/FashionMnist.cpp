#include "kernels/data/FashionMnist.hpp"

#include <array>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <vector>

#include "kernels/data/CompressedFile.hpp"

namespace quorum {
namespace {

const std::array<const char*, 4> kFiles = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

// Finds dir/name or dir/name.gz.
std::string locate(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  for (const std::string& candidate : {dir + "/" + name + ".gz", dir + "/" + name}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

// Reads a whole (optionally gzip-compressed) file.
std::vector<unsigned char> read_all(const std::string& path) {
  try {
    return read_compressed_file(path, "dataset file");
  } catch (const CompressedFileError& e) {
    throw DatasetError(e.what());
  }
}

std::uint32_t be32(const std::vector<unsigned char>& d, std::size_t off) {
  return (std::uint32_t{d[off]} << 24) | (std::uint32_t{d[off + 1]} << 16) | (std::uint32_t{d[off + 2]} << 8) |
         std::uint32_t{d[off + 3]};
}

RowMatrix read_images(const std::string& path) {
  const auto d = read_all(path);
  if (d.size() < 16 || be32(d, 0) != 0x00000803)
    throw DatasetError("'" + path + "' is not an IDX image file (magic 0x00000803 expected)");
  const std::uint32_t n = be32(d, 4), rows = be32(d, 8), cols = be32(d, 12);
  const std::size_t pixels = std::size_t{rows} * cols;
  if (d.size() != 16 + std::size_t{n} * pixels)
    throw DatasetError("'" + path + "' is truncated: header announces " + std::to_string(n) + " images");
  RowMatrix x(n, static_cast<Eigen::Index>(pixels));
  for (std::size_t i = 0; i < std::size_t{n} * pixels; ++i) x.data()[i] = static_cast<float>(d[16 + i]) / 255.0f;
  return x;
}

std::vector<std::int32_t> read_labels(const std::string& path) {
  const auto d = read_all(path);
  if (d.size() < 8 || be32(d, 0) != 0x00000801)
    throw DatasetError("'" + path + "' is not an IDX label file (magic 0x00000801 expected)");
  const std::uint32_t n = be32(d, 4);
  if (d.size() != 8 + std::size_t{n}) throw DatasetError("'" + path + "' is truncated");
  std::vector<std::int32_t> labels(n);
  for (std::size_t i = 0; i < n; ++i) {
    labels[i] = d[8 + i];
    if (labels[i] > 9) throw DatasetError("'" + path + "' has a label outside 0..9");
  }
  return labels;
}

}  // namespace

bool fashion_mnist_available(const std::string& dir, std::string* why) {
  for (const char* name : kFiles) {
    const std::string path = locate(dir, name);
    if (path.empty()) {
      if (why) *why = "missing " + dir + "/" + name + "[.gz]";
      return false;
    }
    try {
      CompressedFileBuf readable(path, "dataset file");
    } catch (const CompressedFileError&) {
      if (why) *why = "cannot read " + path;
      return false;
    }
  }
  return true;
}

FashionMnist load_fashion_mnist(const std::string& dir) {
  // Decoding 60,000 images takes a while; runs that load the set repeatedly in one process share it.
  static std::mutex mutex;
  static std::string cached_dir;
  static FashionMnist cached;
  std::lock_guard lock(mutex);
  if (cached.train && cached_dir == dir) return cached;

  std::string why;
  if (!fashion_mnist_available(dir, &why)) throw DatasetError("Fashion-MNIST not found: " + why);
  RowMatrix train_x = read_images(locate(dir, kFiles[0]));
  auto train_y = read_labels(locate(dir, kFiles[1]));
  RowMatrix test_x = read_images(locate(dir, kFiles[2]));
  auto test_y = read_labels(locate(dir, kFiles[3]));
  if (static_cast<std::size_t>(train_x.rows()) != train_y.size() ||
      static_cast<std::size_t>(test_x.rows()) != test_y.size())
    throw DatasetError("Fashion-MNIST in '" + dir + "': image and label counts differ");

  // Standardise with the training set's statistics.
  const double mean = static_cast<double>(train_x.mean());
  const double var = static_cast<double>((train_x.array() - static_cast<float>(mean)).square().mean());
  const auto m = static_cast<float>(mean), inv_sd = static_cast<float>(1.0 / std::sqrt(var));
  train_x = (train_x.array() - m) * inv_sd;
  test_x = (test_x.array() - m) * inv_sd;

  cached.train = std::make_shared<InMemoryDataset>("fashion-mnist/train", std::move(train_x), std::move(train_y), 10);
  cached.test = std::make_shared<InMemoryDataset>("fashion-mnist/test", std::move(test_x), std::move(test_y), 10);
  cached_dir = dir;
  return cached;
}

}  // namespace quorum
