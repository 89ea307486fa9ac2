// GGUF parsing over a byte buffer (bounds-checked at every read) and the mmap-backed file opener.
#include "gguf/gguf.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buffer.h"
#include "base/errors.h"
#include "formats/ggml_types.h"

namespace rooftop::engine {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" little-endian
constexpr uint32_t kMaxDims = 4;         // GGML_MAX_DIMS
constexpr uint32_t kMaxNesting = 4;      // arrays of arrays: deeper nesting is refused

// Reads little-endian values from [data, data + size), each read checked against the end.
class Reader {
 public:
  Reader(const std::byte* data, size_t size, const std::string& name) : data_(data), size_(size), name_(name) {}
  size_t pos() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(name_ + ": not a valid GGUF file: " + what + " (at byte " + std::to_string(pos_) + " of " +
                     std::to_string(size_) + ")");
  }
  void need(size_t n, const char* what) const {
    if (n > remaining()) fail(std::string("file ends inside ") + what + " (truncated?)");
  }
  template <class T>
  T read(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string read_string(const char* what) {
    uint64_t len = read<uint64_t>(what);
    if (len > remaining())
      fail(std::string(what) + " claims " + std::to_string(len) + " bytes but only " + std::to_string(remaining()) +
           " remain");
    std::string s(reinterpret_cast<const char*>(data_ + pos_), len);
    pos_ += len;
    return s;
  }
  // A count of elements of at least min_bytes each must fit in the rest of the file.
  uint64_t read_count(const char* what, uint64_t min_bytes) {
    uint64_t n = read<uint64_t>(what);
    if (min_bytes > 0 && n > remaining() / min_bytes)
      fail(std::string(what) + " " + std::to_string(n) + " cannot fit in the " + std::to_string(remaining()) +
           " remaining bytes");
    return n;
  }

 private:
  const std::byte* data_;
  size_t size_;
  size_t pos_ = 0;
  const std::string& name_;
};

bool is_known_type(uint32_t t) { return t <= 12; }

// Smallest encoded size of one value of type t (strings: the 8-byte length; arrays: type + count).
uint64_t min_value_bytes(GgufType t) {
  switch (t) {
    case GgufType::uint8: case GgufType::int8: case GgufType::boolean: return 1;
    case GgufType::uint16: case GgufType::int16: return 2;
    case GgufType::uint32: case GgufType::int32: case GgufType::float32: return 4;
    case GgufType::uint64: case GgufType::int64: case GgufType::float64: return 8;
    case GgufType::string: return 8;
    case GgufType::array: return 12;
  }
  return 1;
}

GgufType read_type(Reader& r, const char* what) {
  uint32_t t = r.read<uint32_t>(what);
  if (!is_known_type(t))
    r.fail(std::string("unknown ") + what + " " + std::to_string(t) + " (expected 0..12: uint8, int8, uint16, int16, "
           "uint32, int32, float32, bool, string, array, uint64, int64, float64)");
  return static_cast<GgufType>(t);
}

// Reads one scalar of type t into v (v.type already set).
void read_scalar(Reader& r, GgufType t, GgufValue& v) {
  switch (t) {
    case GgufType::uint8: v.u = r.read<uint8_t>("uint8 value"); v.i = int64_t(v.u); break;
    case GgufType::int8: v.i = r.read<int8_t>("int8 value"); break;
    case GgufType::uint16: v.u = r.read<uint16_t>("uint16 value"); v.i = int64_t(v.u); break;
    case GgufType::int16: v.i = r.read<int16_t>("int16 value"); break;
    case GgufType::uint32: v.u = r.read<uint32_t>("uint32 value"); v.i = int64_t(v.u); break;
    case GgufType::int32: v.i = r.read<int32_t>("int32 value"); break;
    case GgufType::uint64: v.u = r.read<uint64_t>("uint64 value"); v.i = int64_t(v.u); break;
    case GgufType::int64: v.i = r.read<int64_t>("int64 value"); break;
    case GgufType::float32: v.f = r.read<float>("float32 value"); break;
    case GgufType::float64: v.f = r.read<double>("float64 value"); break;
    case GgufType::boolean: {
      uint8_t b = r.read<uint8_t>("bool value");
      if (b > 1) r.fail("bool value " + std::to_string(b) + " is neither 0 nor 1");
      v.i = b;
      v.u = b;
      break;
    }
    case GgufType::string: v.s = r.read_string("string value"); break;
    case GgufType::array: r.fail("internal: array passed as scalar");
  }
}

GgufValue read_value(Reader& r, GgufType t, uint32_t depth);

void read_array(Reader& r, GgufValue& v, uint32_t depth) {
  if (depth >= kMaxNesting) r.fail("arrays nested deeper than " + std::to_string(kMaxNesting));
  v.elem_type = read_type(r, "array element type");
  uint64_t n = r.read_count("array length", min_value_bytes(v.elem_type));
  switch (v.elem_type) {
    case GgufType::string:
      v.strings.reserve(n);
      for (uint64_t j = 0; j < n; ++j) v.strings.push_back(r.read_string("string array element"));
      break;
    case GgufType::float32: case GgufType::float64: {
      v.floats.reserve(n);
      GgufValue e;
      for (uint64_t j = 0; j < n; ++j) {
        read_scalar(r, v.elem_type, e);
        v.floats.push_back(e.f);
      }
      break;
    }
    case GgufType::array:
      v.items.reserve(n);
      for (uint64_t j = 0; j < n; ++j) v.items.push_back(read_value(r, GgufType::array, depth + 1));
      break;
    default: {
      v.ints.reserve(n);
      GgufValue e;
      for (uint64_t j = 0; j < n; ++j) {
        read_scalar(r, v.elem_type, e);
        v.ints.push_back(e.i);
      }
    }
  }
}

GgufValue read_value(Reader& r, GgufType t, uint32_t depth) {
  GgufValue v;
  v.type = t;
  if (t == GgufType::array)
    read_array(r, v, depth);
  else
    read_scalar(r, t, v);
  return v;
}

bool mul_overflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

const char* gguf_type_name(GgufType t) {
  static const char* names[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
                                "bool",  "string", "array", "uint64", "int64", "float64"};
  auto i = static_cast<uint32_t>(t);
  return i < 13 ? names[i] : "unknown";
}

size_t GgufValue::array_size() const {
  if (type != GgufType::array) return 0;
  return ints.size() + floats.size() + strings.size() + items.size();
}

int64_t GgufTensorInfo::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

const GgufValue* GgufFile::find(const std::string& key) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : &it->second;
}

