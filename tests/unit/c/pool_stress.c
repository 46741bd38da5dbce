/* A stand-in model for deploy/c/runtime.c: its "kernel" runs parallel loops of varying trip
 * counts on the model's thread pool and checks every iteration ran exactly once, so that the
 * pool can be tested (and run under ThreadSanitizer) without LLVM. Built by test_export.py
 * with runtime.c:  pool_stress THREADS MODELS RUNS. */
#include "minitvm.h"
#include "model_data.h"

#include <stdio.h>
#include <stdlib.h>

static const int64_t shape[] = {4};
const int minitvm__num_inputs = 1, minitvm__num_outputs = 1;
const minitvm__io_spec minitvm__inputs[] = {{"x", 1, 1, shape, 16}};
const minitvm__io_spec minitvm__outputs[] = {{"y", 1, 1, shape, 16}};
const int minitvm__num_constants = 0;
const int64_t minitvm__constant_offsets[] = {0};
const int64_t minitvm__weights_size = 0;
const uint64_t minitvm__weights_digest = 0;
static const unsigned char no_weights[64];
const unsigned char *minitvm__embedded_weights(void) { return no_weights; }
const char *const minitvm__weights_file = 0;
const int64_t minitvm__arena_size = 64;
const int minitvm__num_features = 0;
const char *const minitvm__features[] = {0};
const int minitvm__chunks_per_thread = 4;

static minitvm__pool_fn pool;
static minitvm__count_fn count;
void minitvm__connect_pool(minitvm__pool_fn p, minitvm__count_fn c) { pool = p, count = c; }
static int expected_threads;

static void add_indices(void *ctx, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; i++) __atomic_fetch_add((long long *)ctx, i + 1, __ATOMIC_RELAXED);
}

/* Run `body` over [0, trip) on the pool; it adds i + 1 per iteration i, each exactly once. */
static void expect_each_once(minitvm__chunk_fn body, long long trip, const char *what) {
  long long sum = 0;
  pool(body, &sum, trip, 0, 0);
  if (sum != trip * (trip + 1) / 2) {
    fprintf(stderr, "%s, trip %lld: sum %lld, expected %lld\n", what, trip, sum, trip * (trip + 1) / 2);
    abort();
  }
}

/* A loop.sections' section: a kernel's parallel loop opened inside a region runs serially on
 * its thread (on the caller's too), and the region around it is not disturbed. */
static void section(void *ctx, int64_t lo, int64_t hi) {
  for (int64_t s = lo; s < hi; s++) {
    expect_each_once(add_indices, 100, "a loop inside a section");
    __atomic_fetch_add((long long *)ctx, s + 1, __ATOMIC_RELAXED);
  }
}

const int minitvm__num_symbols = 0;
const int minitvm__num_found = 0;
const int64_t minitvm__initial_capacity = 64, minitvm__group_initial_capacity = 1;
const minitvm__found_size minitvm__found[] = {{0, 0, 0, -1}};
int64_t minitvm__found_bound(int k, const int64_t *sizes) {
  (void)k, (void)sizes;
  return 0;
}
int minitvm__bind_sizes(const int64_t *const *shapes, int64_t *sizes, char *why, size_t room) {
  (void)shapes, (void)sizes, (void)why, (void)room;
  return 0;
}
int64_t minitvm__arena_bytes(const int64_t *sizes) { (void)sizes; return minitvm__arena_size; }
void minitvm__output_shape(int i, const int64_t *sizes, int64_t *out) {
  (void)i, (void)sizes;
  out[0] = shape[0];
}

void minitvm__run_entry(void **io, void **consts, char *arena, int64_t *sizes) {
  (void)consts, (void)arena, (void)sizes;
  if (count() != expected_threads) {
    fprintf(stderr, "the run's thread count is %d, expected %d\n", count(), expected_threads);
    abort();
  }
  for (long long trip = 1; trip <= 200; trip += 7) expect_each_once(add_indices, trip, "a loop");
  for (long long trip = 2; trip <= 8; trip += 2) expect_each_once(section, trip, "sections");
  const float *x = io[0];
  float *y = io[1];
  for (int i = 0; i < 4; i++) y[i] = 2 * x[i];
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  int threads = atoi(argv[1]), models = atoi(argv[2]), runs = atoi(argv[3]);
  expected_threads = threads;
  for (int k = 0; k < models; k++) {
    minitvm_model *m;
    if (minitvm_create(NULL, threads, &m)) {
      fprintf(stderr, "%s\n", minitvm_last_error());
      return 1;
    }
    float x[4] = {1, 2, 3, 4}, y[4];
    int64_t in_shape[1] = {4}, out_shape[1];
    minitvm_tensor in = {x, 1, 1, in_shape}, out = {y, 1, 1, out_shape};
    for (int r = 0; r < runs; r++) {
      if (minitvm_run(m, &in, 1, &out, 1) || y[3] != 8 || out_shape[0] != 4) {
        fprintf(stderr, "run failed: %s\n", minitvm_last_error());
        return 1;
      }
    }
    minitvm_destroy(m);
  }
  printf("ok\n");
  return 0;
}
