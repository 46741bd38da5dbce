// run_model_cpp: run_model.c's job in C++17, over a small RAII wrapper of the C API.
//
//   run_model_cpp [--threads N] [--output-dir DIR] input0.npy [input1.npy ...]
//
// minitvm::Model owns a minitvm_model* (minitvm_destroy in its destructor), turns every
// failing call into std::runtime_error with minitvm_last_error()'s message, and runs on
// Inputs (views of the caller's memory) into Outputs it allocates from the model's output
// info. It is the part to copy into a C++ program; main below only reads and writes .npy.
#ifndef MINITVM_MODEL_HEADER
#define MINITVM_MODEL_HEADER "model.h"
#endif
#include MINITVM_MODEL_HEADER

#include "npy.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace minitvm {

// An input: the caller's memory, read during run().
struct Input {
  const void *data;
  int32_t dtype;  // ONNX TensorProto.DataType
  std::vector<int64_t> shape;
};

// An output: its own memory, sized from minitvm_output_info.
struct Output {
  std::string name;
  int32_t dtype;
  std::vector<int64_t> shape;
  std::vector<unsigned char> data;  // operator new's alignment: enough for any element
};

struct TensorInfo {
  std::string name;
  int32_t dtype;
  std::vector<int64_t> shape;  // -1: a symbolic dimension
};

class Model {
 public:
  // `weights`: nullptr unless the weights file is not beside the library (minitvm_create).
  explicit Model(int num_threads = 0, const char *weights = nullptr) {
    if (minitvm_abi_version() != MINITVM_ABI_VERSION)
      throw std::runtime_error("the library has C API version " +
                               std::to_string(minitvm_abi_version()) + ", its header says " +
                               std::to_string(MINITVM_ABI_VERSION));
    check(minitvm_create(weights, num_threads, &model_));
  }
  ~Model() { minitvm_destroy(model_); }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;
  Model(Model &&other) noexcept : model_(std::exchange(other.model_, nullptr)) {}
  Model &operator=(Model &&other) noexcept {
    std::swap(model_, other.model_);
    return *this;
  }

  std::vector<TensorInfo> inputs() const { return infos(false); }
  std::vector<TensorInfo> outputs() const { return infos(true); }

  // One run; the Inputs in the model's order (minitvm_run checks their dtypes and shapes).
  std::vector<Output> run(const std::vector<Input> &inputs) {
    std::vector<minitvm_tensor> in;
    for (const Input &i : inputs)
      in.push_back({const_cast<void *>(i.data), i.dtype, static_cast<int32_t>(i.shape.size()),
                    const_cast<int64_t *>(i.shape.data())});
    std::vector<TensorInfo> infos = outputs();
    for (const TensorInfo &info : infos)
      for (int64_t d : info.shape)
        if (d == -2) return run_alloc(in, std::move(infos));  // a size found as the model runs
    std::vector<Output> results;
    int index = 0;
    for (TensorInfo &info : infos) {
      // a dimension known only at run time (-1): these inputs' shapes give it
      check(minitvm_output_shape(model_, in.data(), static_cast<int>(in.size()), index++,
                                 info.shape.data()));
      size_t count = 1;
      for (int64_t d : info.shape) count *= static_cast<size_t>(d);
      size_t itemsize = npy_itemsize(info.dtype);
      if (!itemsize)
        throw std::runtime_error("output '" + info.name + "' has an unknown dtype " +
                                 std::to_string(info.dtype));
      results.push_back({std::move(info.name), info.dtype, std::move(info.shape),
                         std::vector<unsigned char>(count * itemsize)});
    }
    std::vector<minitvm_tensor> out;
    for (Output &o : results)
      out.push_back({o.data.data(), o.dtype, static_cast<int32_t>(o.shape.size()), o.shape.data()});
    check(minitvm_run(model_, in.data(), static_cast<int>(in.size()), out.data(),
                      static_cast<int>(out.size())));
    return results;
  }

 private:
  // A run whose outputs the library allocates (minitvm_run_alloc), copied into Outputs.
  std::vector<Output> run_alloc(std::vector<minitvm_tensor> &in, std::vector<TensorInfo> infos) {
    std::vector<minitvm_tensor> out;
    for (TensorInfo &info : infos)
      out.push_back({nullptr, info.dtype, static_cast<int32_t>(info.shape.size()), info.shape.data()});
    check(minitvm_run_alloc(model_, in.data(), static_cast<int>(in.size()), out.data(),
                            static_cast<int>(out.size())));
    std::vector<Output> results;
    for (size_t i = 0; i < infos.size(); i++) {
      size_t count = 1;
      for (int64_t d : infos[i].shape) count *= static_cast<size_t>(d);
      const unsigned char *data = static_cast<const unsigned char *>(out[i].data);
      results.push_back({std::move(infos[i].name), infos[i].dtype, std::move(infos[i].shape),
                         std::vector<unsigned char>(data, data + count * npy_itemsize(infos[i].dtype))});
    }
    for (minitvm_tensor &o : out) minitvm_free(o.data);
    return results;
  }

  static void check(int code) {
    if (code) throw std::runtime_error(minitvm_last_error());
  }

