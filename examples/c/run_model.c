/* run_model: run a model `minitvm export` wrote, from C, on inputs in .npy files.
 *
 *   run_model [--threads N] [--weights FILE] [--repeat N] [--output-dir DIR]
 *             input0.npy [input1.npy ...]
 *
 * The files are the model's inputs in its order (model.h lists them); their dtype and shape
 * go to minitvm_run as they are, so a wrong one is reported by the library itself. Prints
 * each output's name, dtype, shape and first values, the latency of --repeat runs (median
 * and min), and with --output-dir saves each output as DIR/<name>.npy for NumPy.
 *
 * It is the program to copy: every call of the C API is here, each checked, and every
 * error path frees what was taken. Build it with examples/c/Makefile, which compiles it
 * against the model's own header (MINITVM_MODEL_HEADER) and links the library.
 */
#define _POSIX_C_SOURCE 200809L

#ifndef MINITVM_MODEL_HEADER
#define MINITVM_MODEL_HEADER "model.h"
#endif
#include MINITVM_MODEL_HEADER

#include "npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_INFO_DIMS 8 /* the room minitvm_output_info's `shape` needs */
#define PRINT_VALUES 8

static const char usage[] =
    "usage: run_model [--threads N] [--weights FILE] [--repeat N] [--output-dir DIR] "
    "input0.npy [input1.npy ...]\n";

typedef struct {
  int threads; /* 0: one per core */
  const char *weights;
  int repeat;
  const char *output_dir;
  char **files;
  int num_files;
} options;

/* What main owns; free_state releases whatever of it was taken. */
typedef struct {
  minitvm_model *model;
  npy_array *arrays;
  minitvm_tensor *inputs, *outputs;
  int64_t (*output_shapes)[MAX_INFO_DIMS];
  int num_inputs, num_outputs;
  int library_allocates; /* the outputs come from minitvm_run_alloc (see allocate_outputs) */
  double *times_ms;
} state;

static int fail(const char *message) {
  fprintf(stderr, "run_model: %s\n", message);
  return 1;
}

static int api_error(void) { return fail(minitvm_last_error()); }

/* A whole non-negative int, or -1. */
static int parse_count(const char *text) {
  char *end;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno || end == text || *end || value < 0 || value > 1000000000L) return -1;
  return (int)value;
}

/* 0: run; 1: a bad command line (said on stderr); 2: --help (usage printed). */
static int parse_options(int argc, char **argv, options *o) {
  *o = (options){0, NULL, 1, NULL, NULL, 0};
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    const char *flag = argv[i];
    if (strcmp(flag, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(flag, "--help") == 0) {
      fputs(usage, stdout);
      return 2;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "run_model: %s needs a value\n%s", flag, usage);
      return 1;
    }
    const char *value = argv[++i];
    if (strcmp(flag, "--threads") == 0) {
      if ((o->threads = parse_count(value)) < 0) {
        fprintf(stderr, "run_model: --threads %s: not a count (0: one per core)\n", value);
        return 1;
      }
    } else if (strcmp(flag, "--repeat") == 0) {
      if ((o->repeat = parse_count(value)) < 1) {
        fprintf(stderr, "run_model: --repeat %s: must be a whole number >= 1\n", value);
        return 1;
      }
    } else if (strcmp(flag, "--weights") == 0) {
      o->weights = value;
    } else if (strcmp(flag, "--output-dir") == 0) {
      o->output_dir = value;
    } else {
      fprintf(stderr, "run_model: unknown option %s\n%s", flag, usage);
      return 1;
    }
  }
  o->files = argv + i;
  o->num_files = argc - i;
  return 0;
}

static void free_state(state *s) {
  for (int i = 0; s->arrays && i < s->num_inputs; i++) npy_free(&s->arrays[i]);
  for (int i = 0; s->outputs && i < s->num_outputs; i++) {
    if (s->library_allocates)
      minitvm_free(s->outputs[i].data);
    else
      free(s->outputs[i].data);
  }
  free(s->arrays);
  free(s->inputs);
  free(s->outputs);
  free(s->output_shapes);
  free(s->times_ms);
  minitvm_destroy(s->model); /* NULL is fine */
}

static void print_shape(FILE *f, int32_t ndim, const int64_t *shape) {
  fputc('[', f);
  for (int d = 0; d < ndim; d++) fprintf(f, "%s%lld", d ? ", " : "", (long long)shape[d]);
  fputc(']', f);
}

