// Attention kernels' efficiency by sequence length (issue: kernels priced from their behaviour,
// not at one fraction of peak).
//
// Prefill (FlashAttention-3 and kernels like it): a causal attention over a sequence of L tokens
// does ~L^2 work, but every query tile also pays a pipeline fill and the diagonal tiles of the
// causal mask are half wasted, both ~L; so the achieved rate is
//   rate(L) = prefill_fraction * peak * L / (L + prefill_half_len)
// fitted to the published FlashAttention-3 H100 speeds (calibration/data/flashattention3_h100.csv):
// prefill_fraction 0.663 of the BF16 dense peak, prefill_half_len 604 tokens; every row within
// 3.0 %, rms 2.4 % (`fit_prefill_attention`, checked by tests/calibration/attention_efficiency_test.cpp).
//
// MLA's absorbed path (FlashMLA; the decode kernel run with many queries per request) reaches
// 580 TFLOPS compute-bound on H800 SXM5 (FlashMLA README, CUDA 12.8): absorbed_fraction =
// 580 / 989 of the BF16 dense peak. Other devices reuse these fractions on their own peaks, as
// the GEMM fit does (an assumption for other architectures).
#pragma once

#include <span>

namespace moesim::calibration {

struct AttentionFitParams {
  double prefill_fraction = 0.663;   // asymptotic fraction of the BF16 dense peak (long sequences)
  double prefill_half_len = 604;     // tokens at which the prefill kernel reaches half of it
  double absorbed_fraction = 0.586;  // FlashMLA compute-bound: 580 of 989 TFLOPS
};

// The parameters above (fitted to flashattention3_h100.csv; see the header comment).
AttentionFitParams flash_attention_fit();

// Achieved fraction of the peak for a prefill whose queries attend over `kv_span` positions.
double prefill_attention_fraction(const AttentionFitParams& p, double kv_span);

struct AttentionSpeedRow {
  double seqlen = 0;
  double tflops = 0;
};
// Least squares in log rate over the rows (a scan of prefill_half_len, the fraction in closed
// form for each): what produced flash_attention_fit() from the CSV, given the device's peak.
AttentionFitParams fit_prefill_attention(std::span<const AttentionSpeedRow> rows, double peak_tflops);

}  // namespace moesim::calibration
