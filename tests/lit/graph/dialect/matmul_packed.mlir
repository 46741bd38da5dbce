// graph.matmul_packed (graph.matmul with its rhs packed in [N/nb, K, nb] column panels, see
// graph-pack-weights): the custom form prints back exactly, the generic form parses to the
// same op, and each verifier error is pinned to its exact message.
//
// The first chunk is valid: the op in the custom form and in the generic form (both print in
// the custom form), and printed generically by the second run. Every later chunk fails to
// verify; with --verify-diagnostics, xDSL 0.75 prints the message, the chunk in generic form
// with the failing op underlined, and "| Operation does not verify: <message>".
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics --print-op-generic | filecheck %s --check-prefix=GENERIC

// lhs [..., M, K] and rhs [N/nb, K, nb] give [..., M, N]: a batch of matrices, and a panel
// width other than 16 (the op takes any; the pass makes 16).
// CHECK-LABEL: func.func @matmul_packed(
// CHECK-SAME:      %[[X:\w+]]: tensor<8x32xf32>, %[[W:\w+]]: tensor<2x32x16xf32>, %[[XB:\w+]]: tensor<2x3x32xf32>, %[[W8:\w+]]: tensor<3x32x8xf32>) {
// CHECK-NEXT:    %{{\w+}} = graph.matmul_packed %[[X]], %[[W]] : (tensor<8x32xf32>, tensor<2x32x16xf32>) -> tensor<8x32xf32>
// CHECK-NEXT:    %{{\w+}} = graph.matmul_packed %[[XB]], %[[W]] : (tensor<2x3x32xf32>, tensor<2x32x16xf32>) -> tensor<2x3x32xf32>
// CHECK-NEXT:    %{{\w+}} = graph.matmul_packed %[[X]], %[[W8]] : (tensor<8x32xf32>, tensor<3x32x8xf32>) -> tensor<8x24xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "matmul_packed"
// GENERIC-NEXT:  ^bb0(%[[X:\w+]]: tensor<8x32xf32>, %[[W:\w+]]: tensor<2x32x16xf32>, %[[XB:\w+]]: tensor<2x3x32xf32>, %[[W8:\w+]]: tensor<3x32x8xf32>):
// GENERIC-NEXT:    %{{\w+}} = "graph.matmul_packed"(%[[X]], %[[W]]) : (tensor<8x32xf32>, tensor<2x32x16xf32>) -> tensor<8x32xf32>
// GENERIC-NEXT:    %{{\w+}} = "graph.matmul_packed"(%[[XB]], %[[W]]) : (tensor<2x3x32xf32>, tensor<2x32x16xf32>) -> tensor<2x3x32xf32>
// GENERIC-NEXT:    %{{\w+}} = "graph.matmul_packed"(%[[X]], %[[W8]]) : (tensor<8x32xf32>, tensor<3x32x8xf32>) -> tensor<8x24xf32>
func.func @matmul_packed(%x: tensor<8x32xf32>, %w: tensor<2x32x16xf32>, %xb: tensor<2x3x32xf32>, %w8: tensor<3x32x8xf32>) {
  %0 = graph.matmul_packed %x, %w : (tensor<8x32xf32>, tensor<2x32x16xf32>) -> tensor<8x32xf32>
  %1 = "graph.matmul_packed"(%xb, %w) : (tensor<2x3x32xf32>, tensor<2x32x16xf32>) -> tensor<2x3x32xf32>
  %2 = graph.matmul_packed %x, %w8 : (tensor<8x32xf32>, tensor<3x32x8xf32>) -> tensor<8x24xf32>
  func.return
}

// -----

// The lhs must be a matrix (or a batch of them).
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.matmul_packed: lhs must have rank >= 2 and rhs rank >= 3 ([..., N/nb, K, nb]), got 32 and 2x32x16{{$}}
// CHECK:      = "graph.matmul_packed"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.matmul_packed: lhs must have rank >= 2 and rhs rank >= 3 ([..., N/nb, K, nb]), got 32 and 2x32x16{{$}}
func.func @matmul_packed_lhs_rank(%x: tensor<32xf32>, %w: tensor<2x32x16xf32>) {
  %0 = graph.matmul_packed %x, %w : (tensor<32xf32>, tensor<2x32x16xf32>) -> tensor<32xf32>
  func.return
}

// -----

// The rhs must be packed: an unpacked [K, N] matrix is graph.matmul's.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.matmul_packed: lhs must have rank >= 2 and rhs rank >= 3 ([..., N/nb, K, nb]), got 8x32 and 32x32{{$}}
// CHECK:      = "graph.matmul_packed"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.matmul_packed: lhs must have rank >= 2 and rhs rank >= 3 ([..., N/nb, K, nb]), got 8x32 and 32x32{{$}}
func.func @matmul_packed_rhs_rank(%x: tensor<8x32xf32>, %w: tensor<32x32xf32>) {
  %0 = graph.matmul_packed %x, %w : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
  func.return
}

// -----

// The lhs's columns are the packed rhs's dim 1 (K), not its dim 0.
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.matmul_packed: lhs 8x32 has 32 columns but the packed rhs 2x64x16 has 64 rows{{$}}
// CHECK:      = "graph.matmul_packed"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.matmul_packed: lhs 8x32 has 32 columns but the packed rhs 2x64x16 has 64 rows{{$}}
func.func @matmul_packed_inner(%x: tensor<8x32xf32>, %w: tensor<2x64x16xf32>) {
  %0 = graph.matmul_packed %x, %w : (tensor<8x32xf32>, tensor<2x64x16xf32>) -> tensor<8x32xf32>
  func.return
}

// -----

// The declared result must be the inferred [..., M, N/nb x nb].
// CHECK:      {{^}}// {{-----}}
// CHECK-NEXT: {{^}}graph.matmul_packed: result should be tensor<8x32xf32> but is declared tensor<8x16xf32>{{$}}
// CHECK:      = "graph.matmul_packed"(
// CHECK-NEXT: {{\^+-*$}}
// CHECK-NEXT: | Operation does not verify: graph.matmul_packed: result should be tensor<8x32xf32> but is declared tensor<8x16xf32>{{$}}
func.func @matmul_packed_declared_result(%x: tensor<8x32xf32>, %w: tensor<2x32x16xf32>) {
  %0 = graph.matmul_packed %x, %w : (tensor<8x32xf32>, tensor<2x32x16xf32>) -> tensor<8x16xf32>
  func.return
}
