#include "kernels/data/CompressedFile.hpp"

#include <iterator>

namespace quorum {

CompressedFileBuf::CompressedFileBuf(const std::string& path, const std::string& what)
    : path_(path), what_(what), file_(gzopen(path.c_str(), "rb")) {
  if (file_ == nullptr) throw CompressedFileError("cannot read " + what + " '" + path + "'");
  gzbuffer(file_, 1u << 17);
}

CompressedFileBuf::~CompressedFileBuf() { gzclose(file_); }

CompressedFileBuf::int_type CompressedFileBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const int n = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
  int status = Z_OK;
  const char* message = gzerror(file_, &status);
  if (n < 0 || (status != Z_OK && status != Z_STREAM_END))
    throw CompressedFileError("cannot read " + what_ + " '" + path_ + "': " + message);
  if (n == 0) return traits_type::eof();
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return traits_type::to_int_type(*gptr());
}

std::vector<unsigned char> read_compressed_file(const std::string& path, const std::string& what) {
  CompressedFileBuf buf(path, what);
  return {std::istreambuf_iterator<char>(&buf), std::istreambuf_iterator<char>()};
}

}  // namespace quorum
