// GGUF reader: every value type, arrays, v2 and v3, tensors and alignment; hostile files refused; SmolLM2's header.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "base/suggest.h"
#include "base/process.h"
#include "gguf/gguf.h"
#include "gguf_writer.h"
#include "model_file.h"

using rooftop::InputError;
using rooftop::engine::GgufFile;
using rooftop::engine::GgufType;
using rooftop::engine::parse_gguf;
using rooftop::test::GgufWriter;

namespace {

GgufFile parse(const std::vector<uint8_t>& b) {
  return parse_gguf(reinterpret_cast<const std::byte*>(b.data()), b.size(), "test.gguf");
}

std::vector<uint8_t> floats_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A small file with every scalar type, several arrays and two tensors.
GgufWriter sample(uint32_t version) {
  GgufWriter w(version);
  w.kv<uint8_t>("u8", 0, 200);
  w.kv<int8_t>("i8", 1, -100);
  w.kv<uint16_t>("u16", 2, 60000);
  w.kv<int16_t>("i16", 3, -30000);
  w.kv<uint32_t>("u32", 4, 4000000000u);
  w.kv<int32_t>("i32", 5, -2000000000);
  w.kv<float>("f32", 6, 1.5f);
  w.kv<uint8_t>("b", 7, 1);
  w.kv_string("s", "héllo wörld");
  w.kv<uint64_t>("u64", 10, 18000000000000000000ull);
  w.kv<int64_t>("i64", 11, -9000000000000000000ll);
  w.kv<double>("f64", 12, -2.25);
  w.kv_string_array("tokens", {"a", "", "\xc4\xa0tea", "<|im_start|>"});
  w.kv_array<int32_t>("types", 5, {1, 3, -7});
  w.kv_array<float>("scores", 6, {0.5f, -1.25f});
  w.kv_array<uint8_t>("flags", 7, {0, 1, 1});
  w.tensor("w", 0, {4, 2}, floats_bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  w.tensor("v", 0, {3}, floats_bytes({-1, -2, -3}));
  return w;
}

}  // namespace

TEST_CASE("gguf reads every scalar type, arrays and tensors, v2 and v3", "[gguf]") {
  for (uint32_t version : {2u, 3u}) {
    auto bytes = sample(version).bytes();
    GgufFile g = parse(bytes);
    CHECK(g.version == version);
    CHECK(g.get_int("u8") == 200);
    CHECK(g.get_int("i8") == -100);
    CHECK(g.get_int("u16") == 60000);
    CHECK(g.get_int("i16") == -30000);
    CHECK(g.get_int("u32") == 4000000000ll);
    CHECK(g.get_int("i32") == -2000000000);
    CHECK(g.get_float("f32") == 1.5);
    CHECK(g.get_int("b") == 1);
    CHECK(g.find("b")->type == GgufType::boolean);
    CHECK(g.get_string("s") == "héllo wörld");
    CHECK(!g.get_int("u64"));  // above INT64_MAX: not representable as int64
    CHECK(g.find("u64")->u == 18000000000000000000ull);
    CHECK(g.get_int("i64") == -9000000000000000000ll);
    CHECK(g.get_float("f64") == -2.25);
    CHECK(!g.get_string("u8"));
    CHECK(!g.find("missing"));
    const auto* tok = g.find("tokens");
    REQUIRE(tok);
    CHECK(tok->elem_type == GgufType::string);
    CHECK(tok->strings == std::vector<std::string>{"a", "", "\xc4\xa0tea", "<|im_start|>"});
    CHECK(g.find("types")->ints == std::vector<int64_t>{1, 3, -7});
    CHECK(g.find("scores")->floats == std::vector<double>{0.5, -1.25});
    CHECK(g.find("flags")->ints == std::vector<int64_t>{0, 1, 1});
    CHECK(g.find("flags")->array_size() == 3);
    REQUIRE(g.tensors.size() == 2);
    CHECK(g.tensors[0].name == "w");
    CHECK(g.tensors[0].dims == std::vector<int64_t>{4, 2});
    CHECK(g.tensors[0].bytes == 32);
    CHECK(g.tensors[1].offset == 32);
    CHECK(g.data_offset % 32 == 0);
    float v[3];
    std::memcpy(v, g.tensor_data(g.tensors[1]), 12);
    CHECK(v[0] == -1);
    CHECK(v[2] == -3);
    std::memcpy(v, g.tensor_data(*g.find_tensor("w")) + 4 * 7, 4);
    CHECK(v[0] == 8);
  }
}

TEST_CASE("gguf honours general.alignment and nested arrays", "[gguf]") {
  GgufWriter w(3);
  w.kv<uint32_t>("general.alignment", 4, 64);
  std::vector<uint8_t> nested;  // array of 2 arrays of int16
  GgufWriter::put<uint32_t>(nested, 9);
  GgufWriter::put<uint64_t>(nested, 2);
  for (int a = 0; a < 2; ++a) {
    GgufWriter::put<uint32_t>(nested, 3);
    GgufWriter::put<uint64_t>(nested, 2);
    GgufWriter::put<int16_t>(nested, int16_t(10 * a + 1));
    GgufWriter::put<int16_t>(nested, int16_t(10 * a + 2));
  }
  w.kv_raw("nested", 9, nested);
  w.tensor("a", 0, {1}, floats_bytes({7}));
  w.tensor("b", 0, {2}, floats_bytes({8, 9}));
  const std::vector<uint8_t> bytes = w.bytes(64);  // tensor_data() points into it: keep it alive
  GgufFile g = parse(bytes);
  CHECK(g.alignment == 64);
  CHECK(g.data_offset % 64 == 0);
  CHECK(g.tensors[1].offset == 64);
  float x;
  std::memcpy(&x, g.tensor_data(g.tensors[1]) + 4, 4);
  CHECK(x == 9);
  const auto* n = g.find("nested");
  REQUIRE(n->items.size() == 2);
  CHECK(n->items[1].ints == std::vector<int64_t>{11, 12});
}

TEST_CASE("gguf truncated at every byte offset is refused with InputError", "[gguf]") {
  auto full = sample(3).bytes();
  CHECK_NOTHROW(parse(full));
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + n);
    INFO("truncated to " << n << " of " << full.size() << " bytes");
    CHECK_THROWS_AS(parse(cut), InputError);
  }
}

