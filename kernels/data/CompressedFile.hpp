#pragma once
// A file that may be gzip-compressed, read through zlib (which passes uncompressed files through as they are): the
// one reader for the data sets' IDX files and for profiler traces (.json or .json.gz).
#include <zlib.h>

#include <array>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

namespace quorum {

// The file cannot be opened or decompressed; the message names it as "<what> '<path>'".
class CompressedFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A streambuf over the file's decompressed bytes, for streaming parsers (a trace may be gigabytes). what names the
// kind of file in errors ("trace file").
class CompressedFileBuf final : public std::streambuf {
 public:
  CompressedFileBuf(const std::string& path, const std::string& what);
  ~CompressedFileBuf() override;
  CompressedFileBuf(const CompressedFileBuf&) = delete;
  CompressedFileBuf& operator=(const CompressedFileBuf&) = delete;

 protected:
  int_type underflow() override;

 private:
  std::string path_, what_;
  gzFile file_;
  std::array<char, 1 << 16> buffer_{};
};

// The whole decompressed file.
std::vector<unsigned char> read_compressed_file(const std::string& path, const std::string& what);

}  // namespace quorum
