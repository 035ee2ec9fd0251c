// src/core/cache_entry.cpp: entries read back whole; a torn, foreign or missing file is a miss.
#include <gtest/gtest.h>

#include "core/cache_entry.hpp"
#include "core/files.hpp"
#include "support/temp_dir.hpp"

namespace mkb {
namespace {

TEST(CacheEntry, ReadsBackWhatWasWritten) {
  testing::temp_dir dir;
  std::filesystem::path path = cache_entry_path(dir.path(), "kind", xxh3_128("key"));
  EXPECT_EQ(path.parent_path().parent_path(), dir.path() / "kind");
  std::string payload("binary\0payload", 14);
  write_cache_entry(path, "MAGIC1", payload);
  EXPECT_EQ(read_cache_entry(path, "MAGIC1"), payload);
}

TEST(CacheEntry, MissingTornAndForeignEntriesAreMisses) {
  testing::temp_dir dir;
  std::filesystem::path path = dir.path() / "entry.bin";
  EXPECT_EQ(read_cache_entry(path, "MAGIC1"), std::nullopt);
  write_cache_entry(path, "MAGIC1", "payload");
  EXPECT_EQ(read_cache_entry(path, "MAGIC2"), std::nullopt); // another format
  std::string bytes = *try_read_file(path);
  write_file_atomic(path, bytes.substr(0, bytes.size() - 1));
  EXPECT_EQ(read_cache_entry(path, "MAGIC1"), std::nullopt); // torn
  bytes[8] ^= 1;
  write_file_atomic(path, bytes);
  EXPECT_EQ(read_cache_entry(path, "MAGIC1"), std::nullopt); // a flipped bit
}

TEST(CacheEntry, AnUnwritableFolderOnlyCostsTheEntry) {
  testing::temp_dir dir;
  dir.write("file", "x");
  EXPECT_NO_THROW(write_cache_entry(dir.path() / "file" / "under" / "entry.bin", "MAGIC1", "payload"));
}

} // namespace
} // namespace mkb