std::optional<int64_t> GgufFile::get_int(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  switch (v->type) {
    case GgufType::uint64:
      if (v->u > uint64_t(INT64_MAX)) return std::nullopt;
      return int64_t(v->u);
    case GgufType::uint8: case GgufType::int8: case GgufType::uint16: case GgufType::int16:
    case GgufType::uint32: case GgufType::int32: case GgufType::int64: case GgufType::boolean:
      return v->i;
    default: return std::nullopt;
  }
}

std::optional<double> GgufFile::get_float(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type == GgufType::float32 || v->type == GgufType::float64) return v->f;
  if (auto i = get_int(key)) return double(*i);
  return std::nullopt;
}

std::optional<std::string> GgufFile::get_string(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v || v->type != GgufType::string) return std::nullopt;
  return v->s;
}

const GgufTensorInfo* GgufFile::find_tensor(const std::string& name) const {
  // The index, when parse_gguf built it; a file assembled by hand (tests) is searched in order.
  if (!tensor_index.empty()) {
    const auto it = tensor_index.find(name);
    return it == tensor_index.end() ? nullptr : &tensors[it->second];
  }
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

uint64_t GgufFile::tensor_bytes_total() const {
  uint64_t s = 0;
  for (const auto& t : tensors) s += t.bytes;
  return s;
}

const std::byte* GgufFile::tensor_data(const GgufTensorInfo& t) const {
  if (!base_) throw std::logic_error(path + ": tensor data requested from a GGUF opened for metadata only");
  return base_ + data_offset + t.offset;
}

namespace {

constexpr uintptr_t kHugePage = kHugePageBytes;

// Reserves size bytes plus one huge page of address space, then calls place(aligned start) to map the real
// region there with MAP_FIXED; the slack on either side is released. Falls back to place(nullptr) (any
// address) if the reservation fails. Returns what place returned.
template <class Place>
void* map_aligned(size_t size, Place place) {
  void* r = ::mmap(nullptr, size + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED) return place(nullptr);
  const auto lo = uintptr_t(r), at = (lo + kHugePage - 1) / kHugePage * kHugePage;
  const auto page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const auto end = (at + size + page - 1) / page * page, hi = lo + size + kHugePage;
  void* p = place(reinterpret_cast<void*>(at));
  if (p == MAP_FAILED) {
    ::munmap(r, size + kHugePage);
    return p;
  }
  if (at > lo) ::munmap(r, at - lo);
  if (hi > end) ::munmap(reinterpret_cast<void*>(end), hi - end);
  return p;
}

// True when the kernel gives anonymous memory huge pages on request: transparent huge pages set to
// "always" or "madvise" (not "never", and not a kernel built without them).
bool huge_pages_on_request() {
  std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return false;
  char buf[128] = {};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const std::string_view mode(buf, n);
  return mode.find("[always]") != std::string_view::npos || mode.find("[madvise]") != std::string_view::npos;
}

// MemAvailable from /proc/meminfo in bytes; 0 when unknown.
double memory_available_bytes() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  std::fclose(f);
  return kb * 1024;
}

// A file's modification time in nanoseconds (part of its identity, with device, inode and size).
int64_t mtime_ns(const struct stat& st) { return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec; }

// Reads the whole file into anonymous memory backed by huge pages and moves that memory over the read-only
// file mapping at `base`, which must start on a huge-page boundary. Returns false (mapping untouched) if any
// step fails. The file is read with pread, never through the mapping, so resident memory grows by the
// file's size once, not twice.

bool replace_with_huge_pages(const GgufFile& g, const std::byte* base, size_t size) {
  if (uintptr_t(base) % kHugePage != 0 || !huge_pages_on_request()) return false;
  // Anonymous pages cannot be dropped under memory pressure as the file's clean pages can: a file above 3/4 of
  // the available memory keeps its mapping.
  if (double(size) > 0.75 * memory_available_bytes()) return false;
  const int fd = ::open(g.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || uint64_t(st.st_dev) != g.file_dev || uint64_t(st.st_ino) != g.file_ino ||
      mtime_ns(st) != g.file_mtime_ns || uint64_t(st.st_size) != size) {
    ::close(fd);  // not the file that was mapped: keep the mapping
    return false;
  }
  const auto page = size_t(::sysconf(_SC_PAGESIZE));
  const size_t span = (size + page - 1) / page * page;
  void* copy = map_aligned(span, [&](void* at) {
    return ::mmap(at, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
  });
  bool ok = copy != MAP_FAILED && uintptr_t(copy) % kHugePage == 0;
  if (ok) (void)::madvise(copy, span, MADV_HUGEPAGE);
  for (size_t done = 0; ok && done < size;) {
    const ssize_t got = ::pread(fd, static_cast<std::byte*>(copy) + done, std::min<size_t>(size - done, 64 << 20),
                                off_t(done));
    if (got <= 0) ok = false;
    else done += size_t(got);
  }
  ::close(fd);
  ok = ok && ::mprotect(copy, span, PROT_READ) == 0 &&
       ::mremap(copy, span, span, MREMAP_MAYMOVE | MREMAP_FIXED, const_cast<std::byte*>(base)) != MAP_FAILED;
  if (!ok && copy != MAP_FAILED) ::munmap(copy, span);
  return ok;
}

}  // namespace

void GgufFile::populate(bool huge_pages) const {
  if (!base_ || data_offset >= file_bytes) return;
  // Weights in 2 MiB pages: a decode step streams every weight once. On this project's 2-vCPU VM decode was 1-9%
  // faster in calm phases and up to 1.67x in phases when 4 KiB pages ran slow (docs/engine-speed.md, stop 43).
  if (huge_pages && replace_with_huge_pages(*this, base_, file_bytes)) return;
#ifdef MADV_POPULATE_READ
  // madvise wants a page-aligned start: round the data section's start down to its page.
  const auto page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const auto start = uintptr_t(base_ + data_offset) / page * page;
  (void)::madvise(reinterpret_cast<void*>(start), uintptr_t(base_) + file_bytes - start, MADV_POPULATE_READ);
#endif
}

GgufFile parse_gguf(const std::byte* data, size_t size, const std::string& name) {
  Reader r(data, size, name);
  GgufFile g;
  g.path = name;
  g.file_bytes = size;
  uint32_t magic = r.read<uint32_t>("magic");
  if (magic != kMagic) r.fail("it does not start with the magic bytes 'GGUF'");
  g.version = r.read<uint32_t>("version");
  if (g.version != 2 && g.version != 3) {
    std::string hint = g.version == 1 ? " (GGUF v1 is obsolete; re-convert the model)"
                       : (g.version > 0xffff ? " (a big-endian file?)" : "");
    throw InputError(name + ": unsupported GGUF version " + std::to_string(g.version) + "; expected 2 or 3" + hint);
  }
  // A tensor info is at least: name length (8) + n_dims (4) + one dim (8) + type (4) + offset (8).
  uint64_t n_tensors = r.read<uint64_t>("tensor count");
  uint64_t n_kv = r.read<uint64_t>("metadata count");
  // A metadata pair is at least: key length (8) + type (4) + 1 byte of value.
  if (n_kv > r.remaining() / 13)
    r.fail("metadata count " + std::to_string(n_kv) + " cannot fit in the " + std::to_string(r.remaining()) +
           " remaining bytes");
  if (n_tensors > r.remaining() / 32)
    r.fail("tensor count " + std::to_string(n_tensors) + " cannot fit in the " + std::to_string(r.remaining()) +
           " remaining bytes");

  for (uint64_t j = 0; j < n_kv; ++j) {
    std::string key = r.read_string("metadata key");
    GgufType t = read_type(r, "metadata value type");
    GgufValue v = read_value(r, t, 0);
    if (!g.metadata.emplace(key, std::move(v)).second) r.fail("duplicate metadata key '" + key + "'");
  }
  if (const GgufValue* a = g.find("general.alignment")) {
    if (a->type != GgufType::uint32) r.fail("general.alignment has type " + std::string(gguf_type_name(a->type)) +
                                            "; expected uint32");
    if (a->u == 0 || (a->u & (a->u - 1)) != 0)
      r.fail("general.alignment " + std::to_string(a->u) + " is not a power of two");
    g.alignment = a->u;
  }

  g.tensors.reserve(n_tensors);
  for (uint64_t j = 0; j < n_tensors; ++j) {
    GgufTensorInfo ti;
    ti.name = r.read_string("tensor name");
    uint32_t n_dims = r.read<uint32_t>("tensor dimension count");
    if (n_dims == 0 || n_dims > kMaxDims)
      r.fail("tensor '" + ti.name + "' has " + std::to_string(n_dims) + " dimensions; expected 1 to 4");
    uint64_t elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t ne = r.read<uint64_t>("tensor dimension");
      if (ne > uint64_t(INT64_MAX) || mul_overflows(elements, ne, &elements) || elements > uint64_t(INT64_MAX))
        r.fail("tensor '" + ti.name + "' has an element count that overflows 64 bits");
      ti.dims.push_back(int64_t(ne));
    }
    ti.type = r.read<uint32_t>("tensor type");
    auto info = formats::ggml_type_info(ti.type);
    if (!info)
      r.fail("tensor '" + ti.name + "' has unknown ggml type " + std::to_string(ti.type) + " (known: " +
             formats::ggml_type_names() + ")");
    if (ti.dims[0] % info->block_values != 0)
      r.fail("tensor '" + ti.name + "' row of " + std::to_string(ti.dims[0]) + " values is not a multiple of the " +
             info->name + " block of " + std::to_string(info->block_values));
    uint64_t blocks = elements / uint64_t(info->block_values);
    if (mul_overflows(blocks, uint64_t(info->block_bytes), &ti.bytes))
      r.fail("tensor '" + ti.name + "' byte size overflows 64 bits");
    ti.offset = r.read<uint64_t>("tensor offset");
    if (ti.offset % g.alignment != 0)
      r.fail("tensor '" + ti.name + "' offset " + std::to_string(ti.offset) + " is not a multiple of the alignment " +
             std::to_string(g.alignment));
    g.tensors.push_back(std::move(ti));
  }
  // The data section starts at the next multiple of the alignment after the header.
  uint64_t end = r.pos();
  g.data_offset = (end + g.alignment - 1) / g.alignment * g.alignment;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const GgufTensorInfo& t = g.tensors[i];
    if (!g.tensor_index.emplace(t.name, i).second)
      throw InputError(name + ": duplicate tensor name '" + printable(t.name, 80) + "'");
    uint64_t start = 0, stop = 0;
    if (__builtin_add_overflow(g.data_offset, t.offset, &start) || __builtin_add_overflow(start, t.bytes, &stop) ||
        stop > size)
      throw InputError(name + ": tensor '" + t.name + "' data (" + std::to_string(t.bytes) + " bytes at offset " +
                       std::to_string(t.offset) + " in the data section) runs past the end of the file (" +
                       std::to_string(size) + " bytes; truncated?)");
  }
  g.base_ = data;
  return g;
}

