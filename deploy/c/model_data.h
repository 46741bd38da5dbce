/* What runtime.c needs to know about the one model a library holds. `minitvm export`
 * generates the definitions (model_data.c, from deploy/library.py) and the kernels' object
 * code (`minitvm__entry`, from LLVM); runtime.c is the same for every model. Every name here
 * is hidden: the library exports the API of minitvm.h and nothing else. */
#ifndef MINITVM_MODEL_DATA_H
#define MINITVM_MODEL_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
  const char *name;
  int32_t dtype; /* ONNX TensorProto.DataType */
  int32_t ndim;
  const int64_t *shape; /* -1: a size the inputs give; -2: one found as the code runs */
  int64_t nbytes;       /* -1 if a dimension is */
} minitvm__io_spec;

extern const int minitvm__num_inputs, minitvm__num_outputs;
extern const minitvm__io_spec minitvm__inputs[], minitvm__outputs[];

/* The weights: one blob, each constant at its offset (multiples of 64). */
extern const int minitvm__num_constants;
extern const int64_t minitvm__constant_offsets[];
extern const int64_t minitvm__weights_size;
extern const uint64_t minitvm__weights_digest; /* minitvm__digest of the blob */
/* The blob inside the library, or NULL if it is in a file beside it called this: */
const unsigned char *minitvm__embedded_weights(void);
extern const char *const minitvm__weights_file;

/* Bytes of intermediates (the arena, 64-byte aligned). */
extern const int64_t minitvm__arena_size;

/* LLVM names of the CPU features the code was compiled for. */
extern const int minitvm__num_features;
extern const char *const minitvm__features[];

/* Parallel loops: chunks per thread, and how generated code reaches the thread pool. */
extern const int minitvm__chunks_per_thread;
typedef void (*minitvm__chunk_fn)(void *ctx, int64_t lo, int64_t hi);
typedef void (*minitvm__pool_fn)(minitvm__chunk_fn body, void *ctx, int64_t trip,
                                 int32_t threads, int64_t grain);
/* The threads the calling thread's model runs its parallel loops on. */
typedef int32_t (*minitvm__count_fn)(void);
/* Points the code's thread-pool slot at `pool`, its thread count at "as many as the pool
 * likes" (the pool decides per model) and its question "how many threads has this run"
 * (a kernel that shares its loops two ways picks one by it) at `count`; nothing if the code
 * has no parallel loop. */
void minitvm__connect_pool(minitvm__pool_fn pool, minitvm__count_fn count);

/* Sizes known only at run time (a model compiled with symbolic dimensions: batch, sequence),
 * in the order the entry takes them; none in a model whose sizes are all fixed, for which
 * the functions below bind nothing, give the fixed arena and the fixed output shapes. */
extern const int minitvm__num_symbols;
/* The sizes these inputs' shapes give, checked (a size out of its bound, two dimensions
 * that must agree but do not): 0, or 1 with the reason in `why`. */
int minitvm__bind_sizes(const int64_t *const *shapes, int64_t *sizes, char *why, size_t room);
/* Bytes of intermediates at these sizes (64-byte aligned; at least minitvm__arena_size). */
int64_t minitvm__arena_bytes(const int64_t *sizes);
/* Output i's shape at these sizes. */
void minitvm__output_shape(int i, const int64_t *sizes, int64_t *shape);

/* Sizes the code finds as it runs (NonZero's count, the length of a Range of fed bounds),
 * which are also in the sizes array: before a run each is set to its bound (buffers are laid
 * out for it), the code writes the size it found, and a size over its bound stopped the run
 * there. Such a size is bounded by an expression of the others, or by a capacity of its own
 * (a size in the array the runtime keeps, minitvm__initial_capacity at first, raised when a
 * run needs more and that run repeated), or is a run-time check (bound 0: a value the model
 * cannot run on, with the message to say so). An output dimension that uses one is -2 in
 * minitvm__outputs. */
typedef struct {
  int index;         /* in the sizes array */
  int capacity;      /* the index of its capacity there, or -1 */
  const char *check; /* a check's message, or NULL */
  int group;         /* the dims of one shape: the index here of the group's first, or -1 */
} minitvm__found_size;
extern const int minitvm__num_found;
extern const int64_t minitvm__initial_capacity, minitvm__group_initial_capacity;
extern const minitvm__found_size minitvm__found[];
/* Found size k's bound at these sizes. */
int64_t minitvm__found_bound(int k, const int64_t *sizes);

/* The model: `io` the input then output buffers, `consts` the constants, `arena` the
 * intermediates, `sizes` the sizes above (runtime/abi.py). */
void minitvm__run_entry(void **io, void **consts, char *arena, int64_t *sizes);

#endif
