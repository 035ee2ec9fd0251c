#include "core/files.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"

namespace mkb {
namespace {

TEST(Files, AtomicWriteThenRead) {
  auto dir = std::filesystem::temp_directory_path() / ("mkb-files-" + std::to_string(::getpid()));
  auto path = dir / "sub" / "file.bin";
  write_file_atomic(path, std::string("hello\0world", 11));
  EXPECT_EQ(read_file(path), std::string("hello\0world", 11));
  write_file_atomic(path, "again");
  EXPECT_EQ(read_file(path), "again");
  // No temporary files are left behind.
  size_t entries = 0;
  for ([[maybe_unused]] auto &e : std::filesystem::directory_iterator(dir / "sub")) ++entries;
  EXPECT_EQ(entries, 1u);
  std::filesystem::remove_all(dir);
}

TEST(Files, MissingFileNamesThePath) {
  try {
    read_file("/nonexistent/mkb/file");
    FAIL();
  } catch (const error &e) {
    EXPECT_EQ(e.status(), MKB_ERR_IO);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/mkb/file"), std::string::npos);
  }
  EXPECT_FALSE(try_read_file("/nonexistent/mkb/file").has_value());
}

} // namespace
} // namespace mkb
