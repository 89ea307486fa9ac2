// The GPU bandwidth-law sweep's plan (`rooftop validate --device cuda:N`): model cards, the GPU decode kernels'
// formats, and each point's bytes per token from the analyzer's pass_work, counted as the CPU sweep counts them.
#pragma once
#include <string>
#include <vector>

#include "analyzer/model_spec.h"
#include "kernels/cuda/gpu.h"

namespace rooftop::validate {

// The cards the GPU sweep runs: smollm2-135m, qwen2.5-1.5b, llama-3.1-8b (576 to 4096 wide).
const std::vector<std::string>& gpu_validation_model_ids();

// Each card in each of gpu::validation_formats() at gpu::kValidationContext cached positions. bytes_per_token =
// the weights and the KV read of one decode step (pass_work: every class in the format, bf16 KV), as
// ValidatePoint::bytes_per_token(). A card the GPU decode step cannot run (it runs a llama layer: dense SwiGLU
// FFN and full grouped-query attention) is left out with a line in `skipped`.
std::vector<gpu::GpuPlanPoint> gpu_validation_plan(const std::vector<ModelSpec>& cards, std::vector<std::string>* skipped);

}  // namespace rooftop::validate
