/* The runtime of an exported minitvm library: the C API of minitvm.h over the generated
 * kernels and model data (model_data.h). The same file for every model; `minitvm export`
 * compiles it with the system C compiler and links it into the library.
 *
 * What is in here, and why:
 * - Errors: a thread-local message, so that concurrent callers never see each other's.
 * - The CPU check at minitvm_create: cpuid (and xgetbv, for the OS's support of the vector
 *   state) against the LLVM features the code was compiled for, so that a library built for
 *   AVX-512 says so on an AVX2 machine instead of dying of SIGILL in its first run.
 * - Weights: embedded (a symbol in .rodata) or a file beside the library, mapped read-only
 *   and checked against the size and digest recorded at export.
 * - A thread pool per model, the design of the JIT's (runtime/thread_pool.py): the caller
 *   takes chunks too, from one atomic word holding (region number, next chunk); a region is
 *   over when every chunk is done, not when every thread has noticed; idle threads spin a
 *   few milliseconds, yielding now and then, and then sleep on a condition variable. The
 *   generated code calls the pool through a function pointer (minitvm__connect_pool); which
 *   model's pool is the calling thread's `current_pool`, set for the length of a run.
 */
#define _GNU_SOURCE
#include "minitvm.h"
#include "model_data.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define API __attribute__((visibility("default")))
#define ALIGNMENT 64
#define MAX_INFO_DIMS 8
/* How long an idle pool thread spins before it sleeps (env MINITVM_POOL_SPIN_US). */
#define DEFAULT_SPIN_NS 5000000LL
/* The name of the pool's threads (at most 15 characters). */
#define POOL_THREAD_NAME "minitvm-pool"

/* ---------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------- */

static __thread char last_error[512];

__attribute__((format(printf, 2, 3))) static int fail(int code, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(last_error, sizeof last_error, format, args);
  va_end(args);
  return code;
}

static void clear_error(void) { last_error[0] = '\0'; }

API const char *minitvm_last_error(void) { return last_error; }

API int minitvm_abi_version(void) { return MINITVM_ABI_VERSION; }

/* ---------------------------------------------------------------------------------------
 * The CPU check
 * ------------------------------------------------------------------------------------- */

enum { EAX, EBX, ECX, EDX };
/* An LLVM feature name, where cpuid reports it, and the XCR0 bits (OS-saved register
 * state) it needs. Features not listed are not checked. */
typedef struct {
  const char *name;
  unsigned leaf, subleaf, reg, bit;
  unsigned long long xcr0;
} cpu_feature;

#define XMM_YMM 0x6ULL
#define ZMM (0xe0ULL | XMM_YMM)
#define TILE 0x60000ULL
static const cpu_feature cpu_features[] = {
    {"sse2", 1, 0, EDX, 26, 0},          {"sse3", 1, 0, ECX, 0, 0},
    {"ssse3", 1, 0, ECX, 9, 0},          {"fma", 1, 0, ECX, 12, XMM_YMM},
    {"sse4.1", 1, 0, ECX, 19, 0},        {"sse4.2", 1, 0, ECX, 20, 0},
    {"popcnt", 1, 0, ECX, 23, 0},        {"aes", 1, 0, ECX, 25, 0},
    {"avx", 1, 0, ECX, 28, XMM_YMM},     {"f16c", 1, 0, ECX, 29, XMM_YMM},
    {"bmi", 7, 0, EBX, 3, 0},            {"avx2", 7, 0, EBX, 5, XMM_YMM},
    {"bmi2", 7, 0, EBX, 8, 0},           {"avx512f", 7, 0, EBX, 16, ZMM},
    {"avx512dq", 7, 0, EBX, 17, ZMM},    {"avx512ifma", 7, 0, EBX, 21, ZMM},
    {"avx512cd", 7, 0, EBX, 28, ZMM},    {"avx512bw", 7, 0, EBX, 30, ZMM},
    {"avx512vl", 7, 0, EBX, 31, ZMM},    {"avx512vbmi", 7, 0, ECX, 1, ZMM},
    {"avx512vbmi2", 7, 0, ECX, 6, ZMM},  {"gfni", 7, 0, ECX, 8, 0},
    {"vaes", 7, 0, ECX, 9, XMM_YMM},     {"vpclmulqdq", 7, 0, ECX, 10, XMM_YMM},
    {"avx512vnni", 7, 0, ECX, 11, ZMM},  {"avx512bitalg", 7, 0, ECX, 12, ZMM},
    {"avx512vpopcntdq", 7, 0, ECX, 14, ZMM}, {"amx-bf16", 7, 0, EDX, 22, TILE},
    {"avx512fp16", 7, 0, EDX, 23, ZMM},  {"amx-tile", 7, 0, EDX, 24, TILE},
    {"amx-int8", 7, 0, EDX, 25, TILE},   {"avxvnni", 7, 1, EAX, 4, XMM_YMM},
    {"avx512bf16", 7, 1, EAX, 5, ZMM},   {"lzcnt", 0x80000001, 0, ECX, 5, 0},
    {"sse4a", 0x80000001, 0, ECX, 6, 0}, {"fma4", 0x80000001, 0, ECX, 16, XMM_YMM},
};

