/* What runtime.c needs to know about the one model a library holds. `minitvm export`
 * generates the definitions (model_data.c, from deploy/library.py) and the kernels' object
 * code (`minitvm__entry`, from LLVM); runtime.c is the same for every model. Every name here
 * is hidden: the library exports the API of minitvm.h and nothing else. */
#ifndef MINITVM_MODEL_DATA_H
#define MINITVM_MODEL_DATA_H

#include <stdint.h>

typedef struct {
  const char *name;
  int32_t dtype; /* ONNX TensorProto.DataType */
  int32_t ndim;
  const int64_t *shape;
  int64_t nbytes;
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
/* Points the code's thread-pool slot at `pool` and its thread count at "as many as the pool
 * likes" (the pool decides per model); nothing if the code has no parallel loop. */
void minitvm__connect_pool(minitvm__pool_fn pool);

/* The model: `io` the input then output buffers, `consts` the constants, `arena` the
 * intermediates (runtime/abi.py). */
void minitvm__entry(void **io, void **consts, char *arena);

#endif
