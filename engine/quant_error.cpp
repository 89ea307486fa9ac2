// quant_error / file_quant_error: re-quantize real weights with the kernels' quantizers and measure the error.
#include "engine/quant_error.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/errors.h"
#include "kernels/cpu/kernels.h"

namespace rooftop::engine {
namespace {

using kernels::WeightFormat;

struct Target {
  const char* name;
  WeightFormat format;  // unused for int8-tensor
};
const std::vector<Target>& targets() {
  static const std::vector<Target> t = {
      {"int8-tensor", WeightFormat::f32}, {"q8_0", WeightFormat::q8_0}, {"q6_k", WeightFormat::q6_k},
      {"q5_k", WeightFormat::q5_k},       {"q5_0", WeightFormat::q5_0}, {"q4_k", WeightFormat::q4_k},
      {"q4_1", WeightFormat::q4_1},       {"q4_0", WeightFormat::q4_0}};
  return t;
}

// w quantized and dequantized: rows of k values.
std::vector<float> round_trip(std::span<const float> w, int64_t k, const std::string& format) {
  std::vector<float> out(w.size());
  if (format == "int8-tensor") {  // one symmetric scale for the whole tensor
    float amax = 0;
    for (float v : w) amax = std::max(amax, std::abs(v));
    const float scale = amax > 0 ? amax / 127.0f : 1.0f;
    for (size_t i = 0; i < w.size(); ++i) out[i] = std::clamp(std::nearbyint(w[i] / scale), -127.0f, 127.0f) * scale;
    return out;
  }
  const auto it = std::find_if(targets().begin(), targets().end(), [&](const Target& t) { return format == t.name; });
  if (it == targets().end()) throw InputError("unknown quantization format '" + format + "'");
  const WeightFormat f = it->format;
  if (k % kernels::block_values(f) != 0)
    throw InternalError("quant_error: rows of " + std::to_string(k) + " values do not divide into " + format + " blocks");
  std::vector<std::byte> row(static_cast<size_t>(kernels::row_bytes(f, k)));
  for (size_t r = 0; r * static_cast<size_t>(k) < w.size(); ++r) {
    kernels::quantize_row(f, w.subspan(r * static_cast<size_t>(k), static_cast<size_t>(k)), row.data());
    kernels::dequantize_row(f, row.data(), std::span<float>(out).subspan(r * static_cast<size_t>(k), static_cast<size_t>(k)));
  }
  return out;
}

double bits_of(const std::string& format) {
  if (format == "int8-tensor") return 8.0;
  for (const auto& t : targets())
    if (format == t.name) return 8.0 * static_cast<double>(kernels::block_bytes(t.format)) / static_cast<double>(kernels::block_values(t.format));
  return 0;
}

int64_t block_of(const std::string& format) {
  for (const auto& t : targets())
    if (format == t.name && format != "int8-tensor") return kernels::block_values(t.format);
  return 1;
}

}  // namespace

const std::vector<std::string>& quant_formats() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& t : targets()) n.push_back(t.name);
    return n;
  }();
  return names;
}

QuantError quant_error(std::span<const float> w, int64_t k, const std::string& format) {
  if (k <= 0 || w.size() % static_cast<size_t>(k) != 0) throw InternalError("quant_error: values are not whole rows");
  QuantError e;
  e.format = format;
  e.bits_per_weight = bits_of(format);
  e.values = static_cast<double>(w.size());
  const std::vector<float> q = round_trip(w, k, format);
  // The largest 0.1% by magnitude (at least one value).
  const size_t n_out = std::max<size_t>(1, w.size() / 1000);
  std::vector<float> mags(w.size());
  for (size_t i = 0; i < w.size(); ++i) mags[i] = std::abs(w[i]);
  std::vector<float> sorted = mags;
  std::nth_element(sorted.begin(), sorted.end() - static_cast<std::ptrdiff_t>(n_out), sorted.end());
  const float cut = sorted[sorted.size() - n_out];
  std::vector<float> without(w.begin(), w.end());
  std::vector<bool> outlier(w.size(), false);
  size_t marked = 0;
  for (size_t i = 0; i < w.size() && marked < n_out; ++i)
    if (mags[i] >= cut) outlier[i] = true, without[i] = 0.0f, ++marked;
  const std::vector<float> q_without = round_trip(without, k, format);
  double sig = 0, err = 0, rest = 0, rest_without = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    const double d = static_cast<double>(q[i]) - static_cast<double>(w[i]);
    sig += static_cast<double>(w[i]) * static_cast<double>(w[i]);
    err += d * d;
    e.max_abs_error = std::max(e.max_abs_error, std::abs(d));
    if (!outlier[i]) {
      rest += d * d;
      const double dw = static_cast<double>(q_without[i]) - static_cast<double>(w[i]);
      rest_without += dw * dw;
    }
  }
  e.rmse = std::sqrt(err / e.values);
  e.snr_db = err > 0 ? 10.0 * std::log10(sig / err) : 300.0;  // lossless: a 300 dB cap, never infinity
  e.outlier_share = rest > 0 ? std::max(0.0, 1.0 - rest_without / rest) : 0.0;
  return e;
}