#if defined(__x86_64__) || defined(__i386__)
static int cpu_has(const cpu_feature *f) {
  unsigned r[4] = {0, 0, 0, 0};
  if (!__get_cpuid_count(f->leaf, f->subleaf, &r[EAX], &r[EBX], &r[ECX], &r[EDX])) return 0;
  if (!((r[f->reg] >> f->bit) & 1)) return 0;
  if (f->xcr0) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1)) return 0; /* no OSXSAVE */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    unsigned long long xcr0 = ((unsigned long long)hi << 32) | lo;
    if ((xcr0 & f->xcr0) != f->xcr0) return 0;
  }
  return 1;
}
#else
static int cpu_has(const cpu_feature *f) { (void)f; return 1; }
#endif

/* 0 if this CPU has every feature the code needs that we know how to check. */
static int check_cpu(void) {
  char missing[256] = "";
  size_t used = 0;
  for (int i = 0; i < minitvm__num_features; i++) {
    for (size_t j = 0; j < sizeof cpu_features / sizeof cpu_features[0]; j++) {
      if (strcmp(minitvm__features[i], cpu_features[j].name) == 0 && !cpu_has(&cpu_features[j])) {
        int n = snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "",
                         cpu_features[j].name);
        if (n > 0 && used + (size_t)n < sizeof missing) used += (size_t)n;
      }
    }
  }
  if (used)
    return fail(MINITVM_ECPU,
                "this library was compiled for instructions this CPU lacks: %s (export it "
                "again on this machine, or with --cpu for an older one)",
                missing);
  return 0;
}

/* ---------------------------------------------------------------------------------------
 * Weights
 * ------------------------------------------------------------------------------------- */

/* The digest export records for the weights (deploy/library.py `weights_digest`): the sum
 * over the blob's 64-bit little-endian words w[i] of mix(w[i] ^ (i * golden)), mix being
 * splitmix64's finalizer. A sum of independent terms: any changed word changes it. */
static uint64_t digest(const unsigned char *blob, int64_t size) {
  uint64_t sum = 0;
  int64_t words = size / 8;
  for (int64_t i = 0; i < words; i++) {
    uint64_t w;
    memcpy(&w, blob + 8 * i, 8);
    uint64_t x = w ^ ((uint64_t)i * 0x9e3779b97f4a7c15ULL);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 29;
    sum += x;
  }
  return sum;
}

/* The weights file that lies beside this library, in `path` (size `room`). */
static int default_weights_path(char *path, size_t room) {
  Dl_info info;
  if (!dladdr((void *)&minitvm_create, &info) || !info.dli_fname)
    return fail(MINITVM_EWEIGHTS, "cannot locate this library to find its weights file %s; "
                "pass its path to minitvm_create", minitvm__weights_file);
  const char *slash = strrchr(info.dli_fname, '/');
  int dir = slash ? (int)(slash - info.dli_fname + 1) : 0;
  if (snprintf(path, room, "%.*s%s", dir, info.dli_fname, minitvm__weights_file) >= (int)room)
    return fail(MINITVM_EWEIGHTS, "the path of the weights file is too long");
  return 0;
}

/* Maps the weights file read-only and checks it is this model's. */
static int map_weights(const char *path, const unsigned char **blob) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(MINITVM_EWEIGHTS, "cannot open the weights file %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return fail(MINITVM_EWEIGHTS, "cannot read the weights file %s: %s", path, strerror(errno));
  }
  if ((int64_t)st.st_size != minitvm__weights_size) {
    close(fd);
    return fail(MINITVM_EWEIGHTS, "the weights file %s has %lld bytes, this model's has %lld",
                path, (long long)st.st_size, (long long)minitvm__weights_size);
  }
  void *map = minitvm__weights_size
                  ? mmap(NULL, (size_t)minitvm__weights_size, PROT_READ, MAP_PRIVATE, fd, 0)
                  : NULL;
  close(fd);
  if (map == MAP_FAILED) return fail(MINITVM_EWEIGHTS, "cannot map the weights file %s: %s", path, strerror(errno));
  if (digest(map, minitvm__weights_size) != minitvm__weights_digest) {
    munmap(map, (size_t)minitvm__weights_size);
    return fail(MINITVM_EWEIGHTS, "the weights file %s is not this model's (its digest differs)", path);
  }
  *blob = map;
  return 0;
}

