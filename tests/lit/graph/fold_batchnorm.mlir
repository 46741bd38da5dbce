// graph-fold-batchnorm: batch norms (and per-channel mul / add) fold into the weights of the
// conv, gemm or matmul feeding them; a batch norm left over becomes mul + add; a batch norm
// with a non-constant parameter stays. graph-dce then sweeps the replaced constants.
// RUN: minitvm-opt %s -p graph-fold-batchnorm,graph-dce | filecheck %s

// BN(conv(x, w)): f = scale / sqrt(var + eps) = [1, 2], shift = bias - mean * f = [0.5, -5];
// output channel c of the weight is scaled by f[c] and the shift becomes the conv's bias.
// CHECK-LABEL: func.func @conv_bn(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT:    %[[W:\w+]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}6.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:\w+]] = graph.constant dense<[5.000000e-01, -5.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.conv %[[X]], %[[W]], %[[B]] : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv_bn(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %g = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = graph.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %v = graph.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %0 = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.batch_norm %0, %g, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %1 : tensor<1x2x4x4xf32>
}

// A conv bias b goes through the map too: b * f + shift = [2, -1].
// CHECK-LABEL: func.func @conv_bias_bn(
// CHECK-NEXT:    %[[W:\w+]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}6.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:\w+]] = graph.constant dense<[2.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.conv %{{\w+}}, %[[W]], %[[B]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv_bias_bn(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %c = graph.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %g = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = graph.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %v = graph.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %0 = graph.conv %x, %w, %c : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.batch_norm %0, %g, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %1 : tensor<1x2x4x4xf32>
}

// Gemm with a transposed weight: rows of the weight are output channels; beta * C goes into
// the new bias (2 * 1 * f + shift = [2.5, -1]) and beta returns to its default.
// CHECK-LABEL: func.func @gemm_bn(
// CHECK-NEXT:    %[[W:\w+]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %[[C:\w+]] = graph.constant dense<[2.500000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.gemm %{{\w+}}, %[[W]], %[[C]] {trans_b = 1 : i64} :
// CHECK-NEXT:    func.return %[[Y]]
func.func @gemm_bn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = graph.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %g = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = graph.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %v = graph.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %0 = graph.gemm %x, %w, %c {trans_b = 1 : i64, beta = 2.0 : f32} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %1 = graph.batch_norm %0, %g, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %1 : tensor<3x2xf32>
}

// matmul by a constant matrix: its columns are scaled; having no bias, it takes an add.
// CHECK-LABEL: func.func @matmul_bn(
// CHECK-NEXT:    %[[W:\w+]] = graph.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [3.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %[[M:\w+]] = graph.matmul %{{\w+}}, %[[W]]
// CHECK-NEXT:    %[[S:\w+]] = graph.constant dense<[5.000000e-01, -5.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.add %[[M]], %[[S]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @matmul_bn(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %g = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = graph.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %v = graph.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %0 = graph.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %1 = graph.batch_norm %0, %g, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %1 : tensor<3x2xf32>
}

// A per-channel mul and add after a conv (DenseNet's Scale layers) fold the same way, with
// the constant on either side.
// CHECK-LABEL: func.func @conv_scale_shift(
// CHECK-NEXT:    %[[W:\w+]] = graph.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:\w+]] = graph.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.conv %{{\w+}}, %[[W]], %[[B]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv_scale_shift(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %s = graph.constant dense<[[[2.0]], [[0.5]]]> : tensor<2x1x1xf32>
  %t = graph.constant dense<[[[1.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %0 = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.mul %0, %s : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %2 = graph.add %t, %1 : (tensor<2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %2 : tensor<1x2x4x4xf32>
}

// Negative: a BN parameter that is not a constant stops folding (and the mul + add form).
// CHECK-LABEL: func.func @variable_mean(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x2x4x4xf32>, %[[M:\w+]]: tensor<2xf32>)
// CHECK:         %[[C:\w+]] = graph.conv %[[X]], %{{\w+}} :
// CHECK-NEXT:    %[[Y:\w+]] = graph.batch_norm %[[C]], %{{\w+}}, %{{\w+}}, %[[M]], %{{\w+}}
// CHECK-NEXT:    func.return %[[Y]]
func.func @variable_mean(%x: tensor<1x2x4x4xf32>, %m: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<1.0> : tensor<2x2x1x1xf32>
  %g = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %v = graph.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %0 = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.batch_norm %0, %g, %b, %m, %v : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %1 : tensor<1x2x4x4xf32>
}

// No producer to fold into: the BN becomes x * f + shift, per-channel constants (C, 1, 1).
// CHECK-LABEL: func.func @no_producer(
// CHECK-SAME:      %[[X:\w+]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT:    %[[F:\w+]] = graph.constant dense<{{\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-NEXT:    %[[S:\w+]] = graph.constant dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}-5.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK-NEXT:    %[[M:\w+]] = graph.mul %[[X]], %[[F]] : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.add %[[M]], %[[S]] : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @no_producer(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %g = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = graph.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %v = graph.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %1 = graph.batch_norm %x, %g, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %1 : tensor<1x2x4x4xf32>
}

// Negative for the conv: its result has another use, so its weights must stay; the BN
// becomes mul + add instead.
// CHECK-LABEL: func.func @shared_conv(
// CHECK-NEXT:    %[[W:\w+]] = graph.constant dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C:\w+]] = graph.conv %{{\w+}}, %[[W]] :
// CHECK-NEXT:    graph.constant
// CHECK-NEXT:    graph.constant
// CHECK-NEXT:    %[[M:\w+]] = graph.mul %[[C]], %{{\w+}}
// CHECK-NEXT:    %[[Y:\w+]] = graph.add %[[M]], %{{\w+}}
// CHECK-NEXT:    func.return %[[C]], %[[Y]]
func.func @shared_conv(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = graph.constant dense<1.0> : tensor<2x2x1x1xf32>
  %g = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = graph.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %v = graph.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %0 = graph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.batch_norm %0, %g, %b, %m, %v {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %0, %1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
