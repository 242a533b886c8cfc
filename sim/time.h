// Simulated time: integer nanoseconds in strong types (docs/design.md §4).
//
// `Time` is a point on the simulated clock, `Duration` a span between two points. Both wrap an
// int64 count of nanoseconds, so arithmetic is exact and runs are bit-for-bit reproducible.
// Cost models elsewhere work in floating-point nanoseconds; `Duration::from_ns_rounded` is the
// single place where such a figure becomes simulated time.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace moesim::sim {

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ns(std::int64_t v) { return Duration(v); }
  static constexpr Duration us(std::int64_t v) { return Duration(v * 1'000); }
  static constexpr Duration ms(std::int64_t v) { return Duration(v * 1'000'000); }
  static constexpr Duration s(std::int64_t v) { return Duration(v * 1'000'000'000); }
  // Rounds a (non-negative, finite) floating-point nanosecond figure to the nearest integer.
  static Duration from_ns_rounded(double ns) { return Duration(std::llround(ns)); }
  static Duration from_seconds(double s) { return from_ns_rounded(s * 1e9); }
  static constexpr Duration max() { return Duration(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t count_ns() const { return ns_; }
  constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  constexpr double millis() const { return static_cast<double>(ns_) * 1e-6; }
  constexpr double micros() const { return static_cast<double>(ns_) * 1e-3; }

  constexpr Duration operator+(Duration o) const { return Duration(ns_ + o.ns_); }
  constexpr Duration operator-(Duration o) const { return Duration(ns_ - o.ns_); }
  constexpr Duration operator*(std::int64_t k) const { return Duration(ns_ * k); }
  constexpr Duration& operator+=(Duration o) {
    ns_ += o.ns_;
    return *this;
  }
  constexpr Duration& operator-=(Duration o) {
    ns_ -= o.ns_;
    return *this;
  }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time zero() { return Time(); }
  static constexpr Time from_ns(std::int64_t ns) {
    Time t;
    t.ns_ = ns;
    return t;
  }
  static constexpr Time max() { return from_ns(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t count_ns() const { return ns_; }
  constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }

  constexpr Time operator+(Duration d) const { return from_ns(ns_ + d.count_ns()); }
  constexpr Time& operator+=(Duration d) {
    ns_ += d.count_ns();
    return *this;
  }
  constexpr Duration operator-(Time o) const { return Duration::ns(ns_ - o.ns_); }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  std::int64_t ns_ = 0;
};

}  // namespace moesim::sim
