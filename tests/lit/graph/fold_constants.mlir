// RUN: minitvm-opt %s -p graph-fold-constants | filecheck %s
// RUN: minitvm-opt %s -p graph-fold-constants,graph-dce | filecheck %s --check-prefix=DCE
// RUN: minitvm-opt %s -p 'graph-fold-constants{max-elements=16}' | filecheck %s --check-prefix=LIMIT

// Each op on constants becomes a constant; the constants it read stay for graph-dce.
// CHECK-LABEL: func.func @fold_chain
// CHECK-NEXT:    %{{.*}} = graph.constant dense<[1.000000e+00, -2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.constant dense<[-1.000000e+00, 2.000000e+00, -3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<[0.000000e+00, 2.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<3xf32>
// DCE-LABEL:   func.func @fold_chain
// DCE-NEXT:      %[[C:.*]] = graph.constant dense<[0.000000e+00, 2.000000e+00, 0.000000e+00]> : tensor<3xf32>
// DCE-NEXT:      func.return %[[C]] : tensor<3xf32>
func.func @fold_chain() -> tensor<3xf32> {
  %a = graph.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %b = graph.neg %a : tensor<3xf32>
  %c = graph.relu %b : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// CHECK-LABEL: func.func @fold_broadcast_binary
// CHECK:         %[[R:.*]] = graph.constant dense<{{\[}}[1.100000e+01, 2.100000e+01, 3.100000e+01], [1.200000e+01, 2.200000e+01, 3.200000e+01]]> : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @fold_broadcast_binary() -> tensor<2x3xf32> {
  %a = graph.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %b = graph.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = graph.add %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// Integer division truncates toward zero (ONNX), unlike numpy's floor division.
// CHECK-LABEL: func.func @fold_integer_div_truncates
// CHECK:         %[[R:.*]] = graph.constant dense<[-3, -3, 3, 3]> : tensor<4xi64>
// CHECK-NEXT:    func.return %[[R]]
func.func @fold_integer_div_truncates() -> tensor<4xi64> {
  %a = graph.constant dense<[-7, 7, -7, 7]> : tensor<4xi64>
  %b = graph.constant dense<[2, -2, -2, 2]> : tensor<4xi64>
  %0 = graph.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  func.return %0 : tensor<4xi64>
}

// CHECK-LABEL: func.func @fold_multi_result
// CHECK:         %[[A:.*]] = graph.constant dense<{{\[}}[1, 2]]> : tensor<1x2xi64>
// CHECK-NEXT:    %[[B:.*]] = graph.constant dense<{{\[}}[3, 4], [5, 6]]> : tensor<2x2xi64>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @fold_multi_result() -> (tensor<1x2xi64>, tensor<2x2xi64>) {
  %a = graph.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %0, %1 = graph.split %a {axis = 0 : i64, sizes = array<i64: 1, 2>} : tensor<3x2xi64> -> tensor<1x2xi64>, tensor<2x2xi64>
  func.return %0, %1 : tensor<1x2xi64>, tensor<2x2xi64>
}

// CHECK-LABEL: func.func @fold_compare_to_bool
// CHECK:         %[[R:.*]] = graph.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-NEXT:    func.return %[[R]]
func.func @fold_compare_to_bool() -> tensor<3xi1> {
  %a = graph.constant dense<[1.0, 5.0, 3.0]> : tensor<3xf32>
  %b = graph.constant dense<3.0> : tensor<3xf32>
  %0 = graph.less %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  func.return %0 : tensor<3xi1>
}

