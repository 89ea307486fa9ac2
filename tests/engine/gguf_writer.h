// Test helper: writes GGUF bytes (v2/v3) of any metadata type and tensors, independent of the reader.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace rooftop::test {

class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3) : version_(version) {}
  template <class T>
  static void put(std::vector<uint8_t>& b, T v) {
    uint8_t tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof(T));
    b.insert(b.end(), tmp, tmp + sizeof(T));
  }
  static void put_str(std::vector<uint8_t>& b, const std::string& s) {
    put<uint64_t>(b, s.size());
    b.insert(b.end(), s.begin(), s.end());
  }
  // A key with a raw encoded value of GGUF type `type` (value bytes already encoded).
  void kv_raw(const std::string& key, uint32_t type, const std::vector<uint8_t>& value) {
    put_str(kv_, key);
    put<uint32_t>(kv_, type);
    kv_.insert(kv_.end(), value.begin(), value.end());
    ++n_kv_;
  }
  template <class T>
  void kv(const std::string& key, uint32_t type, T v) {
    std::vector<uint8_t> b;
    put<T>(b, v);
    kv_raw(key, type, b);
  }
  void kv_string(const std::string& key, const std::string& s) {
    std::vector<uint8_t> b;
    put_str(b, s);
    kv_raw(key, 8, b);
  }
  void kv_string_array(const std::string& key, const std::vector<std::string>& items) {
    std::vector<uint8_t> b;
    put<uint32_t>(b, 8);
    put<uint64_t>(b, items.size());
    for (const auto& s : items) put_str(b, s);
    kv_raw(key, 9, b);
  }
  template <class T>
  void kv_array(const std::string& key, uint32_t elem_type, const std::vector<T>& items) {
    std::vector<uint8_t> b;
    put<uint32_t>(b, elem_type);
    put<uint64_t>(b, items.size());
    for (T v : items) put<T>(b, v);
    kv_raw(key, 9, b);
  }
  // A tensor of ggml type `type` with dims ne (ne[0] first) and its data bytes.
  void tensor(const std::string& name, uint32_t type, const std::vector<uint64_t>& ne, const std::vector<uint8_t>& data) {
    tensors_.push_back({name, type, ne, data});
  }
  std::vector<uint8_t> bytes(uint64_t alignment = 32) const {
    std::vector<uint8_t> b;
    put<uint32_t>(b, 0x46554747);
    put<uint32_t>(b, version_);
    put<uint64_t>(b, tensors_.size());
    put<uint64_t>(b, n_kv_);
    b.insert(b.end(), kv_.begin(), kv_.end());
    uint64_t off = 0;
    std::vector<uint64_t> offsets;
    for (const auto& t : tensors_) {
      offsets.push_back(off);
      off += t.data.size();
      off = (off + alignment - 1) / alignment * alignment;
    }
    for (size_t i = 0; i < tensors_.size(); ++i) {
      const auto& t = tensors_[i];
      put_str(b, t.name);
      put<uint32_t>(b, t.ne.size());
      for (uint64_t d : t.ne) put<uint64_t>(b, d);
      put<uint32_t>(b, t.type);
      put<uint64_t>(b, offsets[i]);
    }
    while (b.size() % alignment) b.push_back(0);
    const size_t data_start = b.size();
    for (size_t i = 0; i < tensors_.size(); ++i) {
      b.resize(data_start + offsets[i], 0);
      b.insert(b.end(), tensors_[i].data.begin(), tensors_[i].data.end());
    }
    return b;
  }

 private:
  struct T {
    std::string name;
    uint32_t type;
    std::vector<uint64_t> ne;
    std::vector<uint8_t> data;
  };
  uint32_t version_;
  std::vector<uint8_t> kv_;
  uint64_t n_kv_ = 0;
  std::vector<T> tensors_;
};

}  // namespace rooftop::test
