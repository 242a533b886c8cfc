#include "sim/route_memo.h"

#include <algorithm>

#include "sim/check.h"

namespace moesim::sim {

RouteMemo::RouteMemo(int draws, int moe_layers) : draws_(std::max(0, draws)) {
  if (draws_ <= 0) return;
  layers_.resize(static_cast<std::size_t>(std::max(0, moe_layers)));
  for (auto& keys : layers_) keys.reserve(kKeysPerLayer);  // find() hands out pointers into it
}

const RouteOutcome* RouteMemo::find(int moe_layer, std::uint64_t version, std::span<const std::int64_t> tokens,
                                    workloads::Rng& rng) {
  MOESIM_CHECK(enabled() && moe_layer >= 0 && static_cast<std::size_t>(moe_layer) < layers_.size(),
               "route memo: layer out of range");
  auto& keys = layers_[static_cast<std::size_t>(moe_layer)];
  ++clock_;
  Key* key = nullptr;
  for (auto& k : keys)
    if (k.version == version && std::equal(k.tokens.begin(), k.tokens.end(), tokens.begin(), tokens.end())) {
      key = &k;
      break;
    }
  if (!key) {
    if (keys.size() < kKeysPerLayer) {
      key = &keys.emplace_back();
    } else {
      key = &*std::min_element(keys.begin(), keys.end(),
                               [](const Key& a, const Key& b) { return a.last_use < b.last_use; });
      key->filled = 0;  // its outcomes' storage is reused for the new key's
    }
    key->version = version;
    key->tokens.assign(tokens.begin(), tokens.end());
  }
  key->last_use = clock_;
  if (key->filled < static_cast<std::size_t>(draws_)) {
    pending_ = key;
    ++misses_;
    return nullptr;
  }
  pending_ = nullptr;
  ++hits_;
  // A uniform index in [0, draws): the modulo's bias is below draws / 2^64.
  return &key->outcomes[static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(draws_))];
}

RouteOutcome& RouteMemo::keep() {
  MOESIM_CHECK(pending_ != nullptr, "route memo: keep() without a missed find()");
  Key* key = pending_;
  pending_ = nullptr;
  if (key->filled == key->outcomes.size()) key->outcomes.emplace_back();
  return key->outcomes[key->filled++];
}

}  // namespace moesim::sim
