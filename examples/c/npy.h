/* npy.h: read and write NumPy .npy files from C or C++, for feeding an exported minitvm model
 * (examples/c/run_model.c) and saving what it computes, so that the same files go through
 * `np.load` / `np.save` on the Python side and ONNX Runtime can check the numbers.
 *
 *   npy_array a;
 *   char error[NPY_ERROR_SIZE];
 *   if (npy_read("x.npy", &a, error, sizeof error)) { fprintf(stderr, "%s\n", error); ... }
 *   ... a.data, a.dtype (ONNX TensorProto.DataType, as minitvm_tensor wants), a.ndim, a.shape
 *   npy_free(&a);
 *   if (npy_write("y.npy", data, 1, ndim, shape, error, sizeof error)) { ... }
 *
 * What it covers: format versions 1.0 and 2.0 (read; written: 1.0, whose header always has
 * room for the 64 dimensions NumPy allows), C order, the little-endian scalar dtypes the
 * C API carries ('<f4' '|u1' '|i1' '<u2' '<i2' '<i4' '<i8' '|b1' '<f2' '<f8' '<u4' '<u8').
 * Fortran order, big-endian data and structured dtypes are refused with a message that says
 * how to convert the array; bfloat16 has no .npy code of its own (ml_dtypes saves it as '<V2',
 * which says nothing about the type), so it is refused too. Every function returns 0 on
 * success, non-zero with a message in `error`; none exits or prints.
 *
 * Header-only, C99 or C++: every function is `static inline`, so each program that includes
 * this gets its own copy and no link step is needed.
 */
#ifndef MINITVM_EXAMPLES_NPY_H
#define MINITVM_EXAMPLES_NPY_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a message (paths included). */
#define NPY_ERROR_SIZE 512
/* NumPy's own limit on dimensions (NPY_MAXDIMS in NumPy 2). */
#define NPY_MAX_DIMS 64

typedef struct {
  void *data;     /* malloc'd, C order; npy_free frees it */
  int32_t dtype;  /* ONNX TensorProto.DataType */
  int32_t ndim;
  int64_t shape[NPY_MAX_DIMS];
  size_t nbytes;
} npy_array;

/* The dtypes: ONNX code, .npy descr (its byte-order character, '<' or '|', first), name. */
typedef struct {
  int32_t dtype;
  const char *descr;
  const char *name;
  size_t itemsize;
} npy_dtype_entry;

static const npy_dtype_entry npy_dtypes[] = {
    {1, "<f4", "float32", 4},  {2, "|u1", "uint8", 1},    {3, "|i1", "int8", 1},
    {4, "<u2", "uint16", 2},   {5, "<i2", "int16", 2},    {6, "<i4", "int32", 4},
    {7, "<i8", "int64", 8},    {9, "|b1", "bool", 1},     {10, "<f2", "float16", 2},
    {11, "<f8", "float64", 8}, {12, "<u4", "uint32", 4},  {13, "<u8", "uint64", 8},
};
#define NPY_NUM_DTYPES ((int)(sizeof npy_dtypes / sizeof npy_dtypes[0]))

static inline const npy_dtype_entry *npy_dtype_info(int32_t dtype) {
  for (int i = 0; i < NPY_NUM_DTYPES; i++)
    if (npy_dtypes[i].dtype == dtype) return &npy_dtypes[i];
  return NULL;
}

/* The .npy descr of an ONNX dtype code, or NULL if .npy has none. */
static inline const char *npy_descr(int32_t dtype) {
  const npy_dtype_entry *e = npy_dtype_info(dtype);
  return e ? e->descr : NULL;
}

/* NumPy's name of an ONNX dtype code ("float32"), or "bfloat16" / "dtype?" for the others,
 * for messages and printing. */
static inline const char *npy_dtype_name(int32_t dtype) {
  const npy_dtype_entry *e = npy_dtype_info(dtype);
  return e ? e->name : dtype == 16 ? "bfloat16" : "dtype?";
}

/* Bytes per element of an ONNX dtype code (0 if unknown); bfloat16 included, for callers
 * that allocate a model's outputs. */
