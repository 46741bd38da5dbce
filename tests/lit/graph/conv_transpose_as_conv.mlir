// graph-conv-transpose-as-conv: a 2-D transposed conv whose windows do not overlap (kernel =
// stride, no padding) becomes a 1x1 conv with O*s*s channels, W'[(o, a, b), c] = W[c, o, a, b],
// whose channels a reshape, a transpose and a reshape spread over the s x s output pixels;
// the bias is added after. Overlapping windows and padding are left as they are.
// RUN: minitvm-opt %s --split-input-file -p graph-conv-transpose-as-conv,graph-dce | filecheck %s

// W[c, o, a, b] = 8c + 4o + 2a + b (2 in, 2 out channels, 2x2): W'[4o + 2a + b, c] = that.
// CHECK-LABEL: func.func @upsample(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x3x5xf32>, %[[B:\w+]]: tensor<2xf32>)
// CHECK-NEXT:    %[[W:\w+]] = graph.constant dense<{{\[\[\[\[}}0.000000e+00]], {{\[\[}}8.000000e+00]]], {{\[\[\[}}1.000000e+00]], {{\[\[}}9.000000e+00]]], {{\[\[\[}}2.000000e+00]], {{\[\[}}1.000000e+01]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}1.100000e+01]]], {{\[\[\[}}4.000000e+00]], {{\[\[}}1.200000e+01]]], {{\[\[\[}}5.000000e+00]], {{\[\[}}1.300000e+01]]], {{\[\[\[}}6.000000e+00]], {{\[\[}}1.400000e+01]]], {{\[\[\[}}7.000000e+00]], {{\[\[}}1.500000e+01]]]]> : tensor<8x2x1x1xf32>
// CHECK-NEXT:    %[[Z:\w+]] = graph.conv %[[X]], %[[W]] : (tensor<1x2x3x5xf32>, tensor<8x2x1x1xf32>) -> tensor<1x8x3x5xf32>
// CHECK-NEXT:    %[[Z6:\w+]] = graph.reshape %[[Z]] : tensor<1x8x3x5xf32> to tensor<1x2x2x2x3x5xf32>
// CHECK-NEXT:    %[[T:\w+]] = graph.transpose %[[Z6]] {perm = array<i64: 0, 1, 4, 2, 5, 3>} : tensor<1x2x2x2x3x5xf32> -> tensor<1x2x3x2x5x2xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.reshape %[[T]] : tensor<1x2x3x2x5x2xf32> to tensor<1x2x6x10xf32>
// CHECK-NEXT:    %[[B3:\w+]] = graph.reshape %[[B]] : tensor<2xf32> to tensor<2x1x1xf32>
// CHECK-NEXT:    %[[S:\w+]] = graph.add %[[Y]], %[[B3]] : (tensor<1x2x6x10xf32>, tensor<2x1x1xf32>) -> tensor<1x2x6x10xf32>
// CHECK-NEXT:    func.return %[[S]]
func.func @upsample(%x: tensor<1x2x3x5xf32>, %b: tensor<2xf32>) -> tensor<1x2x6x10xf32> {
  %w = graph.constant dense<[[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]], [[[8.0, 9.0], [10.0, 11.0]], [[12.0, 13.0], [14.0, 15.0]]]]> : tensor<2x2x2x2xf32>
  %y = graph.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x2x3x5xf32>, tensor<2x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x6x10xf32>
  func.return %y : tensor<1x2x6x10xf32>
}

// -----

// Left alone: overlapping windows (3x3, stride 2), padding, a run-time weight.
// CHECK-LABEL: func.func @stays(
// CHECK-NEXT:    %{{\w+}} = graph.constant
// CHECK-NEXT:    %{{\w+}} = graph.constant
// CHECK-NEXT:    graph.conv_transpose
// CHECK-NEXT:    graph.conv_transpose
// CHECK-NEXT:    graph.conv_transpose
// CHECK-NEXT:    func.return
func.func @stays(%x: tensor<1x2x4x4xf32>, %v: tensor<2x2x2x2xf32>) -> (tensor<1x2x9x9xf32>, tensor<1x2x6x6xf32>, tensor<1x2x8x8xf32>) {
  %w3 = graph.constant dense<0.5> : tensor<2x2x3x3xf32>
  %w2 = graph.constant dense<0.5> : tensor<2x2x2x2xf32>
  %0 = graph.conv_transpose %x, %w3 {strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x9x9xf32>
  %1 = graph.conv_transpose %x, %w2 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x6x6xf32>
  %2 = graph.conv_transpose %x, %v {strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x8x8xf32>
  func.return %0, %1, %2 : tensor<1x2x9x9xf32>, tensor<1x2x6x6xf32>, tensor<1x2x8x8xf32>
}
