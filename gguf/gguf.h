// GGUF (v2, v3) reader: header, typed metadata, tensor infos, alignment, memory-mapped tensor data.
//
// Every count, length and offset is bounded by the file's size before anything is allocated, so a
// truncated, corrupted or hostile file gives rooftop::InputError (naming the file and the fault),
// never a crash or a huge allocation. Opening with map_data = false reads only the header.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace rooftop::engine {

// GGUF metadata value types (ids as in the GGUF spec).
enum class GgufType : uint32_t {
  uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5, float32 = 6, boolean = 7,
  string = 8, array = 9, uint64 = 10, int64 = 11, float64 = 12,
};
const char* gguf_type_name(GgufType t);  // "uint32", "array", ...

// One metadata value. Scalars: integers and bools in `i` (uint64 above INT64_MAX in `u` only),
// floats in `f`, strings in `s`. Arrays: elem_type plus the elements in `ints`, `floats`,
// `strings` or, for arrays of arrays, `items`.
struct GgufValue {
  GgufType type = GgufType::uint8;
  int64_t i = 0;
  uint64_t u = 0;  // the raw unsigned value for unsigned types
  double f = 0;
  std::string s;
  GgufType elem_type = GgufType::uint8;  // arrays only
  std::vector<int64_t> ints;             // integer and bool arrays
  std::vector<double> floats;            // float arrays
  std::vector<std::string> strings;      // string arrays
  std::vector<GgufValue> items;          // arrays of arrays
  size_t array_size() const;             // elements of an array (0 for scalars)
};

struct GgufTensorInfo {
  std::string name;
  std::vector<int64_t> dims;  // ne[0] (fastest, row length) first, as GGUF stores them
  uint32_t type = 0;          // ggml type id (ggml_types.h)
  uint64_t offset = 0;        // from the start of the data section
  uint64_t bytes = 0;         // size of the tensor's data
  int64_t elements() const;
};

struct GgufFile {
  std::string path;
  uint32_t version = 0;
  uint64_t file_bytes = 0;
  // The opened file's identity (st_dev, st_ino, st_mtime in ns), so that populate() never copies a file replaced at
  // the same path since it was mapped; zero for parsed bytes.
  uint64_t file_dev = 0, file_ino = 0;
  int64_t file_mtime_ns = 0;
  uint64_t alignment = 32;    // general.alignment, default 32
  uint64_t data_offset = 0;   // start of the tensor data section in the file
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensorInfo> tensors;  // in file order
  std::unordered_map<std::string, size_t> tensor_index;  // name -> position in tensors (find_tensor in O(1))

  const GgufValue* find(const std::string& key) const;
  std::optional<int64_t> get_int(const std::string& key) const;       // any integer or bool scalar
  std::optional<double> get_float(const std::string& key) const;      // any numeric scalar
  std::optional<std::string> get_string(const std::string& key) const;
  const GgufTensorInfo* find_tensor(const std::string& name) const;
  uint64_t tensor_bytes_total() const;  // sum of every tensor's data bytes
  bool data_mapped() const { return base_ != nullptr; }
  // The tensor's bytes inside the mapping; throws std::logic_error if opened without map_data.
  const std::byte* tensor_data(const GgufTensorInfo& t) const;
  // Makes every weight resident now, so that the first forward pass pays no page fault per 4 KiB inside its
  // timed prefill. With huge_pages and transparent huge pages available ("always" or "madvise"), the file is
  // read into anonymous 2 MiB pages moved over the mapping at the same addresses (pointers into the file stay
  // valid, resident memory grows by the file's size); otherwise, or if that fails, the mapping's own pages are
  // faulted in (MADV_POPULATE_READ, as llama.cpp's MAP_POPULATE). Best effort: a no-op without a mapping, and on
  // kernels before 5.14 without huge pages the pages fault in lazily as before.
  void populate(bool huge_pages = true) const;

  // Internal: the mapping (shared so that GgufFile can be copied and moved cheaply).
  std::shared_ptr<const void> mapping_;
  const std::byte* base_ = nullptr;
};

// Opens a GGUF file. map_data = false parses the header only and keeps no mapping (milliseconds for
// any file size); map_data = true keeps the whole file memory-mapped read-only for tensor_data().
GgufFile open_gguf(const std::string& path, bool map_data);

// Parses GGUF bytes already in memory (tests, embedded data). `name` is used in error messages;
// tensor_data() points into `data`, which must outlive the result.
GgufFile parse_gguf(const std::byte* data, size_t size, const std::string& name);

}  // namespace rooftop::engine
