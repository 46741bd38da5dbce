/* The C API of a library that `minitvm export` built: one compiled ONNX model, no runtime
 * library to ship beside it (the library needs only the C library, libm and libpthread).
 *
 *   minitvm_model *m;
 *   if (minitvm_create(NULL, 0, &m)) { fprintf(stderr, "%s\n", minitvm_last_error()); ... }
 *   int64_t in_shape[] = {1, 3, 224, 224}, out_shape[8];
 *   minitvm_tensor in = {image, 1, 4, in_shape}, out = {scores, 1, 2, out_shape};
 *   if (minitvm_run(m, &in, 1, &out, 1)) { ... }
 *   minitvm_destroy(m);
 *
 * Every int-returning call returns 0 on success and a non-zero code (one of MINITVM_E*) on
 * error; minitvm_last_error() then says what went wrong, on the thread that called.
 * Weights are shared read-only between the models created from one library; each model owns
 * its intermediate buffers and its threads, so runs on different models proceed in parallel
 * and concurrent runs on one model take turns. This header is the same for every model (the
 * comment `minitvm export` puts above it describes that model's inputs and outputs); its
 * names and meaning change only with MINITVM_ABI_VERSION.
 */
#ifndef MINITVM_H
#define MINITVM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MINITVM_ABI_VERSION 2 /* 2 added minitvm_run_alloc, minitvm_free, MINITVM_ECHECK, -2 */

/* Error codes (0 is success). */
#define MINITVM_EINVAL 1    /* a NULL pointer, a wrong count, index, dtype, rank or shape */
#define MINITVM_EWEIGHTS 2  /* the weights file is missing, unreadable, or not this model's */
#define MINITVM_ECPU 3      /* this CPU lacks an instruction set the library was built for */
#define MINITVM_ENOMEM 4    /* out of memory, or no thread could be started */
#define MINITVM_ECHECK 5    /* the inputs' values fail a check of the model (a Reshape to a
                               shape that does not hold its input, a Range of step 0, ...) */

typedef struct minitvm_model minitvm_model;

typedef struct {  /* a tensor: dense, C-contiguous, caller-owned memory */
  void *data;
  int32_t dtype;  /* ONNX TensorProto.DataType: 1 float, 7 int64, 9 bool, ... */
  int32_t ndim;
  int64_t *shape; /* ndim entries; for outputs the library writes the shape */
} minitvm_tensor;

/* MINITVM_ABI_VERSION of the library (compare it with this header's). */
int minitvm_abi_version(void);

/* A model ready to run on `num_threads` threads (0: one per core this process may use).
 * `weights_path`: NULL for a library with embedded weights, or for one exported with
 * `--weights file` whose weights file lies beside it under the name it was written with;
 * otherwise the path of that file. The CPU is checked here: a library built for
 * instructions this CPU lacks fails with MINITVM_ECPU rather than crashing later. */
int minitvm_create(const char *weights_path, int num_threads, minitvm_model **out);

/* -1 for a NULL model. */
int minitvm_num_inputs(const minitvm_model *m);
int minitvm_num_outputs(const minitvm_model *m);
/* NULL for an index out of range. */
const char *minitvm_input_name(const minitvm_model *m, int i);
const char *minitvm_output_name(const minitvm_model *m, int i);
/* The element type, rank and shape of input / output i (`shape` has room for 8; -1 marks a
 * dimension known only at run time: a model exported with symbolic dimensions, such as a
 * batch or a sequence length, runs at any size within its bounds, and each run's inputs
 * give them; -2 an output dimension the model finds as it runs, from the inputs' values:
 * NonZero's count, Unique's, a Range of fed bounds; such an output comes from
 * minitvm_run_alloc only). A tensor of more than 8 dimensions is an error. */
int minitvm_input_info(const minitvm_model *m, int i, int32_t *dtype, int32_t *ndim,
                       int64_t *shape);
int minitvm_output_info(const minitvm_model *m, int i, int32_t *dtype, int32_t *ndim,
                        int64_t *shape);
/* The shape output i takes for these inputs (what to allocate for it before minitvm_run,
 * when minitvm_output_info gives a -1); inputs are checked as minitvm_run checks them. An
 * output with a -2 has no shape before the run: MINITVM_EINVAL. */
int minitvm_output_shape(const minitvm_model *m, const minitvm_tensor *inputs, int num_inputs,
                         int i, int64_t *shape);

/* Run the model. Inputs and outputs in the model's order; each tensor's dtype and ndim must
 * be the model's, an input's shape too (where it has a -1, any size within the model's
 * bounds that agrees with the other inputs); an output's `data` must hold the whole output and
 * its `shape` is written. Inputs and outputs may lie anywhere (aligned to their element)
 * but must not overlap one another. */
int minitvm_run(minitvm_model *m, const minitvm_tensor *inputs, int num_inputs,
                minitvm_tensor *outputs, int num_outputs);

/* Run the model as minitvm_run does, the library allocating the outputs: each output's
 * `dtype`, `ndim` and `shape` (room for ndim entries) are the caller's as for minitvm_run,
 * and the library writes its `data` (free it with minitvm_free; NULL after an error) and
 * its shape. Any model runs this way; a model with an output of a size found as it runs
 * (a -2 in minitvm_output_info) runs only this way. A model whose sizes are found as it
 * runs may run twice the first time a size exceeds any before (buffers are then sized for
 * the larger one); a repeated size allocates nothing but the outputs. */
int minitvm_run_alloc(minitvm_model *m, const minitvm_tensor *inputs, int num_inputs,
                      minitvm_tensor *outputs, int num_outputs);

/* Frees the data of an output of minitvm_run_alloc; NULL is ignored. */
void minitvm_free(void *data);

/* This thread's last error message ("" if none). */
const char *minitvm_last_error(void);

/* Stops the model's threads and frees what it owns; NULL is ignored. Not while a run of the
 * model is in progress on another thread. */
void minitvm_destroy(minitvm_model *m);

#ifdef __cplusplus
}
#endif

#endif /* MINITVM_H */
