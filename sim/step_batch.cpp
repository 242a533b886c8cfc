#include "sim/step_batch.h"

#include <algorithm>

namespace moesim::sim {

void split_micro_batches(std::span<const RankBatch> batches, std::size_t micro, std::vector<RankBatch>& out) {
  const std::size_t groups = batches.size();
  out.assign(micro * groups, RankBatch{});
  for (std::size_t g = 0; g < groups; ++g) {
    const RankBatch& b = batches[g];
    auto part = [&](std::size_t m) -> RankBatch& { return out[m * groups + g]; };
    for (std::size_t m = 0; m < micro; ++m) part(m).decode_queries = b.decode_queries;
    for (std::size_t i = 0; i < b.decode_kv_lengths.size(); ++i)
      part(i % micro).decode_kv_lengths.push_back(b.decode_kv_lengths[i]);
    for (std::size_t i = 0; i < b.draft_kv_lengths.size(); ++i)
      part(i % micro).draft_kv_lengths.push_back(b.draft_kv_lengths[i]);
    std::int64_t prefill_samples = b.sampled_tokens - b.decode_tokens();
    for (const auto& c : b.prefill_chunks) {
      std::size_t lightest = 0;
      for (std::size_t m = 1; m < micro; ++m)
        if (part(m).tokens() < part(lightest).tokens()) lightest = m;
      part(lightest).prefill_chunks.push_back(c);
    }
    for (std::size_t m = 0; m < micro; ++m) {
      part(m).sampled_tokens = part(m).decode_tokens();
      // Prompts that complete sample one token each; spread them like the chunks (approximately).
      if (prefill_samples > 0 && !part(m).prefill_chunks.empty()) {
        const auto chunks = static_cast<std::int64_t>(part(m).prefill_chunks.size());
        const std::int64_t n = std::min(prefill_samples, chunks);
        part(m).sampled_tokens += n;
        prefill_samples -= n;
      }
    }
  }
}

}  // namespace moesim::sim
