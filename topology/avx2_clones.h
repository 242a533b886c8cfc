// MOESIM_AVX2_CLONES: compiles a function twice on x86-64, for the baseline and for AVX2, and
// picks the AVX2 one when the CPU has it (GCC/Clang function multi-versioning). For the plain
// loops it marks (elementwise additions, maxima, copies; no reassociated sums and no fused
// multiply-add, which "avx2" does not enable) the results are bit-identical to the baseline
// build. Elsewhere, and under ThreadSanitizer (whose instrumented ifunc resolvers would run
// before its runtime is set up), the baseline alone.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute) && !defined(__SANITIZE_THREAD__)
#if __has_attribute(target_clones)
#define MOESIM_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef MOESIM_AVX2_CLONES
#define MOESIM_AVX2_CLONES
#endif
