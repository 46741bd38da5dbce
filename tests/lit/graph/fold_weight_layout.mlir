// graph-fold-weight-layout: transposed constant gemm operands are transposed at compile time.
// RUN: minitvm-opt %s -p graph-fold-weight-layout,graph-dce | filecheck %s

// CHECK-LABEL: func.func @fc(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x3xf32>, %[[B:\w+]]: tensor<4xf32>)
// CHECK-NEXT:    %[[WT:\w+]] = graph.constant dense<{{\[}}[1.000000e+00, 4.000000e+00, 7.000000e+00, 1.000000e+01], [2.000000e+00, 5.000000e+00, 8.000000e+00, 1.100000e+01], [3.000000e+00, 6.000000e+00, 9.000000e+00, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.gemm %[[X]], %[[WT]], %[[B]] {alpha = 2.000000e+00 : f32} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @fc(%x: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  %y = graph.gemm %x, %w, %b {trans_b = 1 : i64, alpha = 2.0 : f32} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// A run-time operand under trans_b stays as it is.
// CHECK-LABEL: func.func @dynamic(
// CHECK-NEXT:    graph.gemm %{{\w+}}, %{{\w+}} {trans_b = 1 : i64}
func.func @dynamic(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %y = graph.gemm %x, %w {trans_b = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
