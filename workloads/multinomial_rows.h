// MultinomialRows: many independent rows, row i ~ Multinomial(n_i, p_{class i}) over the same
// columns, drawn by Poissonisation (docs/design.md §4: routing as counts, never per token).
//
// Rows of the same class and size are drawn together, column by column: independent
// Poisson(mu·p_c) cells, mu = n - sqrt(n), from one table per column shared by the whole run of
// rows (workloads/count_tables.h), then each row's total T is corrected to n exactly by adding
// categorical draws (alias table) or removing pairs chosen uniformly among those drawn (Fenwick
// tree). Given T the cells are Multinomial(T, p) whatever mu, so either way the row is n i.i.d.
// categorical draws, i.e. exactly multinomial up to the tables' 2^-32 resolution; mu below n
// makes the costlier removals rare (T > n in about one row in six). Rows whose largest cell
// mean exceeds 1e5 use conditional binomials instead (a table would be large), and so do runs
// too short to repay their tables (tables_pay in the .cpp: a few rows with large cell means).
// Cost ~ rows x columns table look-ups plus the tables, or rows x columns binomials.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "workloads/count_tables.h"
#include "workloads/rng.h"

namespace moesim::workloads {

class MultinomialRows {
 public:
  // Row i has total totals[i] and class cls[i]; probs[c * cols + j] is class c's weight of
  // column j (normalised per class, or all zero for a class no row with a positive total uses).
  // Writes out[i * cols + j] (overwriting). Totals must be non-negative.
  void draw(std::span<const std::int64_t> totals, std::span<const int> cls, std::span<const double> probs, int cols,
            Rng& rng, std::span<std::int64_t> out);

 private:
  PoissonTable table_;
  std::vector<AliasTable> alias_;
  std::vector<char> alias_built_;
  std::vector<std::int64_t> fenwick_, tmp_;
  std::vector<std::size_t> order_;
};

}  // namespace moesim::workloads