static inline size_t npy_itemsize(int32_t dtype) {
  const npy_dtype_entry *e = npy_dtype_info(dtype);
  return e ? e->itemsize : dtype == 16 ? 2 : 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline int npy_fail(char *error, size_t size, const char *format, ...) {
  if (error && size) {
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
  }
  return 1;
}

/* The ONNX dtype code of a descr ('<f4', '|b1', ...) in `*dtype`. A 1-byte type is accepted
 * with any byte-order character, since order means nothing for it, and '=' (native) counts
 * as little-endian: npy_read runs on little-endian machines only. */
static inline int npy_dtype_of_descr(const char *descr, const char *path, int32_t *dtype,
                                     char *error, size_t size) {
  if (strlen(descr) < 2)
    return npy_fail(error, size, "%s: unknown dtype '%s'", path, descr);
  for (int i = 0; i < NPY_NUM_DTYPES; i++) {
    const npy_dtype_entry *e = &npy_dtypes[i];
    int order_ok = e->itemsize == 1 ? strchr("<>|=", descr[0]) != NULL
                                    : descr[0] == '<' || descr[0] == '=';
    if (order_ok && strcmp(descr + 1, e->descr + 1) == 0) {
      *dtype = e->dtype;
      return 0;
    }
    if (descr[0] == '>' && strcmp(descr + 1, e->descr + 1) == 0)
      return npy_fail(error, size,
                      "%s: big-endian data ('%s') is not supported; save it little-endian, "
                      "e.g. np.save(path, a.astype(a.dtype.newbyteorder('<')))", path, descr);
  }
  return npy_fail(error, size,
                  "%s: dtype '%s' is not one the C API carries (float32/64, float16, bool, "
                  "[u]int8/16/32/64; bfloat16 has no .npy code)", path, descr);
}

/* --------------------------------------------------------------------------------------
 * Reading: the header is a Python dict literal,
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * parsed here by a small scanner over exactly that grammar.
 * ------------------------------------------------------------------------------------ */

static inline const char *npy_skip_space(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* A quoted string at `p` into `out` (room `room`); the character after it, or NULL. */
static inline const char *npy_parse_string(const char *p, char *out, size_t room) {
  char quote = *p;
  if (quote != '\'' && quote != '"') return NULL;
  size_t n = 0;
  for (p++; *p && *p != quote; p++) {
    if (n + 1 >= room) return NULL;
    out[n++] = *p;
  }
  if (*p != quote) return NULL;
  out[n] = '\0';
  return p + 1;
}

static inline const char *npy_parse_shape(const char *p, npy_array *a) {
  if (*p != '(') return NULL;
  p = npy_skip_space(p + 1);
  a->ndim = 0;
  while (*p != ')') {
    if (*p < '0' || *p > '9' || a->ndim == NPY_MAX_DIMS) return NULL;
    int64_t d = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
      if (d > (INT64_MAX - 9) / 10) return NULL;
      d = d * 10 + (*p - '0');
    }
    a->shape[a->ndim++] = d;
    p = npy_skip_space(p);
    if (*p == ',') p = npy_skip_space(p + 1);
    else if (*p != ')') return NULL;
  }
  return p + 1;
}

static inline int npy_parse_header(const char *header, const char *path, npy_array *a,
                                   char *error, size_t size) {
  const char *bad = "%s: cannot parse the .npy header %s";
  char key[32], descr[64] = "";
  int have_order = 0, have_shape = 0;
  const char *p = npy_skip_space(header);
  if (*p != '{') return npy_fail(error, size, bad, path, header);
  p = npy_skip_space(p + 1);
  while (*p != '}') {
    if (!(p = npy_parse_string(p, key, sizeof key))) return npy_fail(error, size, bad, path, header);
    p = npy_skip_space(p);
    if (*p != ':') return npy_fail(error, size, bad, path, header);
    p = npy_skip_space(p + 1);
    if (strcmp(key, "descr") == 0) {
      if (*p == '[')
        return npy_fail(error, size, "%s: structured dtypes are not supported (%s)", path, header);
      if (!(p = npy_parse_string(p, descr, sizeof descr)))
        return npy_fail(error, size, bad, path, header);
    } else if (strcmp(key, "fortran_order") == 0) {
      if (strncmp(p, "True", 4) == 0)
        return npy_fail(error, size,
                        "%s: the array is in Fortran order; save it in C order, e.g. "
                        "np.save(path, np.ascontiguousarray(a))", path);
      if (strncmp(p, "False", 5) != 0) return npy_fail(error, size, bad, path, header);
      p += 5;
      have_order = 1;
    } else if (strcmp(key, "shape") == 0) {
      if (!(p = npy_parse_shape(p, a))) return npy_fail(error, size, bad, path, header);
      have_shape = 1;
    } else {
      return npy_fail(error, size, "%s: unexpected key '%s' in the .npy header", path, key);
    }
    p = npy_skip_space(p);
    if (*p == ',') p = npy_skip_space(p + 1);
    else if (*p != '}') return npy_fail(error, size, bad, path, header);
  }
  if (!descr[0] || !have_order || !have_shape) return npy_fail(error, size, bad, path, header);
  return npy_dtype_of_descr(descr, path, &a->dtype, error, size);
}

static inline int npy_little_endian_host(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

static inline void npy_free(npy_array *a) {
  if (!a) return;
  free(a->data);
  a->data = NULL;
}

/* npy_read's body, with early returns: `*header` is the caller's to free. */
static inline int npy_read_stream(FILE *f, const char *path, npy_array *a, char **header,
                                  char *error, size_t size) {
  unsigned char prefix[12];
  if (fread(prefix, 1, 10, f) != 10 || memcmp(prefix, "\x93NUMPY", 6) != 0)
    return npy_fail(error, size, "%s: not a .npy file (no \\x93NUMPY magic)", path);
  uint32_t header_len;
  if (prefix[6] == 1 && prefix[7] == 0) {
    header_len = (uint32_t)prefix[8] | (uint32_t)prefix[9] << 8;
  } else if (prefix[6] == 2 && prefix[7] == 0) {
    if (fread(prefix + 10, 1, 2, f) != 2)
      return npy_fail(error, size, "%s: the .npy header is truncated", path);
    header_len = (uint32_t)prefix[8] | (uint32_t)prefix[9] << 8 | (uint32_t)prefix[10] << 16 |
                 (uint32_t)prefix[11] << 24;
  } else {
    return npy_fail(error, size, "%s: .npy format version %u.%u is not supported (1.0 and 2.0 are)",
                    path, (unsigned)prefix[6], (unsigned)prefix[7]);
  }
  if (header_len > (1u << 24) || !(*header = (char *)malloc((size_t)header_len + 1)))
    return npy_fail(error, size, "%s: the .npy header is too long", path);
  if (fread(*header, 1, header_len, f) != header_len)
    return npy_fail(error, size, "%s: the .npy header is truncated", path);
  /* the padding NumPy adds (spaces and a newline) would only clutter messages */
  while (header_len && strchr(" \n\r\t", (*header)[header_len - 1])) header_len--;
  (*header)[header_len] = '\0';
  if (npy_parse_header(*header, path, a, error, size)) return 1;

  uint64_t count = 1, itemsize = npy_itemsize(a->dtype);
  for (int d = 0; d < a->ndim; d++) {
    uint64_t dim = (uint64_t)a->shape[d];
    if (dim && count > (uint64_t)SIZE_MAX / itemsize / dim)
      return npy_fail(error, size, "%s: the array is too large for this machine", path);
    count *= dim;
  }
  a->nbytes = (size_t)(count * itemsize);
  /* malloc(0) may return NULL; an empty array still gets a (unused) address. */
  if (!(a->data = malloc(a->nbytes ? a->nbytes : 1)))
    return npy_fail(error, size, "%s: out of memory for the array", path);
  if (fread(a->data, 1, a->nbytes, f) != a->nbytes)
    return npy_fail(error, size, "%s: the file is shorter than its header's shape and dtype say",
                    path);
  return 0;
}

/* Reads `path` into `*a`; after a failure a->data is NULL (nothing to free). */
static inline int npy_read(const char *path, npy_array *a, char *error, size_t size) {
  memset(a, 0, sizeof *a);
  if (!npy_little_endian_host())
    return npy_fail(error, size, "%s: npy.h reads little-endian data on little-endian "
                    "machines only", path);
  FILE *f = fopen(path, "rb");
  if (!f) return npy_fail(error, size, "%s: %s", path, strerror(errno));
  char *header = NULL;
  int rc = npy_read_stream(f, path, a, &header, error, size);
  free(header);
  fclose(f);
  if (rc) npy_free(a);
  return rc;
}

/* Writes `data` (C order) as `path`, format version 1.0 (NPY_MAX_DIMS dimensions always fit
 * its 64 KiB header), the header padded so that the data starts at a multiple of 64 bytes,
 * as NumPy does. A file that could not be written completely is removed. */
static inline int npy_write(const char *path, const void *data, int32_t dtype, int32_t ndim,
                            const int64_t *shape, char *error, size_t size) {
  const char *descr = npy_descr(dtype);
  if (!descr)
    return npy_fail(error, size, "%s: %s has no .npy dtype code", path, npy_dtype_name(dtype));
  if (!npy_little_endian_host())
    return npy_fail(error, size, "%s: npy.h writes little-endian data on little-endian "
                    "machines only", path);
  if (ndim < 0 || ndim > NPY_MAX_DIMS)
    return npy_fail(error, size, "%s: cannot write an array of %d dimensions", path, (int)ndim);
  /* 64 + 24 per dimension (an int64 and its ", ") + padding to 64: under 2 KiB */
  char header[2048];
  size_t count = 1;
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   descr);
  for (int d = 0; d < ndim; d++) {
    if (shape[d] < 0)
      return npy_fail(error, size, "%s: dimension %d is negative (%lld)", path, d,
                      (long long)shape[d]);
    n += snprintf(header + n, sizeof header - (size_t)n, "%s%lld", d ? ", " : "",
                  (long long)shape[d]);
    count *= (size_t)shape[d];
  }
  n += snprintf(header + n, sizeof header - (size_t)n, "%s), }", ndim == 1 ? "," : "");
  /* magic (6) + version (2) + length (2) + header + spaces + '\n' = a multiple of 64 */
  size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64;
  while ((size_t)n < total - 10 - 1) header[n++] = ' ';
  header[n++] = '\n';
  unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                            (unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
  FILE *f = fopen(path, "wb");
  if (!f) return npy_fail(error, size, "%s: %s", path, strerror(errno));
  size_t nbytes = count * npy_itemsize(dtype);
  errno = 0;
  int ok = fwrite(head, 1, sizeof head, f) == sizeof head &&
           fwrite(header, 1, (size_t)n, f) == (size_t)n && fwrite(data, 1, nbytes, f) == nbytes;
  int saved = errno;
  if (fclose(f) != 0 && ok) ok = 0, saved = errno;
  if (!ok) {
    remove(path);
    return npy_fail(error, size, "%s: cannot write: %s", path,
                    saved ? strerror(saved) : "short write");
  }
  return 0;
}

/* --------------------------------------------------------------------------------------
 * Printing: element `i` of `data` as text, for programs that show what a model computed.
 * ------------------------------------------------------------------------------------ */

/* IEEE half (binary16) bits to float, subnormals, infinities and NaN included. */
static inline float npy_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | mantissa << 13;
  } else if (exponent) {
    bits = sign | (exponent + 112) << 23 | mantissa << 13;
  } else if (mantissa) { /* subnormal: normalize */
    int shift = 0;
    while (!(mantissa & 0x400)) mantissa <<= 1, shift++;
    bits = sign | (uint32_t)(113 - shift) << 23 | (mantissa & 0x3ff) << 13;
  } else {
    bits = sign;
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static inline void npy_format_element(char *out, size_t room, const void *data, int32_t dtype,
                                      size_t i) {
  const unsigned char *p = (const unsigned char *)data + i * npy_itemsize(dtype);
#define NPY_LOAD(type, var) type var; memcpy(&var, p, sizeof var)
  switch (dtype) {
    case 1: { NPY_LOAD(float, v); snprintf(out, room, "%.7g", (double)v); break; }
    case 11: { NPY_LOAD(double, v); snprintf(out, room, "%.15g", v); break; }
    case 10: { NPY_LOAD(uint16_t, v); snprintf(out, room, "%.4g", (double)npy_half_to_float(v)); break; }
    case 16: { /* bfloat16: the high half of a float32 */
      NPY_LOAD(uint16_t, v);
      uint32_t bits = (uint32_t)v << 16;
      float f;
      memcpy(&f, &bits, 4);
      snprintf(out, room, "%.3g", (double)f);
      break;
    }
    case 2: snprintf(out, room, "%u", (unsigned)*p); break;
    case 3: snprintf(out, room, "%d", (int)(signed char)*p); break;
    case 9: snprintf(out, room, "%s", *p ? "true" : "false"); break;
    case 4: { NPY_LOAD(uint16_t, v); snprintf(out, room, "%u", (unsigned)v); break; }
    case 5: { NPY_LOAD(int16_t, v); snprintf(out, room, "%d", (int)v); break; }
    case 6: { NPY_LOAD(int32_t, v); snprintf(out, room, "%ld", (long)v); break; }
    case 12: { NPY_LOAD(uint32_t, v); snprintf(out, room, "%lu", (unsigned long)v); break; }
    case 7: { NPY_LOAD(int64_t, v); snprintf(out, room, "%lld", (long long)v); break; }
    case 13: { NPY_LOAD(uint64_t, v); snprintf(out, room, "%llu", (unsigned long long)v); break; }
    default: snprintf(out, room, "?");
  }
#undef NPY_LOAD
}

#endif /* MINITVM_EXAMPLES_NPY_H */