/* ---------------------------------------------------------------------------------------
 * The thread pool
 * ------------------------------------------------------------------------------------- */

typedef struct pool pool;
typedef struct {
  pool *pool;
  uint32_t index; /* helpers 0 .. threads-2 */
} worker_arg;

struct pool {
  int threads; /* the caller and its helpers */
  pthread_t *helpers;
  worker_arg *args;
  int started;
  long long spin_ns;
  /* the region: number (high half) and next chunk (low half) in one word */
  _Alignas(64) _Atomic uint64_t word;
  _Alignas(64) _Atomic uint64_t done;
  _Alignas(64) _Atomic uint32_t generation;
  _Atomic int stop;
  _Atomic(minitvm__chunk_fn) body;
  _Atomic(void *) ctx;
  _Atomic int64_t trip, grain;
  _Atomic uint64_t chunks;
  _Atomic uint32_t wanted;
  _Alignas(64) _Atomic int sleepers;
  pthread_mutex_t mutex;
  pthread_cond_t wake;
};

static __thread pool *current_pool;
/* Whether this thread is running a region of its pool: a parallel loop it opens meanwhile (a
 * kernel inside a loop.sections' section) runs serially, as it does on a pool thread. */
static __thread int in_region;

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Claim and run chunks of region `g` until none is left (or a newer region began). */
static void work(pool *p, uint32_t g) {
  uint64_t tag = (uint64_t)g << 32;
  for (;;) {
    uint64_t w = atomic_load(&p->word);
    if ((w & 0xffffffff00000000ULL) != tag) return;
    uint64_t c = w & 0xffffffffULL;
    if (c >= atomic_load_explicit(&p->chunks, memory_order_relaxed)) return;
    if (!atomic_compare_exchange_weak(&p->word, &w, w + 1)) continue;
    int64_t grain = atomic_load_explicit(&p->grain, memory_order_relaxed);
    int64_t trip = atomic_load_explicit(&p->trip, memory_order_relaxed);
    int64_t lo = (int64_t)c * grain, hi = lo + grain < trip ? lo + grain : trip;
    atomic_load_explicit(&p->body, memory_order_relaxed)(
        atomic_load_explicit(&p->ctx, memory_order_relaxed), lo, hi);
    atomic_fetch_add(&p->done, 1);
  }
}

/* Wait for a region newer than `seen`: spin (yielding now and then) if `spin`, then sleep. */
static uint32_t await_region(pool *p, uint32_t seen, int spin) {
  if (spin) {
    long long deadline = now_ns() + p->spin_ns;
    for (unsigned k = 1;; k++) {
      uint32_t g = atomic_load(&p->generation);
      if (g != seen) return g;
      relax();
      if ((k & 255) == 0) {
        sched_yield();
        if (now_ns() > deadline) break;
      }
    }
  }
  pthread_mutex_lock(&p->mutex);
  atomic_fetch_add(&p->sleepers, 1);
  uint32_t g;
  while ((g = atomic_load(&p->generation)) == seen) pthread_cond_wait(&p->wake, &p->mutex);
  atomic_fetch_sub(&p->sleepers, 1);
  pthread_mutex_unlock(&p->mutex);
  return g;
}

static void *helper_main(void *arg) {
  pool *p = ((worker_arg *)arg)->pool;
  uint32_t index = ((worker_arg *)arg)->index;
  pthread_setname_np(pthread_self(), POOL_THREAD_NAME); /* as top, gdb and /proc show it */
  /* The region count when the pool started, not when this thread first runs: a thread the
   * OS schedules late would otherwise take a destroy's last bump for a region it has seen. */
  uint32_t seen = 0;
  int spin = 0;
  for (;;) {
    seen = await_region(p, seen, spin);
    if (atomic_load(&p->stop)) return NULL;
    spin = index < atomic_load_explicit(&p->wanted, memory_order_relaxed);
    if (spin) work(p, seen); /* a helper this region does not need sleeps again */
  }
}

/* The threads of the calling thread's pool (what generated code's `loop.threads` asks). */
static int32_t pool_threads(void) {
  pool *p = current_pool;
  return p ? p->threads : 1;
}