static size_t element_count(int32_t ndim, const int64_t *shape) {
  size_t n = 1;
  for (int d = 0; d < ndim; d++) n *= (size_t)shape[d];
  return n;
}

/* The files of the inputs, each checked against nothing but .npy itself: whether its dtype
 * and shape are the model's is minitvm_run's to say. */
static int load_inputs(const options *o, state *s) {
  s->num_inputs = minitvm_num_inputs(s->model);
  if (o->num_files != s->num_inputs) {
    fprintf(stderr, "run_model: the model has %d input%s (", s->num_inputs,
            s->num_inputs == 1 ? "" : "s");
    for (int i = 0; i < s->num_inputs; i++)
      fprintf(stderr, "%s%s", i ? ", " : "", minitvm_input_name(s->model, i));
    fprintf(stderr, "), got %d .npy file%s\n", o->num_files, o->num_files == 1 ? "" : "s");
    return 1;
  }
  /* +1: calloc(0) may return NULL, which is no failure for a model without inputs */
  s->arrays = calloc((size_t)s->num_inputs + 1, sizeof *s->arrays);
  s->inputs = calloc((size_t)s->num_inputs + 1, sizeof *s->inputs);
  if (!s->arrays || !s->inputs) return fail("out of memory");
  for (int i = 0; i < s->num_inputs; i++) {
    char message[NPY_ERROR_SIZE];
    if (npy_read(o->files[i], &s->arrays[i], message, sizeof message)) return fail(message);
    npy_array *a = &s->arrays[i];
    s->inputs[i] = (minitvm_tensor){a->data, a->dtype, a->ndim, a->shape};
    printf("input  %d %s: %s", i, minitvm_input_name(s->model, i), npy_dtype_name(a->dtype));
    print_shape(stdout, a->ndim, a->shape);
    printf(" from %s\n", o->files[i]);
  }
  return 0;
}

/* The outputs' memory, for the shapes these inputs give; none for a model with an output of
 * a size it finds as it runs (a -2 in minitvm_output_info: NonZero's count, Unique's), whose
 * outputs minitvm_run_alloc allocates at each run. */
