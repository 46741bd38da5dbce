// Symbolic dimensions: a `?` whose size is an expression of named sizes, kept in the type's
// `#graph.dims` encoding (one expression per `?`, in order). Shape rules compute with them as
// with numbers: a strided conv gives `floordiv(h - 1, 2) + 1`, a concat `seq + 1`, a reduction
// drops them. The three runs print the same text: parse -> print, print -> parse -> print,
// and generic form in -> custom form out.
//
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s

// CHECK:      func.func @main(%x: tensor<?x3x?x?xf32, #graph.dims<"batch", "h", "w">>, %w: tensor<8x3x3x3xf32>, %t: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>, %one: tensor<?x1x8xf32, #graph.dims<"batch">>, %table: tensor<100x8xf32>, %ids: tensor<?x?xi64, #graph.dims<"batch", "seq">>)
// CHECK-NEXT:   %conv = graph.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x?x?xf32, #graph.dims<"batch", "h", "w">>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32, #graph.dims<"batch", "floordiv(h - 1, 2) + 1", "floordiv(w - 1, 2) + 1">>
// CHECK-NEXT:   %pool = graph.max_pool %conv {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<?x8x?x?xf32, #graph.dims<"batch", "floordiv(h - 1, 2) + 1", "floordiv(w - 1, 2) + 1">> -> tensor<?x8x?x?xf32, #graph.dims<"batch", "floordiv(floordiv(h - 1, 2), 2) + 1", "floordiv(floordiv(w - 1, 2), 2) + 1">>
// CHECK-NEXT:   %mean = graph.reduce_mean %pool {axes = array<i64: 2, 3>} : tensor<?x8x?x?xf32, #graph.dims<"batch", "floordiv(floordiv(h - 1, 2), 2) + 1", "floordiv(floordiv(w - 1, 2), 2) + 1">> -> tensor<?x8x1x1xf32, #graph.dims<"batch">>
// CHECK-NEXT:   %cat = graph.concat %one, %t {axis = 1 : i64} : (tensor<?x1x8xf32, #graph.dims<"batch">>, tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">>
// CHECK-NEXT:   %probs = graph.softmax %cat {axis = 2 : i64} : tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">> -> tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">>
// CHECK-NEXT:   %emb = graph.gather %table, %ids {axis = 0 : i64} : (tensor<100x8xf32>, tensor<?x?xi64, #graph.dims<"batch", "seq">>) -> tensor<?x?x8xf32, #graph.dims<"batch", "seq">>
// CHECK-NEXT:   %flat = graph.reshape %emb : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> to tensor<?x8xf32, #graph.dims<"batch*seq">>
// CHECK-NEXT:   %heads = graph.reshape %emb : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> to tensor<?x?x2x4xf32, #graph.dims<"batch", "seq">>
// CHECK-NEXT:   func.return %mean, %probs, %flat, %heads : tensor<?x8x1x1xf32, #graph.dims<"batch">>, tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">>, tensor<?x8xf32, #graph.dims<"batch*seq">>, tensor<?x?x2x4xf32, #graph.dims<"batch", "seq">>
func.func @main(%x: tensor<?x3x?x?xf32, #graph.dims<"batch", "h", "w">>, %w: tensor<8x3x3x3xf32>, %t: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>, %one: tensor<?x1x8xf32, #graph.dims<"batch">>, %table: tensor<100x8xf32>, %ids: tensor<?x?xi64, #graph.dims<"batch", "seq">>) -> (tensor<?x8x1x1xf32, #graph.dims<"batch">>, tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">>, tensor<?x8xf32, #graph.dims<"batch*seq">>, tensor<?x?x2x4xf32, #graph.dims<"batch", "seq">>) {
  %conv = graph.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<?x3x?x?xf32, #graph.dims<"batch", "h", "w">>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32, #graph.dims<"batch", "floordiv(h - 1, 2) + 1", "floordiv(w - 1, 2) + 1">>
  %pool = graph.max_pool %conv {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<?x8x?x?xf32, #graph.dims<"batch", "floordiv(h - 1, 2) + 1", "floordiv(w - 1, 2) + 1">> -> tensor<?x8x?x?xf32, #graph.dims<"batch", "floordiv(floordiv(h - 1, 2), 2) + 1", "floordiv(floordiv(w - 1, 2), 2) + 1">>
  %mean = graph.reduce_mean %pool {axes = array<i64: 2, 3>} : tensor<?x8x?x?xf32, #graph.dims<"batch", "floordiv(floordiv(h - 1, 2), 2) + 1", "floordiv(floordiv(w - 1, 2), 2) + 1">> -> tensor<?x8x1x1xf32, #graph.dims<"batch">>
  %cat = graph.concat %one, %t {axis = 1 : i64} : (tensor<?x1x8xf32, #graph.dims<"batch">>, tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">>
  %probs = graph.softmax %cat {axis = 2 : i64} : tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">> -> tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">>
  %emb = graph.gather %table, %ids {axis = 0 : i64} : (tensor<100x8xf32>, tensor<?x?xi64, #graph.dims<"batch", "seq">>) -> tensor<?x?x8xf32, #graph.dims<"batch", "seq">>
  %flat = graph.reshape %emb : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> to tensor<?x8xf32, #graph.dims<"batch*seq">>
  %heads = graph.reshape %emb : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> to tensor<?x?x2x4xf32, #graph.dims<"batch", "seq">>
  func.return %mean, %probs, %flat, %heads : tensor<?x8x1x1xf32, #graph.dims<"batch">>, tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">>, tensor<?x8xf32, #graph.dims<"batch*seq">>, tensor<?x?x2x4xf32, #graph.dims<"batch", "seq">>
}

// Ops that exist for symbolic sizes: a slice to a run-time length (`#graph.sizes` bounds), the
// positions of a run-time count (graph.range), sizes read as data (graph.sizes).
// CHECK-LABEL: func.func @run_time_lengths(%pos: tensor<1x64xi64>, %ids: tensor<?x?xi64, #graph.dims<"batch", "seq">>)
// CHECK-NEXT:    %head = graph.slice %pos {starts = array<i64: 0, 0>, ends = #graph.sizes<1, "seq">, steps = array<i64: 1, 1>} : tensor<1x64xi64> -> tensor<1x?xi64, #graph.dims<"seq">>
// CHECK-NEXT:    %positions = graph.range {start = 0 : i64, delta = 1 : i64} : tensor<?xi64, #graph.dims<"seq">>
// CHECK-NEXT:    %count = graph.sizes {values = #graph.sizes<"batch*seq", 7>} : tensor<2xi64>
// CHECK-NEXT:    func.return %head, %positions, %count
func.func @run_time_lengths(%pos: tensor<1x64xi64>, %ids: tensor<?x?xi64, #graph.dims<"batch", "seq">>) -> (tensor<1x?xi64, #graph.dims<"seq">>, tensor<?xi64, #graph.dims<"seq">>, tensor<2xi64>) {
  %head = graph.slice %pos {starts = array<i64: 0, 0>, ends = #graph.sizes<1, "seq">, steps = array<i64: 1, 1>} : tensor<1x64xi64> -> tensor<1x?xi64, #graph.dims<"seq">>
  %positions = graph.range {start = 0 : i64, delta = 1 : i64} : tensor<?xi64, #graph.dims<"seq">>
  %count = graph.sizes {values = #graph.sizes<"batch*seq", 7>} : tensor<2xi64>
  func.return %head, %positions, %count : tensor<1x?xi64, #graph.dims<"seq">>, tensor<?xi64, #graph.dims<"seq">>, tensor<2xi64>
}