  std::vector<TensorInfo> infos(bool output) const {
    int count = output ? minitvm_num_outputs(model_) : minitvm_num_inputs(model_);
    std::vector<TensorInfo> result;
    for (int i = 0; i < count; i++) {
      int32_t dtype, ndim;
      int64_t shape[8];  // the room minitvm_*_info needs
      check(output ? minitvm_output_info(model_, i, &dtype, &ndim, shape)
                   : minitvm_input_info(model_, i, &dtype, &ndim, shape));
      const char *name = output ? minitvm_output_name(model_, i) : minitvm_input_name(model_, i);
      result.push_back({name, dtype, std::vector<int64_t>(shape, shape + ndim)});
    }
    return result;
  }

  minitvm_model *model_ = nullptr;
};

}  // namespace minitvm

namespace {

// An npy_array that frees itself.
struct NpyFile {
  npy_array array{};
  explicit NpyFile(const std::string &path) {
    char message[NPY_ERROR_SIZE];
    if (npy_read(path.c_str(), &array, message, sizeof message)) throw std::runtime_error(message);
  }
  NpyFile(NpyFile &&other) noexcept : array(other.array) { other.array.data = nullptr; }
  ~NpyFile() { npy_free(&array); }
  NpyFile(const NpyFile &) = delete;
  NpyFile &operator=(const NpyFile &) = delete;
  NpyFile &operator=(NpyFile &&) = delete;
};

std::string shape_text(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); d++) text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + "]";
}

// The file name `minitvm run --output-dir` gives an output (as run_model.c): the name's
// characters outside [A-Za-z0-9_.-] as '_', leading dots dropped, "output" for a name left
// empty, "<stem>_2.npy", "_3", ... for a stem an earlier output took (`taken`).
std::string output_path(const std::string &dir, const std::string &name,
                        std::vector<std::string> &taken) {
  std::string stem;
  for (char c : name.substr(std::min(name.find_first_not_of('.'), name.size()))) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.' || c == '-';
    stem += keep ? c : '_';
  }
  if (stem.empty()) stem = "output";
  std::string file = stem + ".npy";
  for (int n = 2; std::find(taken.begin(), taken.end(), file) != taken.end(); n++)
    file = stem + "_" + std::to_string(n) + ".npy";
  taken.push_back(file);
  return dir + "/" + file;
}

int run(int argc, char **argv) {
  int threads = 0;
  std::string output_dir;
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg == "--threads" || arg == "--output-dir") {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      std::string value = argv[++i];
      if (arg == "--output-dir") {
        output_dir = value;
        continue;
      }
      size_t used = 0;
      try {
        threads = std::stoi(value, &used);
      } catch (const std::logic_error &) {
        used = 0;
      }
      if (used != value.size() || threads < 0)
        throw std::runtime_error("--threads " + value + ": not a count (0: one per core)");
    } else if (arg.rfind("--", 0) == 0) {
      throw std::runtime_error("unknown option " + arg +
                               " (usage: run_model_cpp [--threads N] [--output-dir DIR] "
                               "input0.npy [input1.npy ...])");
    } else {
      files.push_back(arg);
    }
  }

  minitvm::Model model(threads);
  std::vector<minitvm::TensorInfo> specs = model.inputs();
  if (files.size() != specs.size()) {
    std::string names;
    for (const auto &s : specs) names += (names.empty() ? "" : ", ") + s.name;
    throw std::runtime_error("the model has " + std::to_string(specs.size()) + " input" +
                             (specs.size() == 1 ? "" : "s") + " (" + names + "), got " +
                             std::to_string(files.size()) + " .npy file" +
                             (files.size() == 1 ? "" : "s"));
  }
  std::vector<NpyFile> arrays;  // own the data the Inputs point to (moves keep it in place)
  std::vector<minitvm::Input> inputs;
  for (const std::string &file : files) {
    const npy_array &a = arrays.emplace_back(file).array;
    inputs.push_back({a.data, a.dtype, std::vector<int64_t>(a.shape, a.shape + a.ndim)});
  }

  std::vector<minitvm::Output> outputs = model.run(inputs);
  for (size_t i = 0; i < outputs.size(); i++) {
    const minitvm::Output &o = outputs[i];
    std::cout << "output " << i << " " << o.name << ": " << npy_dtype_name(o.dtype)
              << shape_text(o.shape) << " = [";
    size_t count = o.data.size() / npy_itemsize(o.dtype);
    for (size_t k = 0; k < count && k < 8; k++) {
      char text[64];
      npy_format_element(text, sizeof text, o.data.data(), o.dtype, k);
      std::cout << (k ? ", " : "") << text;
    }
    std::cout << (count > 8 ? ", ...]" : "]") << "\n";
  }
  if (!output_dir.empty()) {
    if (mkdir(output_dir.c_str(), 0777) != 0 && errno != EEXIST)
      throw std::runtime_error("--output-dir " + output_dir + ": " + std::strerror(errno));
    std::vector<std::string> taken;
    for (const minitvm::Output &o : outputs) {
      std::string path = output_path(output_dir, o.name, taken);
      char message[NPY_ERROR_SIZE];
      if (npy_write(path.c_str(), o.data.data(), o.dtype, static_cast<int32_t>(o.shape.size()),
                    o.shape.data(), message, sizeof message))
        throw std::runtime_error(message);
      std::cout << "wrote " << path << "\n";
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception &e) {
    std::cerr << "run_model_cpp: " << e.what() << "\n";
    return 1;
  }
}