TEST_CASE("gguf with random corruption never crashes", "[gguf]") {
  auto full = sample(2).bytes();
  std::mt19937 rng(7);
  int refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto b = full;
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] = uint8_t(rng());
    try {
      parse(b);
    } catch (const InputError&) {
      ++refused;
    }
  }
  CHECK(refused > 0);
}

TEST_CASE("gguf hostile headers are refused with a clear message", "[gguf]") {
  auto expect_error = [](const std::vector<uint8_t>& b, const std::string& needle) {
    try {
      parse(b);
      FAIL("accepted a bad file; expected an error containing '" << needle << "'");
    } catch (const InputError& e) {
      std::string msg = e.what();
      INFO(msg);
      CHECK(msg.find("test.gguf") != std::string::npos);
      CHECK(msg.find(needle) != std::string::npos);
    }
  };
  // A file whose only content is one tensor "t" of ggml `type`, dimensions `ne` and bytes `data`.
  auto expect_tensor_error = [&](uint32_t type, const std::vector<uint64_t>& ne, const std::vector<uint8_t>& data,
                                 const std::string& needle) {
    GgufWriter w;
    w.tensor("t", type, ne, data);
    expect_error(w.bytes(), needle);
  };
  // A file whose only content is one metadata key of GGUF value `type` holding `value` (its C++ type sets the width).
  auto expect_kv_error = [&](const std::string& key, uint32_t type, auto value, const std::string& needle) {
    GgufWriter w;
    w.kv(key, type, value);
    expect_error(w.bytes(), needle);
  };
  std::vector<uint8_t> head;
  GgufWriter::put<uint32_t>(head, 0x46554747);
  GgufWriter::put<uint32_t>(head, 3);

  SECTION("bad magic") {
    auto b = sample(3).bytes();
    b[0] = 'X';
    expect_error(b, "magic");
  }
  SECTION("version 1 and big-endian") {
    auto b = sample(3).bytes();
    b[4] = 1;
    CHECK_THROWS_WITH(parse(b), Catch::Contains("version 1"));
    b[4] = 0;
    b[7] = 3;
    CHECK_THROWS_WITH(parse(b), Catch::Contains("big-endian"));
  }
  SECTION("huge counts") {
    auto b = head;
    GgufWriter::put<uint64_t>(b, 0);
    GgufWriter::put<uint64_t>(b, ~0ull);
    expect_error(b, "metadata count");
    b = head;
    GgufWriter::put<uint64_t>(b, 1ull << 60);
    GgufWriter::put<uint64_t>(b, 0);
    expect_error(b, "tensor count");
  }
  SECTION("string longer than the file") {
    GgufWriter w;
    std::vector<uint8_t> v;
    GgufWriter::put<uint64_t>(v, 1ull << 62);
    v.push_back('x');
    w.kv_raw("s", 8, v);
    expect_error(w.bytes(), "claims");
  }
  SECTION("array longer than the file") {
    GgufWriter w;
    std::vector<uint8_t> v;
    GgufWriter::put<uint32_t>(v, 11);
    GgufWriter::put<uint64_t>(v, 1ull << 61);
    w.kv_raw("a", 9, v);
    expect_error(w.bytes(), "array length");
  }
  SECTION("unknown value type") { expect_kv_error("x", 13, uint32_t(0), "unknown metadata value type 13"); }
  SECTION("unknown tensor type") {
    expect_tensor_error(4, {8}, std::vector<uint8_t>(32), "unknown ggml type 4");  // 4 was q4_2, removed from ggml
  }
  SECTION("tensor data past the end") {
    GgufWriter w;
    w.tensor("t", 0, {8}, std::vector<uint8_t>(32));
    auto b = w.bytes();
    b.resize(b.size() - 4);
    expect_error(b, "past the end");
  }
  SECTION("element count overflow") { expect_tensor_error(0, {1ull << 40, 1ull << 40}, {}, "overflows"); }
  SECTION("byte size overflow") { expect_tensor_error(0, {1ull << 62}, {}, "overflows"); }
  SECTION("too many dimensions") { expect_tensor_error(0, {1, 1, 1, 1, 1}, floats_bytes({1}), "dimensions"); }
  SECTION("row not a multiple of the block") {
    expect_tensor_error(8, {33}, std::vector<uint8_t>(68), "multiple of the q8_0 block");
  }
  SECTION("bad alignment") { expect_kv_error("general.alignment", 4, uint32_t(48), "power of two"); }
  SECTION("duplicate key") {
    GgufWriter w;
    w.kv<uint32_t>("k", 4, 1);
    w.kv<uint32_t>("k", 4, 2);
    expect_error(w.bytes(), "duplicate metadata key 'k'");
  }
  SECTION("bool that is not 0 or 1") { expect_kv_error("b", 7, uint8_t(2), "bool"); }
}

