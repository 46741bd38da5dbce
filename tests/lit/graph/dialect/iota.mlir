// graph.iota: the positions 0..n-1 of a count computed as the model runs (a Range's length,
// a Reshape's dimension read from a tensor), a vector whose size is a symbol of its own,
// planned for its capacity `<size>_cap`; graph.check stops the run with its message unless
// its operand holds. The iotas of the dims of one shape (a Reshape's to a shape read from a
// tensor) share a `group` (the run time raises their capacities together), kept as a
// property; graph.reshape_to_sizes gives the input's elements (row-major) the shape of its
// size vectors' sizes, one dim per vector, its result's dims those vectors' symbols.
// A count the shapes bound (a TopK's k is at most the row's length) carries that bound as
// `most`, a size expression (a number, or in terms of other sizes), another property.
// Round-trips in both forms.
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s
// The group and the bound are properties (the generic form's `<{...}>`), absent from an
// iota without them:
// RUN: minitvm-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// GENERIC:      %i = "graph.iota"(%n) : (tensor<i64>) -> tensor<?xi64, #graph.dims<"len">>
// GENERIC:      %i0 = "graph.iota"(%n0) <{group = "y_dims"}> : (tensor<i64>) -> tensor<?xi64, #graph.dims<"y_len0">>
// GENERIC:      %y = "graph.reshape_to_sizes"(%x, %i0, %i1, %i2) : (tensor<24xf32>, tensor<?xi64, #graph.dims<"y_len0">>, tensor<?xi64, #graph.dims<"y_len1">>, tensor<?xi64, #graph.dims<"y_len2">>) -> tensor<?x?x?xf32, #graph.dims<"y_len0", "y_len1", "y_len2">>
// GENERIC:      %k = "graph.iota"(%kk) <{most = "50257"}> : (tensor<i64>) -> tensor<?xi64, #graph.dims<"v_count">>
// GENERIC:      %k0 = "graph.iota"(%kk0) <{most = "n"}> : (tensor<i64>) -> tensor<?xi64, #graph.dims<"k_count">>

// CHECK-LABEL: func.func @range(%n: tensor<i64>) -> tensor<?xf32, #graph.dims<"len">> {
// CHECK-NEXT:    %zero = graph.constant dense<0> : tensor<i64>
// CHECK-NEXT:    %ok = graph.greater_equal %n, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NEXT:    graph.check %ok {check = "r_check", message = "node 'r' (Range): the limit is negative"} : tensor<i1>
// CHECK-NEXT:    %i = graph.iota %n : tensor<i64> -> tensor<?xi64, #graph.dims<"len">>
// CHECK-NEXT:    %f = graph.cast %i : tensor<?xi64, #graph.dims<"len">> to tensor<?xf32, #graph.dims<"len">>
func.func @range(%n: tensor<i64>) -> tensor<?xf32, #graph.dims<"len">> {
  %zero = graph.constant dense<0> : tensor<i64>
  %ok = graph.greater_equal %n, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
  graph.check %ok {check = "r_check", message = "node 'r' (Range): the limit is negative"} : tensor<i1>
  %i = graph.iota %n : tensor<i64> -> tensor<?xi64, #graph.dims<"len">>
  %f = graph.cast %i : tensor<?xi64, #graph.dims<"len">> to tensor<?xf32, #graph.dims<"len">>
  func.return %f : tensor<?xf32, #graph.dims<"len">>
}

// CHECK-LABEL: func.func @reshape(%x: tensor<24xf32>, %n0: tensor<i64>, %n1: tensor<i64>, %n2: tensor<i64>) -> tensor<?x?x?xf32, #graph.dims<"y_len0", "y_len1", "y_len2">> {
// CHECK-NEXT:    %i0 = graph.iota %n0 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len0">>
// CHECK-NEXT:    %i1 = graph.iota %n1 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len1">>
// CHECK-NEXT:    %i2 = graph.iota %n2 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len2">>
// CHECK-NEXT:    %y = graph.reshape_to_sizes %x to %i0, %i1, %i2 : tensor<24xf32>, tensor<?xi64, #graph.dims<"y_len0">>, tensor<?xi64, #graph.dims<"y_len1">>, tensor<?xi64, #graph.dims<"y_len2">> -> tensor<?x?x?xf32, #graph.dims<"y_len0", "y_len1", "y_len2">>
// CHECK-NEXT:    func.return %y : tensor<?x?x?xf32, #graph.dims<"y_len0", "y_len1", "y_len2">>
func.func @reshape(%x: tensor<24xf32>, %n0: tensor<i64>, %n1: tensor<i64>, %n2: tensor<i64>) -> tensor<?x?x?xf32, #graph.dims<"y_len0", "y_len1", "y_len2">> {
  %i0 = graph.iota %n0 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len0">>
  %i1 = graph.iota %n1 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len1">>
  %i2 = graph.iota %n2 {group = "y_dims"} : tensor<i64> -> tensor<?xi64, #graph.dims<"y_len2">>
  %y = graph.reshape_to_sizes %x to %i0, %i1, %i2 : tensor<24xf32>, tensor<?xi64, #graph.dims<"y_len0">>, tensor<?xi64, #graph.dims<"y_len1">>, tensor<?xi64, #graph.dims<"y_len2">> -> tensor<?x?x?xf32, #graph.dims<"y_len0", "y_len1", "y_len2">>
  func.return %y : tensor<?x?x?xf32, #graph.dims<"y_len0", "y_len1", "y_len2">>
}

// A bound that is a number (a vocabulary's length) ...
// CHECK-LABEL: func.func @top_k_count(%kk: tensor<i64>) -> tensor<?xi64, #graph.dims<"v_count">> {
// CHECK-NEXT:    %k = graph.iota %kk {most = "50257"} : tensor<i64> -> tensor<?xi64, #graph.dims<"v_count">>
// CHECK-NEXT:    func.return %k : tensor<?xi64, #graph.dims<"v_count">>
func.func @top_k_count(%kk: tensor<i64>) -> tensor<?xi64, #graph.dims<"v_count">> {
  %k = graph.iota %kk {most = "50257"} : tensor<i64> -> tensor<?xi64, #graph.dims<"v_count">>
  func.return %k : tensor<?xi64, #graph.dims<"v_count">>
}

// ... or a size of the model's (here the row's length `n`, a symbol of the function's).
// CHECK-LABEL: func.func @symbolic_most(%x: tensor<?xf32, #graph.dims<"n">>, %kk0: tensor<i64>) -> tensor<?xi64, #graph.dims<"k_count">> {
// CHECK-NEXT:    %k0 = graph.iota %kk0 {most = "n"} : tensor<i64> -> tensor<?xi64, #graph.dims<"k_count">>
// CHECK-NEXT:    func.return %k0 : tensor<?xi64, #graph.dims<"k_count">>
func.func @symbolic_most(%x: tensor<?xf32, #graph.dims<"n">>, %kk0: tensor<i64>) -> tensor<?xi64, #graph.dims<"k_count">> {
  %k0 = graph.iota %kk0 {most = "n"} : tensor<i64> -> tensor<?xi64, #graph.dims<"k_count">>
  func.return %k0 : tensor<?xi64, #graph.dims<"k_count">>
}
