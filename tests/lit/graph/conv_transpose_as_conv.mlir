// graph-conv-transpose-as-conv: a 2-D transposed conv (constant weight, one group, dilation
// 1) of kernel k = K*s becomes a conv with O*s*s channels, one per output phase (o, a, b), of
// K x K kernels (the taps a + m*s, flipped), full padding K - 1; a reshape, a transpose and a
// reshape spread its channels over the s x s output pixels; pads are sliced off, the bias is
// added after. Windows that do not overlap (k = s): a 1x1 conv, W'[(o, a, b), c] = W[c, o, a, b].
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

// Overlapping windows, padding. A 3x3/2 kernel gets a zero tap up to 4x4 = 2 x 2 taps per
// phase: a full conv (pads K - 1 = 1, and 3 more columns for rows of 8, whole register
// blocks, instead of 5), the pixel shuffle, the rows and columns of the 9x9 output sliced
// out. A 2x2/2 kernel with pads 1: its 1x1 conv of 4 phases, the pads sliced off.
// W3 = 0.5 everywhere: phase (a, b) holds taps a + 2m, b + 2m' (flipped), zero past 3.
// CHECK-LABEL: func.func @overlapping(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT:    %[[G3:\w+]] = graph.constant dense<{{\[\[\[\[}}5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01]], {{\[\[}}5.000000e-01, 5.000000e-01], [5.000000e-01, 5.000000e-01]]], {{\[\[\[}}0.000000e+00, 5.000000e-01], [0.000000e+00, 5.000000e-01]],
// CHECK-SAME:    : tensor<8x2x2x2xf32>
// CHECK-NEXT:    %[[G2:\w+]] = graph.constant #graph.splat<5.000000e-01 : f32> : tensor<8x2x1x1xf32>
// CHECK-NEXT:    %[[Z:\w+]] = graph.conv %[[X]], %[[G3]] {pads = array<i64: 1, 1, 1, 4>} : (tensor<1x2x4x4xf32>, tensor<8x2x2x2xf32>) -> tensor<1x8x5x8xf32>
// CHECK-NEXT:    %[[Z6:\w+]] = graph.reshape %[[Z]] : tensor<1x8x5x8xf32> to tensor<1x2x2x2x5x8xf32>
// CHECK-NEXT:    %[[T:\w+]] = graph.transpose %[[Z6]] {perm = array<i64: 0, 1, 4, 2, 5, 3>} : tensor<1x2x2x2x5x8xf32> -> tensor<1x2x5x2x8x2xf32>
// CHECK-NEXT:    %[[U:\w+]] = graph.reshape %[[T]] : tensor<1x2x5x2x8x2xf32> to tensor<1x2x10x16xf32>
// CHECK-NEXT:    %[[Y3:\w+]] = graph.slice %[[U]] {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 2, 9, 9>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x2x10x16xf32> -> tensor<1x2x9x9xf32>
// CHECK-NEXT:    %[[Z2:\w+]] = graph.conv %[[X]], %[[G2]] : (tensor<1x2x4x4xf32>, tensor<8x2x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    graph.reshape %[[Z2]]
// CHECK-NEXT:    graph.transpose
// CHECK-NEXT:    %[[U2:\w+]] = graph.reshape {{.*}} to tensor<1x2x8x8xf32>
// CHECK-NEXT:    %[[Y2:\w+]] = graph.slice %[[U2]] {starts = array<i64: 0, 0, 1, 1>, ends = array<i64: 1, 2, 7, 7>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x2x8x8xf32> -> tensor<1x2x6x6xf32>
// CHECK-NEXT:    func.return %[[Y3]], %[[Y2]]
func.func @overlapping(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x9x9xf32>, tensor<1x2x6x6xf32>) {
  %w3 = graph.constant dense<0.5> : tensor<2x2x3x3xf32>
  %w2 = graph.constant dense<0.5> : tensor<2x2x2x2xf32>
  %0 = graph.conv_transpose %x, %w3 {strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x9x9xf32>
  %1 = graph.conv_transpose %x, %w2 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x6x6xf32>
  func.return %0, %1 : tensor<1x2x9x9xf32>, tensor<1x2x6x6xf32>
}

// -----

// An output padding past the end pad: zeros appended (graph.pad) before the bias.
// CHECK-LABEL: func.func @output_padding(
// CHECK:         %[[U:\w+]] = graph.reshape {{.*}} to tensor<1x2x8x8xf32>
// CHECK-NEXT:    %[[P:\w+]] = graph.pad %[[U]] {pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>} : tensor<1x2x8x8xf32> -> tensor<1x2x9x9xf32>
// CHECK-NEXT:    %[[B3:\w+]] = graph.reshape %{{\w+}} : tensor<2xf32> to tensor<2x1x1xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.add %[[P]], %[[B3]] : (tensor<1x2x9x9xf32>, tensor<2x1x1xf32>) -> tensor<1x2x9x9xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @output_padding(%x: tensor<1x2x4x4xf32>, %b: tensor<2xf32>) -> tensor<1x2x9x9xf32> {
  %w = graph.constant dense<0.5> : tensor<2x2x2x2xf32>
  %y = graph.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, output_padding = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x9x9xf32>
  func.return %y : tensor<1x2x9x9xf32>
}

// -----

// Left alone: a run-time weight, groups, dilation.
// CHECK-LABEL: func.func @stays(
// CHECK-NEXT:    %{{\w+}} = graph.constant
// CHECK-NEXT:    graph.conv_transpose
// CHECK-NEXT:    graph.conv_transpose
// CHECK-NEXT:    graph.conv_transpose
// CHECK-NEXT:    func.return
func.func @stays(%x: tensor<1x2x4x4xf32>, %v: tensor<2x2x2x2xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x10x10xf32>) {
  %w = graph.constant dense<0.5> : tensor<2x1x2x2xf32>
  %0 = graph.conv_transpose %x, %v {strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x8x8xf32>
  %1 = graph.conv_transpose %x, %w {strides = array<i64: 2, 2>, group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x8x8xf32>
  %2 = graph.conv_transpose %x, %v {strides = array<i64: 2, 2>, dilations = array<i64: 3, 3>} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x10x10xf32>
  func.return %0, %1, %2 : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x10x10xf32>
}