TEST_CASE("open_gguf refuses missing and tiny files", "[gguf]") {
  CHECK_THROWS_AS(rooftop::engine::open_gguf("/nonexistent/x.gguf", false), InputError);
  auto path = std::filesystem::temp_directory_path() / "rooftop_tiny.gguf";
  { std::ofstream(path) << "GGUF"; }
  CHECK_THROWS_WITH(rooftop::engine::open_gguf(path.string(), false), Catch::Contains("24-byte header"));
  auto bytes = sample(3).bytes();
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  GgufFile meta = rooftop::engine::open_gguf(path.string(), false);
  CHECK(meta.get_string("s") == "héllo wörld");
  CHECK_FALSE(meta.data_mapped());
  CHECK_THROWS_AS(meta.tensor_data(meta.tensors[0]), std::logic_error);
  GgufFile mapped = rooftop::engine::open_gguf(path.string(), true);
  float x;
  std::memcpy(&x, mapped.tensor_data(mapped.tensors[0]) + 8, 4);
  CHECK(x == 3);
  std::filesystem::remove(path);
}

namespace {
// The process's anonymous memory in transparent huge pages (/proc/self/smaps_rollup), in bytes.
double anon_huge_bytes() {
  std::ifstream f("/proc/self/smaps_rollup");
  std::string key;
  double kb = 0;
  while (f >> key) {
    if (key == "AnonHugePages:") {
      f >> kb;
      return kb * 1024;
    }
  }
  return 0;
}
// True when the kernel gives huge pages to anonymous memory that asks (THP "always" or "madvise").
bool thp_on_request() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return mode.find("[always]") != std::string::npos || mode.find("[madvise]") != std::string::npos;
}
}  // namespace