GgufFile open_gguf(const std::string& path, bool map_data) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot open GGUF file '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError("'" + path + "' is not a regular file; expected a .gguf model file");
  }
  size_t size = size_t(st.st_size);
  if (size < 24) {
    ::close(fd);
    throw InputError(path + ": not a valid GGUF file: only " + std::to_string(size) +
                     " bytes, shorter than the 24-byte header");
  }
  // mmap reads lazily: parsing the header touches only its pages, whatever the file's size. The mapping starts
  // on a huge-page boundary so that populate() can later put huge pages at the same addresses.
  void* p = map_aligned(size, [&](void* at) {
    return ::mmap(at, size, PROT_READ, MAP_PRIVATE | (at ? MAP_FIXED : 0), fd, 0);
  });
  ::close(fd);
  if (p == MAP_FAILED) throw InputError("cannot memory-map GGUF file '" + path + "': " + std::strerror(errno));
  std::shared_ptr<const void> mapping(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
  GgufFile g = parse_gguf(static_cast<const std::byte*>(p), size, path);
  g.file_dev = uint64_t(st.st_dev);
  g.file_ino = uint64_t(st.st_ino);
  g.file_mtime_ns = mtime_ns(st);
  if (map_data) {
    g.mapping_ = std::move(mapping);
  } else {
    g.base_ = nullptr;  // the mapping is released when `mapping` goes out of scope
  }
  return g;
}

}  // namespace rooftop::engine