/* Run `body` over [0, trip) on the calling thread's pool (what generated code calls). */
static void parallel_for(minitvm__chunk_fn body, void *ctx, int64_t trip, int32_t threads_hint,
                         int64_t grain_hint) {
  (void)threads_hint, (void)grain_hint; /* the code's view of the thread count; ours wins */
  pool *p = current_pool;
  int64_t n = p ? p->threads : 1;
  if (n > trip) n = trip;
  if (n <= 1 || in_region) {
    body(ctx, 0, trip);
    return;
  }
  in_region = 1;
  int64_t per = n * minitvm__chunks_per_thread;
  int64_t grain = (trip + per - 1) / per;
  uint64_t chunks = (uint64_t)((trip + grain - 1) / grain);
  uint32_t g = atomic_load(&p->generation) + 1;
  uint64_t tag = (uint64_t)g << 32;
  atomic_store(&p->word, tag | 0xffffffffULL); /* closed: no chunk can be claimed */
  atomic_store_explicit(&p->body, body, memory_order_relaxed);
  atomic_store_explicit(&p->ctx, ctx, memory_order_relaxed);
  atomic_store_explicit(&p->trip, trip, memory_order_relaxed);
  atomic_store_explicit(&p->grain, grain, memory_order_relaxed);
  atomic_store_explicit(&p->chunks, chunks, memory_order_relaxed);
  atomic_store_explicit(&p->wanted, (uint32_t)(n - 1), memory_order_relaxed);
  atomic_store(&p->done, 0);
  atomic_store(&p->word, tag); /* open at chunk 0 */
  atomic_store(&p->generation, g);
  if (atomic_load(&p->sleepers) > 0) {
    pthread_mutex_lock(&p->mutex);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
  }
  work(p, g);
  for (unsigned k = 1; atomic_load(&p->done) != chunks; k++) {
    relax();
    if ((k & 63) == 0) sched_yield();
  }
  in_region = 0;
}