TEST_CASE("GgufFile::populate maps the tensor data in before the first forward pass", "[gguf]") {
  // 16 MiB of random non-zero floats. After populate() the whole data section must be resident (VmRSS counts
  // mapped file pages), so that a timed prefill pays no page faults; opening alone maps only the header's
  // pages. Without MADV_POPULATE_READ, populate() leaves RSS a few pages up and this fails.
  constexpr int64_t kFloats = 4 << 20;
  auto path = std::filesystem::temp_directory_path() / "rooftop_populate.gguf";
  float first = 0;
  {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    std::vector<float> v(static_cast<size_t>(kFloats));
    for (float& x : v) x = u(rng);
    first = v[0];
    GgufWriter w;
    w.kv_string("general.architecture", "llama");
    w.tensor("t", 0, {uint64_t(kFloats)}, floats_bytes(v));
    const auto bytes = w.bytes();
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  const auto rss = [] {
    auto m = rooftop::resident_memory();
    REQUIRE(m.has_value());
    return m->current_bytes;
  };
  const double before = rss();
  GgufFile mapped = rooftop::engine::open_gguf(path.string(), true);
  const double opened = rss();
  CHECK(opened - before < 4.0 * (1 << 20));
  const double huge_before = anon_huge_bytes();
  const std::byte* data = mapped.tensor_data(mapped.tensors[0]);
  mapped.populate();
  CHECK(rss() - opened > 14.0 * (1 << 20));
  // Same addresses, same bytes: every float equals the file's (read back with an ifstream, not the mapping).
  CHECK(mapped.tensor_data(mapped.tensors[0]) == data);
  std::vector<char> file_bytes(mapped.file_bytes);
  std::ifstream(path, std::ios::binary).read(file_bytes.data(), std::streamsize(file_bytes.size()));
  CHECK(std::memcmp(file_bytes.data(), data - mapped.data_offset - mapped.tensors[0].offset, file_bytes.size()) == 0);
  float x = 0;
  std::memcpy(&x, data, 4);
  CHECK(x == first);
  // With transparent huge pages on request, the 16 MiB now sit in 2 MiB pages: at least 7 whole ones (the
  // mapping starts on a 2 MiB boundary; the header's page and the tail may stay small).
  if (thp_on_request()) CHECK(anon_huge_bytes() - huge_before >= 7.0 * (2 << 20));
  // populate(false) keeps the file's own pages (no anonymous huge pages added).
  GgufFile plain = rooftop::engine::open_gguf(path.string(), true);
  const double huge_plain = anon_huge_bytes();
  plain.populate(false);
  CHECK(anon_huge_bytes() == huge_plain);
  std::memcpy(&x, plain.tensor_data(plain.tensors[0]), 4);
  CHECK(x == first);
  // A file replaced at the same path after opening (a new inode: written aside, renamed over) is never copied in:
  // populate keeps the mapping of the file that was opened, whose values stay.
  GgufFile opened_before = rooftop::engine::open_gguf(path.string(), true);
  {
    auto aside = path;
    aside += ".new";
    std::vector<char> other(file_bytes);
    for (size_t i = mapped.data_offset; i < other.size(); ++i) other[i] = char(0x5a);
    std::memcpy(other.data(), file_bytes.data(), mapped.data_offset);  // the same header
    std::ofstream(aside, std::ios::binary).write(other.data(), std::streamsize(other.size()));
    std::filesystem::rename(aside, path);
  }
  const double huge_replaced = anon_huge_bytes();
  opened_before.populate();
  CHECK(anon_huge_bytes() == huge_replaced);
  std::memcpy(&x, opened_before.tensor_data(opened_before.tensors[0]), 4);
  CHECK(x == first);
  std::filesystem::remove(path);
}

TEST_CASE("SmolLM2-135M GGUF header", "[gguf][model]") {
  GgufFile g = rooftop::engine::open_gguf(rooftop::test::smollm2_path(), false);
  CHECK(g.get_string("general.architecture") == "llama");
  CHECK(g.get_int("llama.block_count") == 30);
  CHECK(g.get_int("llama.embedding_length") == 576);
  CHECK(g.get_int("llama.attention.head_count") == 9);
  CHECK(g.get_int("llama.attention.head_count_kv") == 3);
  CHECK(g.find("tokenizer.ggml.tokens")->strings.size() == 49152);
  CHECK(g.get_string("tokenizer.ggml.model") == "gpt2");
  CHECK(g.find_tensor("blk.0.attn_q.weight") != nullptr);
  CHECK(g.tensor_bytes_total() <= g.file_bytes);
}