// Negative: an op with a non-constant operand stays; its constant operand is folded.
// CHECK-LABEL: func.func @partial
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>)
// CHECK:         %[[B:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.add %[[X]], %[[B]]
// CHECK-NEXT:    func.return %[[R]]
func.func @partial(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = graph.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %b = graph.abs %a : tensor<3xf32>
  %0 = graph.add %x, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// A folded blob is named after the weight it came from; max-elements does not hold it
// back, since the result is no bigger than its input.
// CHECK-LABEL: func.func @transpose_weight
// CHECK:         %[[T:.*]] = graph.constant #graph.weights<fc_w_transpose_{{[0-9a-f]+}}> : tensor<33x2xf32>
// CHECK-NEXT:    func.return %[[T]]
// DCE-LABEL:   func.func @transpose_weight
// DCE-NEXT:      %[[T:.*]] = graph.constant #graph.weights<fc_w_transpose_{{[0-9a-f]+}}> : tensor<33x2xf32>
// DCE-NEXT:      func.return %[[T]]
// LIMIT-LABEL: func.func @transpose_weight
// LIMIT:         %[[T:.*]] = graph.constant #graph.weights<fc_w_transpose_{{[0-9a-f]+}}> : tensor<33x2xf32>
// LIMIT-NEXT:    func.return %[[T]]
func.func @transpose_weight() -> tensor<33x2xf32> {
  %w = graph.constant #graph.weights<fc_w_524588d40079> : tensor<2x33xf32>
  %0 = graph.transpose %w {perm = array<i64: 1, 0>} : tensor<2x33xf32> -> tensor<33x2xf32>
  func.return %0 : tensor<33x2xf32>
}

// Negative with max-elements=16: expanding 1 element to 32 would grow the model.
// CHECK-LABEL: func.func @expand_splat
// CHECK:         %[[R:.*]] = graph.constant #graph.splat<2.500000e+00 : f32> : tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[R]]
// LIMIT-LABEL: func.func @expand_splat
// LIMIT-NEXT:    %[[A:.*]] = graph.constant dense<2.500000e+00> : tensor<1xf32>
// LIMIT-NEXT:    %[[R:.*]] = graph.expand %[[A]] : tensor<1xf32> to tensor<4x8xf32>
// LIMIT-NEXT:    func.return %[[R]]
func.func @expand_splat() -> tensor<4x8xf32> {
  %a = graph.constant dense<2.5> : tensor<1xf32>
  %0 = graph.expand %a : tensor<1xf32> to tensor<4x8xf32>
  func.return %0 : tensor<4x8xf32>
}

// Negative: the reference rejects an index out of range (EvaluationError): left as is, to
// run time.
// CHECK-LABEL: func.func @out_of_range_gather
// CHECK-NEXT:    %[[A:.*]] = graph.constant
// CHECK-NEXT:    %[[I:.*]] = graph.constant
// CHECK-NEXT:    %[[R:.*]] = graph.gather %[[A]], %[[I]]
// CHECK-NEXT:    func.return %[[R]]
func.func @out_of_range_gather() -> tensor<1xf32> {
  %a = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %i = graph.constant dense<[5]> : tensor<1xi64>
  %0 = graph.gather %a, %i {axis = 0 : i64} : (tensor<2xf32>, tensor<1xi64>) -> tensor<1xf32>
  func.return %0 : tensor<1xf32>
}

// The new blob is written to the resource section; the dead input blob is not, once DCE'd.
// CHECK:       dialect_resources
// CHECK:       fc_w_transpose_{{[0-9a-f]+}}: "0x08000000
// DCE:         dialect_resources
// DCE-NOT:     fc_w_524588d40079
// DCE:         fc_w_transpose_{{[0-9a-f]+}}: "0x08000000
// DCE-NOT:     fc_w_524588d40079

// fc_w: 2x33 f32 holding 0.0, 0.5, ..., 32.5 (key = name + digest, as WeightStore makes it).
{-#
  dialect_resources: {
    graph: {
      fc_w_524588d40079: "0x08000000000000000000003f0000803f0000c03f0000004000002040000040400000604000008040000090400000a0400000b0400000c0400000d0400000e0400000f0400000004100000841000010410000184100002041000028410000304100003841000040410000484100005041000058410000604100006841000070410000784100008041000084410000884100008c4100009041000094410000984100009c410000a0410000a4410000a8410000ac410000b0410000b4410000b8410000bc410000c0410000c4410000c8410000cc410000d0410000d4410000d8410000dc410000e0410000e4410000e8410000ec410000f0410000f4410000f8410000fc410000004200000242"
    }
  }
#-}