static void pool_stop(pool *p) {
  if (p->started) {
    atomic_store(&p->stop, 1);
    pthread_mutex_lock(&p->mutex);
    atomic_fetch_add(&p->generation, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (int i = 0; i < p->started; i++) pthread_join(p->helpers[i], NULL);
  }
  pthread_mutex_destroy(&p->mutex);
  pthread_cond_destroy(&p->wake);
  free(p->helpers);
  free(p->args);
}

static long long spin_ns(void) {
  const char *value = getenv("MINITVM_POOL_SPIN_US");
  if (!value || !*value) return DEFAULT_SPIN_NS;
  char *end;
  double us = strtod(value, &end);
  return (*end || us < 0 || us >= 1e9) ? DEFAULT_SPIN_NS : (long long)(us * 1000);
}

static int pool_start(pool *p, int threads) {
  memset(p, 0, sizeof *p);
  p->threads = threads;
  p->spin_ns = spin_ns();
  pthread_mutex_init(&p->mutex, NULL);
  pthread_cond_init(&p->wake, NULL);
  if (threads <= 1) return 0;
  p->helpers = calloc((size_t)threads - 1, sizeof *p->helpers);
  p->args = calloc((size_t)threads - 1, sizeof *p->args);
  if (!p->helpers || !p->args) return fail(MINITVM_ENOMEM, "out of memory for %d threads", threads);
  for (int i = 0; i < threads - 1; i++) {
    p->args[i] = (worker_arg){p, (uint32_t)i};
    int rc = pthread_create(&p->helpers[i], NULL, helper_main, &p->args[i]);
    if (rc) return fail(MINITVM_ENOMEM, "cannot start thread %d of %d: %s", i + 2, threads, strerror(rc));
    p->started = i + 1;
  }
  return 0;
}

static int available_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* ---------------------------------------------------------------------------------------
 * Models
 * ------------------------------------------------------------------------------------- */

struct minitvm_model {
  const unsigned char *weights; /* the blob (embedded, or mapped) */
  int mapped;
  void **consts;
  char *arena;
  int64_t arena_bytes; /* what `arena` holds: it grows to the largest run's sizes */
  int64_t *sizes;      /* the run's sizes known only at run time (minitvm__num_symbols) */
  void **io;
  pool pool;
  pthread_mutex_t run_lock; /* runs of one model take turns: one arena */
};

API void minitvm_destroy(minitvm_model *m) {
  if (!m) return;
  pool_stop(&m->pool);
  pthread_mutex_destroy(&m->run_lock);
  if (m->mapped && minitvm__weights_size) munmap((void *)m->weights, (size_t)minitvm__weights_size);
  free(m->consts);
  free(m->arena);
  free(m->sizes);
  free(m->io);
  free(m);
}

API int minitvm_create(const char *weights_path, int num_threads, minitvm_model **out) {
  clear_error();
  if (!out) return fail(MINITVM_EINVAL, "minitvm_create: `out` is NULL");
  *out = NULL;
  if (num_threads < 0) return fail(MINITVM_EINVAL, "minitvm_create: num_threads must be >= 0 (0: every core), got %d", num_threads);
  int rc = check_cpu();
  if (rc) return rc;
  const unsigned char *embedded = minitvm__embedded_weights();
  if (embedded && weights_path)
    return fail(MINITVM_EWEIGHTS, "this library has its weights inside; pass NULL as weights_path");
  /* aligned: the pool's fields sit on cache lines of their own (_Alignas), which calloc's
   * 16 bytes do not honour */
  size_t bytes = (sizeof(minitvm_model) + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  minitvm_model *m = aligned_alloc(ALIGNMENT, bytes);
  if (!m) return fail(MINITVM_ENOMEM, "out of memory");
  memset(m, 0, sizeof *m);
  pthread_mutex_init(&m->run_lock, NULL);
  pool_start(&m->pool, 1); /* a valid (empty) pool until the real one starts */
  if (embedded) {
    m->weights = embedded;
  } else {
    char beside[4096];
    if (!weights_path && (rc = default_weights_path(beside, sizeof beside))) goto error;
    if ((rc = map_weights(weights_path ? weights_path : beside, &m->weights))) goto error;
    m->mapped = 1;
  }
  m->consts = calloc((size_t)minitvm__num_constants + 1, sizeof *m->consts);
  m->io = calloc((size_t)(minitvm__num_inputs + minitvm__num_outputs) + 1, sizeof *m->io);
  m->arena_bytes = minitvm__arena_size > 0 ? minitvm__arena_size : ALIGNMENT;
  m->arena = aligned_alloc(ALIGNMENT, (size_t)m->arena_bytes);
  m->sizes = calloc((size_t)minitvm__num_symbols + 1, sizeof *m->sizes);
  if (!m->consts || !m->io || !m->arena || !m->sizes) {
    rc = fail(MINITVM_ENOMEM, "out of memory for the model's %lld bytes of intermediates",
              (long long)minitvm__arena_size);
    goto error;
  }
  for (int i = 0; i < minitvm__num_constants; i++)
    m->consts[i] = (void *)(m->weights + minitvm__constant_offsets[i]);
  for (int k = 0; k < minitvm__num_found; k++) /* (raised by runs that need more) */
    if (minitvm__found[k].capacity >= 0)
      m->sizes[minitvm__found[k].capacity] =
          minitvm__found[k].group >= 0 ? minitvm__group_initial_capacity : minitvm__initial_capacity;
  pool_stop(&m->pool);
  if ((rc = pool_start(&m->pool, num_threads ? num_threads : available_cores()))) goto error;
  minitvm__connect_pool(parallel_for, pool_threads);
  *out = m;
  return 0;
error:
  minitvm_destroy(m);
  return rc;
}

API int minitvm_num_inputs(const minitvm_model *m) { return m ? minitvm__num_inputs : -1; }
API int minitvm_num_outputs(const minitvm_model *m) { return m ? minitvm__num_outputs : -1; }

static const minitvm__io_spec *spec_at(const minitvm_model *m, int i, int output) {
  int count = output ? minitvm__num_outputs : minitvm__num_inputs;
  if (!m || i < 0 || i >= count) return NULL;
  return output ? &minitvm__outputs[i] : &minitvm__inputs[i];
}

API const char *minitvm_input_name(const minitvm_model *m, int i) {
  const minitvm__io_spec *s = spec_at(m, i, 0);
  return s ? s->name : NULL;
}

API const char *minitvm_output_name(const minitvm_model *m, int i) {
  const minitvm__io_spec *s = spec_at(m, i, 1);
  return s ? s->name : NULL;
}

static int info(const minitvm_model *m, int i, int output, int32_t *dtype, int32_t *ndim,
                int64_t *shape) {
  const char *what = output ? "minitvm_output_info" : "minitvm_input_info";
  clear_error();
  if (!m) return fail(MINITVM_EINVAL, "%s: the model is NULL", what);
  const minitvm__io_spec *s = spec_at(m, i, output);
  if (!s)
    return fail(MINITVM_EINVAL, "%s: no %s %d (the model has %d)", what,
                output ? "output" : "input", i, output ? minitvm__num_outputs : minitvm__num_inputs);
  if (!dtype || !ndim || !shape) return fail(MINITVM_EINVAL, "%s: dtype, ndim and shape must not be NULL", what);
  if (s->ndim > MAX_INFO_DIMS)
    return fail(MINITVM_EINVAL, "%s: '%s' has %d dimensions, more than the %d `shape` has room for",
                what, s->name, s->ndim, MAX_INFO_DIMS);
  *dtype = s->dtype;
  *ndim = s->ndim;
  for (int d = 0; d < s->ndim; d++) shape[d] = s->shape[d];
  return 0;
}

API int minitvm_input_info(const minitvm_model *m, int i, int32_t *dtype, int32_t *ndim, int64_t *shape) {
  return info(m, i, 0, dtype, ndim, shape);
}

API int minitvm_output_info(const minitvm_model *m, int i, int32_t *dtype, int32_t *ndim, int64_t *shape) {
  return info(m, i, 1, dtype, ndim, shape);
}

static void describe_shape(char *text, size_t room, int32_t ndim, const int64_t *shape) {
  size_t used = 0;
  text[0] = '\0';
  for (int d = 0; d < ndim && used + 24 < room; d++) {
    if (shape[d] < 0) /* the model's: a size known only at run time */
      used += (size_t)snprintf(text + used, room - used, "%s?", d ? "x" : "");
    else
      used += (size_t)snprintf(text + used, room - used, "%s%lld", d ? "x" : "", (long long)shape[d]);
  }
  if (ndim == 0) snprintf(text, room, "a scalar");
}

/* ONNX's name of a TensorProto.DataType code, for messages. */
static const char *dtype_name(int32_t code) {
  static const char *const names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16",
                                      "int32", "int64", "string", "bool", "float16", "double",
                                      "uint32", "uint64", "complex64", "complex128", "bfloat16"};
  return code >= 0 && code < (int32_t)(sizeof names / sizeof names[0]) ? names[code] : "unknown";
}

/* `mode` 0: an input; 1: an output; 2: an output the library allocates (no data yet). */
static int check_tensor(const char *what, const minitvm_tensor *t, const minitvm__io_spec *s, int mode) {
  const char *kind = mode ? "output" : "input";
  if (mode != 2 && !t->data && s->nbytes)
    return fail(MINITVM_EINVAL, "%s: %s '%s' has no data (NULL)", what, kind, s->name);
  if (t->dtype != s->dtype)
    return fail(MINITVM_EINVAL, "%s: %s '%s' has dtype %d (%s), the model's is %d (%s)", what,
                kind, s->name, t->dtype, dtype_name(t->dtype), s->dtype, dtype_name(s->dtype));
  if (t->ndim != s->ndim)
    return fail(MINITVM_EINVAL, "%s: %s '%s' has %d dimensions, the model's has %d", what, kind,
                s->name, t->ndim, s->ndim);
  if (!t->shape && s->ndim) return fail(MINITVM_EINVAL, "%s: %s '%s' has no shape (NULL)", what, kind, s->name);
  if (!mode) {
    for (int d = 0; d < s->ndim; d++) {
      if (s->shape[d] >= 0 && t->shape[d] != s->shape[d]) { /* -1: bound by minitvm__bind_sizes */
        char got[200], want[200];
        describe_shape(got, sizeof got, t->ndim, t->shape);
        describe_shape(want, sizeof want, s->ndim, s->shape);
        return fail(MINITVM_EINVAL, "%s: input '%s' has shape %s, the model's is %s", what,
                    s->name, got, want);
      }
    }
  }
  return 0;
}

/* Whether output `s` has a dimension found as the code runs (-2): known after a run only. */
static int found_shape(const minitvm__io_spec *s) {
  for (int d = 0; d < s->ndim; d++)
    if (s->shape[d] == -2) return 1;
  return 0;
}

/* The sizes these inputs give (see minitvm__bind_sizes) into `sizes`, with the error's code
 * and message if they are off. */
static int bind_sizes(const char *what, const minitvm_tensor *inputs, int64_t *sizes) {
  if (!minitvm__num_symbols) return 0;
  const int64_t *shapes[minitvm__num_inputs + 1];
  for (int i = 0; i < minitvm__num_inputs; i++) shapes[i] = inputs[i].shape;
  char why[512];
  if (minitvm__bind_sizes(shapes, sizes, why, sizeof why)) return fail(MINITVM_EINVAL, "%s: %s", what, why);
  return 0;
}

static int check_inputs(const char *what, const minitvm_tensor *inputs, int num_inputs) {
  if (num_inputs != minitvm__num_inputs)
    return fail(MINITVM_EINVAL, "%s: got %d inputs, the model has %d", what, num_inputs, minitvm__num_inputs);
  if (num_inputs && !inputs) return fail(MINITVM_EINVAL, "%s: `inputs` is NULL", what);
  int rc;
  for (int i = 0; i < num_inputs; i++)
    if ((rc = check_tensor(what, &inputs[i], &minitvm__inputs[i], 0))) return rc;
  return 0;
}

API int minitvm_output_shape(const minitvm_model *m, const minitvm_tensor *inputs, int num_inputs,
                             int i, int64_t *shape) {
  const char *what = "minitvm_output_shape";
  clear_error();
  if (!m) return fail(MINITVM_EINVAL, "%s: the model is NULL", what);
  if (i < 0 || i >= minitvm__num_outputs)
    return fail(MINITVM_EINVAL, "%s: no output %d (the model has %d)", what, i, minitvm__num_outputs);
  if (!shape) return fail(MINITVM_EINVAL, "%s: `shape` is NULL", what);
  if (found_shape(&minitvm__outputs[i]))
    return fail(MINITVM_EINVAL,
                "%s: output '%s' has a size the model finds as it runs, known only after "
                "minitvm_run_alloc",
                what, minitvm__outputs[i].name);
  int rc = check_inputs(what, inputs, num_inputs);
  if (rc) return rc;
  int64_t sizes[minitvm__num_symbols + 1];
  if ((rc = bind_sizes(what, inputs, sizes))) return rc;
  minitvm__output_shape(i, sizes, shape);
  return 0;
}

/* Bytes of output i at these sizes. */
static int64_t output_bytes(int i, const int64_t *sizes, int64_t *shape) {
  static const int8_t item[] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 8, 16, 2};
  int32_t code = minitvm__outputs[i].dtype;
  int64_t bytes = code >= 0 && code < (int32_t)sizeof item ? item[code] : 0;
  minitvm__output_shape(i, sizes, shape);
  for (int d = 0; d < minitvm__outputs[i].ndim; d++) bytes *= shape[d] > 0 ? shape[d] : 0;
  return bytes;
}