FileQuantError file_quant_error(const GgufFile& f, int64_t max_values_per_tensor) {
  if (max_values_per_tensor < 256) throw InputError("--max-values must be at least 256");
  FileQuantError out;
  std::vector<double> sig(quant_formats().size(), 0), err(quant_formats().size(), 0), vals(quant_formats().size(), 0);
  std::vector<double> max_err(quant_formats().size(), 0);
  for (const auto& t : f.tensors) {
    const auto type = static_cast<WeightFormat>(t.type);
    const bool readable = t.type == 0 || t.type == 1 || t.type == 2 || t.type == 3 || t.type == 6 || t.type == 7 ||
                          t.type == 8 || t.type == 12 || t.type == 13 || t.type == 14 || t.type == 30;
    if (t.dims.size() != 2 || !readable || t.dims[0] % 32 != 0 || t.dims[1] <= 0) {
      ++out.tensors_skipped;
      continue;
    }
    const int64_t k = t.dims[0], rows = t.dims[1];
    const int64_t take = std::clamp<int64_t>(max_values_per_tensor / k, 1, rows);
    TensorQuantError te;
    te.name = t.name;
    te.file_type = kernels::format_name(type);
    te.rows = take;
    te.k = k;
    std::vector<float> w(static_cast<size_t>(take * k));
    const std::byte* data = f.tensor_data(t);
    const int64_t rb = kernels::row_bytes(type, k);
    for (int64_t i = 0; i < take; ++i) {  // rows spread evenly over the tensor
      const int64_t r = take == rows ? i : i * rows / take;
      kernels::dequantize_row(type, data + r * rb, std::span<float>(w).subspan(static_cast<size_t>(i * k), static_cast<size_t>(k)));
    }
    double s2 = 0;
    for (float v : w) s2 += static_cast<double>(v) * static_cast<double>(v);
    for (size_t fi = 0; fi < quant_formats().size(); ++fi) {
      if (k % block_of(quant_formats()[fi]) != 0) {  // the k-quants' 256-value blocks do not fit these rows
        QuantError none;
        none.format = quant_formats()[fi];
        none.bits_per_weight = bits_of(none.format);
        te.by_format.push_back(none);
        continue;
      }
      QuantError e = quant_error(w, k, quant_formats()[fi]);
      const double n = e.values;
      err[fi] += e.rmse * e.rmse * n;
      sig[fi] += s2;
      vals[fi] += n;
      max_err[fi] = std::max(max_err[fi], e.max_abs_error);
      te.by_format.push_back(std::move(e));
    }
    out.tensors.push_back(std::move(te));
  }
  for (size_t fi = 0; fi < quant_formats().size(); ++fi) {
    QuantError e;
    e.format = quant_formats()[fi];
    e.bits_per_weight = bits_of(e.format);
    e.values = vals[fi];
    e.rmse = vals[fi] > 0 ? std::sqrt(err[fi] / vals[fi]) : 0;
    e.max_abs_error = max_err[fi];
    e.snr_db = err[fi] > 0 ? 10.0 * std::log10(sig[fi] / err[fi]) : 300.0;
    // Overall outlier share: the values-weighted mean of the tensors' shares.
    double share = 0;
    for (const auto& te : out.tensors) share += te.by_format[fi].outlier_share * te.by_format[fi].values;  // 0 where not measured
    e.outlier_share = vals[fi] > 0 ? share / vals[fi] : 0;
    out.overall.push_back(e);
  }
  return out;
}

LlamaModel requantized(LlamaModel m, WeightFormat f, int64_t* kept) {
  int64_t same = 0;
  // Owned storage is reserved up front so the views into it stay put while it fills.
  m.owned_matrices.reserve(m.owned_matrices.size() + 2 + 7 * m.layers.size());
  auto convert = [&](kernels::WeightView& v) {
    if (v.k % kernels::block_values(f) != 0 || v.format == f) {
      ++same;
      return;
    }
    kernels::RandomWeights w;
    w.storage = AlignedBytes(static_cast<size_t>(v.m * kernels::row_bytes(f, v.k)));
    std::vector<float> row(static_cast<size_t>(v.k));
    const int64_t in_rb = kernels::row_bytes(v.format, v.k), out_rb = kernels::row_bytes(f, v.k);
    for (int64_t r = 0; r < v.m; ++r) {
      kernels::dequantize_row(v.format, v.data + r * in_rb, row);
      kernels::quantize_row(f, row, w.storage.data() + r * out_rb);
    }
    w.view = {f, w.storage.data(), v.m, v.k};
    m.owned_matrices.push_back(std::move(w));
    v = m.owned_matrices.back().view;
  };
  convert(m.token_embd);
  if (m.tied_embeddings) m.output = m.token_embd;
  else convert(m.output);
  for (auto& l : m.layers)
    for (kernels::WeightView* v : {&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down}) convert(*v);
  if (kept) *kept = same;
  return m;
}

double perplexity(std::span<const float> logits, std::span<const int32_t> ids, int64_t V) {
  if (ids.size() < 2) throw InputError("perplexity needs at least 2 tokens");
  double nll = 0;
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    const float* row = logits.data() + static_cast<int64_t>(i) * V;
    const double mx = *std::max_element(row, row + V);
    double z = 0;
    for (int64_t j = 0; j < V; ++j) z += std::exp(static_cast<double>(row[j]) - mx);
    nll -= static_cast<double>(row[ids[i + 1]]) - mx - std::log(z);
  }
  return std::exp(nll / static_cast<double>(ids.size() - 1));
}

}  // namespace rooftop::engine
