#include "sim/route_memo.h"

#include <algorithm>

#include "sim/check.h"

namespace moesim::sim {

RouteMemo::RouteMemo(int draws, int moe_layers) : draws_(std::max(0, draws)) {
  if (draws_ <= 0) return;
  layers_.resize(static_cast<std::size_t>(std::max(0, moe_layers)));
  for (auto& keys : layers_) keys.reserve(kKeysPerLayer);  // find() hands out pointers into it
}

std::size_t RouteMemo::pool(int draws, int layers) {
  std::size_t root = 1;  // ceil(sqrt(layers)), in integers
  while (root * root < static_cast<std::size_t>(std::max(1, layers))) ++root;
  return static_cast<std::size_t>(std::max(0, draws)) * root;
}

// FNV-1a over the counts (one multiply per count): equal tokens give equal fingerprints, and
// unequal ones rarely collide, which only costs the full comparison that follows.
std::uint64_t RouteMemo::fingerprint(std::span<const std::int64_t> tokens) {
  std::uint64_t h = 0xcbf29ce484222325ULL;                                                         // FNV offset basis
  for (const std::int64_t t : tokens) h = (h ^ static_cast<std::uint64_t>(t)) * 0x100000001b3ULL;  // FNV prime
  return h;
}

RouteOutcome* RouteMemo::find(const Law& law, std::span<const std::int64_t> tokens, std::uint64_t tokens_fingerprint,
                              workloads::Rng& rng) {
  MOESIM_CHECK(enabled() && law.layer >= 0 && static_cast<std::size_t>(law.layer) < layers_.size(),
               "route memo: layer out of range");
  const std::uint64_t version = law.version;
  auto& keys = layers_[static_cast<std::size_t>(law.layer)];
  ++clock_;
  Key* key = nullptr;
  for (auto& k : keys)
    if (k.version == version && k.fingerprint == tokens_fingerprint &&
        std::equal(k.tokens.begin(), k.tokens.end(), tokens.begin(), tokens.end())) {
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
    key->fingerprint = tokens_fingerprint;
  }
  key->last_use = clock_;
  // The layers reading a shared law may grow or shrink between calls: the pool follows, and any
  // `size` of a key's first outcomes are i.i.d. draws of its law.
  const std::size_t size = pool(draws_, law.layers);
  if (key->filled < size) {
    pending_ = key;
    pending_slot_ = key->filled;
    ++misses_;
    return nullptr;
  }
  // A shared pool replaces one of its draws, chosen at random, with a fresh one every `layers`
  // reads on average: the draws stay i.i.d. draws of the law, and a run's mean moves from the
  // pool's first draws to all the draws it has had.
  if (law.layers > 1 && rng() % static_cast<std::uint64_t>(law.layers) == 0) {
    pending_ = key;
    pending_slot_ = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(size));
    ++misses_;
    return nullptr;
  }
  pending_ = nullptr;
  ++hits_;
  // A uniform index in [0, size): the modulo's bias is below size / 2^64.
  return &key->outcomes[static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(size))];
}

RouteOutcome& RouteMemo::keep() {
  MOESIM_CHECK(pending_ != nullptr, "route memo: keep() without a missed find()");
  Key* key = pending_;
  pending_ = nullptr;
  if (pending_slot_ < key->filled) return key->outcomes[pending_slot_];  // a shared pool's refresh
  if (key->filled == key->outcomes.size()) key->outcomes.emplace_back();
  return key->outcomes[key->filled++];
}

}  // namespace moesim::sim