/* Grows the arena to what these sizes need. */
static int fit_arena(minitvm_model *m, const char *what) {
  int64_t needed = minitvm__arena_bytes(m->sizes);
  if (needed <= m->arena_bytes) return 0;
  /* a run bigger than any before: the arena grows once */
  char *arena = aligned_alloc(ALIGNMENT, (size_t)((needed + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT));
  if (!arena)
    return fail(MINITVM_ENOMEM, "%s: out of memory for %lld bytes of intermediates", what, (long long)needed);
  free(m->arena);
  m->arena = arena;
  m->arena_bytes = needed;
  return 0;
}

/* The first size found as the code ran that exceeds its bound (the run stopped there), or -1. */
static int stopped_at(const int64_t *sizes) {
  for (int k = 0; k < minitvm__num_found; k++)
    if (sizes[minitvm__found[k].index] > minitvm__found_bound(k, sizes)) return k;
  return -1;
}

static void free_outputs(minitvm_tensor *outputs, int num_outputs) {
  for (int i = 0; i < num_outputs; i++) {
    free(outputs[i].data);
    outputs[i].data = NULL;
  }
}

/* Size k exceeded its capacity: raise it (to that size, at least doubled: sizes that keep
 * growing rerun O(log) times). A dim of a group (one shape's) does not grow alone, or that
 * shape's buffers would be planned for the product of each dim's largest size ever: the
 * group's dims this run set (those before k, and k) take its sizes, those after start over.
 * As Executable._stopped does. */
static void raise_capacity(int64_t *sizes, int k) {
  const minitvm__found_size *f = &minitvm__found[k];
  if (f->group < 0) {
    int64_t grown = 2 * sizes[f->capacity];
    sizes[f->capacity] = sizes[f->index] > grown ? sizes[f->index] : grown;
    return;
  }
  for (int j = 0; j < minitvm__num_found; j++)
    if (minitvm__found[j].group == f->group && minitvm__found[j].capacity >= 0)
      sizes[minitvm__found[j].capacity] = j <= k ? sizes[minitvm__found[j].index] : minitvm__group_initial_capacity;
}

/* One run (the run lock held, inputs and outputs checked, sizes bound): again while a size
 * found as it ran exceeded its capacity, which is raised (raise_capacity); `allocate`: the
 * outputs are the library's. */
static int run_locked(minitvm_model *m, const char *what, const minitvm_tensor *inputs,
                      minitvm_tensor *outputs, int allocate) {
  int rc;
  for (;;) {
    for (int k = 0; k < minitvm__num_found; k++) /* buffers are laid out for the bounds */
      m->sizes[minitvm__found[k].index] = minitvm__found_bound(k, m->sizes);
    if ((rc = fit_arena(m, what))) return rc;
    for (int i = 0; i < minitvm__num_inputs; i++) m->io[i] = inputs[i].data;
    for (int i = 0; i < minitvm__num_outputs; i++) {
      if (allocate) {
        int64_t bytes = output_bytes(i, m->sizes, outputs[i].shape);
        outputs[i].data = malloc((size_t)(bytes > 0 ? bytes : 1));
        if (!outputs[i].data) {
          free_outputs(outputs, i);
          return fail(MINITVM_ENOMEM, "%s: out of memory for %lld bytes of output '%s'", what,
                      (long long)bytes, minitvm__outputs[i].name);
        }
      }
      m->io[minitvm__num_inputs + i] = outputs[i].data;
    }
    pool *previous = current_pool;
    current_pool = &m->pool;
    minitvm__run_entry(m->io, m->consts, m->arena, m->sizes);
    current_pool = previous;
    int k = stopped_at(m->sizes);
    if (k < 0) break;
    if (allocate) free_outputs(outputs, minitvm__num_outputs);
    const minitvm__found_size *f = &minitvm__found[k];
    if (f->check) return fail(MINITVM_ECHECK, "%s: %s", what, f->check);
    if (f->capacity < 0) /* (no code does this: a size bounded by the shapes stays within) */
      return fail(MINITVM_EINVAL, "%s: a size found as the model ran, %lld, exceeds its bound",
                  what, (long long)m->sizes[f->index]);
    raise_capacity(m->sizes, k);
  }
  for (int i = 0; i < minitvm__num_outputs; i++) /* the shapes found */
    minitvm__output_shape(i, m->sizes, outputs[i].shape);
  return 0;
}

static int run(minitvm_model *m, const minitvm_tensor *inputs, int num_inputs,
               minitvm_tensor *outputs, int num_outputs, int allocate) {
  const char *what = allocate ? "minitvm_run_alloc" : "minitvm_run";
  clear_error();
  if (allocate && outputs) /* (NULL after any error: nothing for the caller to free) */
    for (int i = 0; i < num_outputs; i++) outputs[i].data = NULL;
  if (!m) return fail(MINITVM_EINVAL, "%s: the model is NULL", what);
  if (num_inputs != minitvm__num_inputs || num_outputs != minitvm__num_outputs)
    return fail(MINITVM_EINVAL, "%s: got %d inputs and %d outputs, the model has %d and %d",
                what, num_inputs, num_outputs, minitvm__num_inputs, minitvm__num_outputs);
  if ((num_inputs && !inputs) || (num_outputs && !outputs))
    return fail(MINITVM_EINVAL, "%s: `inputs` or `outputs` is NULL", what);
  int rc;
  if ((rc = check_inputs(what, inputs, num_inputs))) return rc;
  for (int i = 0; i < num_outputs; i++) {
    if ((rc = check_tensor(what, &outputs[i], &minitvm__outputs[i], allocate ? 2 : 1))) return rc;
    if (!allocate && found_shape(&minitvm__outputs[i]))
      return fail(MINITVM_EINVAL,
                  "%s: output '%s' has a size the model finds as it runs (-2 in "
                  "minitvm_output_info): run it with minitvm_run_alloc",
                  what, minitvm__outputs[i].name);
  }
  pthread_mutex_lock(&m->run_lock);
  if (!(rc = bind_sizes(what, inputs, m->sizes))) rc = run_locked(m, what, inputs, outputs, allocate);
  pthread_mutex_unlock(&m->run_lock);
  return rc;
}

API int minitvm_run(minitvm_model *m, const minitvm_tensor *inputs, int num_inputs,
                    minitvm_tensor *outputs, int num_outputs) {
  return run(m, inputs, num_inputs, outputs, num_outputs, 0);
}

API int minitvm_run_alloc(minitvm_model *m, const minitvm_tensor *inputs, int num_inputs,
                          minitvm_tensor *outputs, int num_outputs) {
  return run(m, inputs, num_inputs, outputs, num_outputs, 1);
}

API void minitvm_free(void *data) { free(data); }