static int allocate_outputs(state *s) {
  s->num_outputs = minitvm_num_outputs(s->model);
  s->outputs = calloc((size_t)s->num_outputs + 1, sizeof *s->outputs);
  s->output_shapes = calloc((size_t)s->num_outputs + 1, sizeof *s->output_shapes);
  if (!s->outputs || !s->output_shapes) return fail("out of memory");
  for (int i = 0; i < s->num_outputs; i++) {
    minitvm_tensor *t = &s->outputs[i];
    t->shape = s->output_shapes[i];
    if (minitvm_output_info(s->model, i, &t->dtype, &t->ndim, t->shape)) return api_error();
    for (int d = 0; d < t->ndim; d++) s->library_allocates |= t->shape[d] == -2;
    if (!npy_itemsize(t->dtype)) {
      fprintf(stderr, "run_model: output '%s' has dtype %d, which run_model does not know\n",
              minitvm_output_name(s->model, i), (int)t->dtype);
      return 1;
    }
  }
  for (int i = 0; i < s->num_outputs && !s->library_allocates; i++) {
    minitvm_tensor *t = &s->outputs[i];
    /* a dimension known only at run time (-1): these inputs' shapes give it */
    if (minitvm_output_shape(s->model, s->inputs, s->num_inputs, i, t->shape)) return api_error();
    size_t nbytes = element_count(t->ndim, t->shape) * npy_itemsize(t->dtype);
    if (!(t->data = malloc(nbytes ? nbytes : 1))) return fail("out of memory for the outputs");
  }
  return 0;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int run(const options *o, state *s) {
  if (!(s->times_ms = malloc((size_t)o->repeat * sizeof *s->times_ms))) return fail("out of memory");
  for (int r = 0; r < o->repeat; r++) {
    for (int i = 0; i < s->num_outputs && s->library_allocates; i++) {
      minitvm_free(s->outputs[i].data); /* (the last run's outputs are printed and saved) */
      s->outputs[i].data = NULL;
    }
    double start = now_ms();
    int failed = s->library_allocates
                     ? minitvm_run_alloc(s->model, s->inputs, s->num_inputs, s->outputs, s->num_outputs)
                     : minitvm_run(s->model, s->inputs, s->num_inputs, s->outputs, s->num_outputs);
    if (failed) return api_error();
    s->times_ms[r] = now_ms() - start;
  }
  qsort(s->times_ms, (size_t)o->repeat, sizeof *s->times_ms, compare_doubles);
  int n = o->repeat;
  double median = n % 2 ? s->times_ms[n / 2] : (s->times_ms[n / 2 - 1] + s->times_ms[n / 2]) / 2;
  printf("latency over %d run%s: median %.3f ms, min %.3f ms\n", n, n == 1 ? "" : "s", median,
         s->times_ms[0]);
  return 0;
}

static void print_outputs(const state *s) {
  for (int i = 0; i < s->num_outputs; i++) {
    const minitvm_tensor *t = &s->outputs[i];
    printf("output %d %s: %s", i, minitvm_output_name(s->model, i), npy_dtype_name(t->dtype));
    print_shape(stdout, t->ndim, t->shape);
    size_t count = element_count(t->ndim, t->shape);
    printf(" = [");
    for (size_t k = 0; k < count && k < PRINT_VALUES; k++) {
      char text[64];
      npy_format_element(text, sizeof text, t->data, t->dtype, k);
      printf("%s%s", k ? ", " : "", text);
    }
    printf("%s]\n", count > PRINT_VALUES ? ", ..." : "");
  }
}

/* The file name `minitvm run --output-dir` gives an output, so that the two directories
 * compare file by file: the name's characters outside [A-Za-z0-9_.-] as '_' (an output
 * called "scores:0" or "a/b" is still one file in DIR), leading dots dropped, "output" for
 * a name left empty, and "<stem>_2.npy", "_3", ... for a stem an earlier output took. */
static int output_stem(char *stem, size_t room, const char *name) {
  size_t used = 0;
  while (*name == '.') name++;
  for (const char *c = name; *c; c++) {
    if (used + 1 >= room) return 1;
    int keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
               *c == '_' || *c == '.' || *c == '-';
    stem[used++] = keep ? *c : '_';
  }
  stem[used] = '\0';
  return used ? 0 : snprintf(stem, room, "output") >= (int)room;
}

#define PATH_ROOM 4096

static int write_outputs(const options *o, const state *s) {
  if (mkdir(o->output_dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "run_model: --output-dir %s: %s\n", o->output_dir, strerror(errno));
    return 1;
  }
  char (*paths)[PATH_ROOM] = calloc((size_t)s->num_outputs + 1, sizeof *paths);
  if (!paths) return fail("out of memory");
  int rc = 0;
  for (int i = 0; i < s->num_outputs && !rc; i++) {
    char stem[PATH_ROOM];
    if (output_stem(stem, sizeof stem, minitvm_output_name(s->model, i))) {
      rc = fail("--output-dir: an output's name is too long for a file name");
      break;
    }
    for (int n = 1, taken = 1; taken && !rc; n++) {
      int length = n == 1 ? snprintf(paths[i], PATH_ROOM, "%s/%s.npy", o->output_dir, stem)
                          : snprintf(paths[i], PATH_ROOM, "%s/%s_%d.npy", o->output_dir, stem, n);
      if (length < 0 || length >= PATH_ROOM) rc = fail("--output-dir: the path of an output file is too long");
      taken = 0;
      for (int j = 0; j < i && !taken; j++) taken = strcmp(paths[i], paths[j]) == 0;
    }
    const minitvm_tensor *t = &s->outputs[i];
    char message[NPY_ERROR_SIZE];
    if (!rc && npy_write(paths[i], t->data, t->dtype, t->ndim, t->shape, message, sizeof message))
      rc = fail(message);
    if (!rc) printf("wrote %s\n", paths[i]);
  }
  free(paths);
  return rc;
}

int main(int argc, char **argv) {
  options o;
  int parsed = parse_options(argc, argv, &o);
  if (parsed) return parsed == 2 ? 0 : 1;
  /* A header from another ABI version would describe the calls wrongly. */
  if (minitvm_abi_version() != MINITVM_ABI_VERSION) {
    fprintf(stderr, "run_model: the library has C API version %d, its header says %d\n",
            minitvm_abi_version(), MINITVM_ABI_VERSION);
    return 1;
  }
  state s;
  memset(&s, 0, sizeof s);
  int rc = 0;
  if (minitvm_create(o.weights, o.threads, &s.model)) rc = api_error();
  if (!rc) rc = load_inputs(&o, &s);
  if (!rc) rc = allocate_outputs(&s);
  if (!rc) rc = run(&o, &s);
  if (!rc) print_outputs(&s);
  if (!rc && o.output_dir) rc = write_outputs(&o, &s);
  free_state(&s);
  return rc ? 1 : 0;
}
