#pragma once
// Reader for the Fashion-MNIST IDX files (gzip-compressed or plain), as Debian's dataset-fashion-mnist installs
// them under /usr/share/datasets/fashion-mnist.
#include <memory>
#include <string>

#include "kernels/data/Dataset.hpp"

namespace quorum {

inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";

struct FashionMnist {
  std::shared_ptr<const Dataset> train;
  std::shared_ptr<const Dataset> test;
};

// Loads both splits from dir. Pixels are scaled to [0,1] and standardised with the training set's mean and
// standard deviation. Throws DatasetError naming the file when a file is missing or malformed.
FashionMnist load_fashion_mnist(const std::string& dir);

// True when all four files are present and readable in dir (used to validate scenarios before a run).
bool fashion_mnist_available(const std::string& dir, std::string* why = nullptr);

}  // namespace quorum
