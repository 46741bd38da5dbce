// graph-pack-weights: a matmul or gemm with a constant [K, N] weight runs as graph.matmul_packed
// on the weight packed at compile time in [N/16, K, 16] column panels (panel p holds columns
// 16p..16p+15, row after row); a gemm's alpha is folded into the packed weight, its bias
// becomes a graph.add (beta folded into a constant bias); an N that no panel divides (from
// 4 rows on) gets a last panel padded with zero columns, and the product keeps its N columns
// (`columns = N`: nothing to slice off); a run-time weight of such an N is packed by graph
// ops. Rows are never padded.
// RUN: minitvm-opt %s -p graph-pack-weights,graph-dce | filecheck %s

// w[k, n] = 32k + n, so panel 0 holds columns 0..15 of both rows, panel 1 columns 16..31.
// CHECK-LABEL: func.func @fc(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x2xf32>)
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01], [3.200000e+01, 3.300000e+01, 3.400000e+01, 3.500000e+01, 3.600000e+01, 3.700000e+01, 3.800000e+01, 3.900000e+01, 4.000000e+01, 4.100000e+01, 4.200000e+01, 4.300000e+01, 4.400000e+01, 4.500000e+01, 4.600000e+01, 4.700000e+01]], {{\[\[}}1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01, 2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01, 2.400000e+01, 2.500000e+01, 2.600000e+01, 2.700000e+01, 2.800000e+01, 2.900000e+01, 3.000000e+01, 3.100000e+01], [4.800000e+01, 4.900000e+01, 5.000000e+01, 5.100000e+01, 5.200000e+01, 5.300000e+01, 5.400000e+01, 5.500000e+01, 5.600000e+01, 5.700000e+01, 5.800000e+01, 5.900000e+01, 6.000000e+01, 6.100000e+01, 6.200000e+01, 6.300000e+01]]]> : tensor<2x2x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.matmul_packed %[[X]], %[[WP]] : (tensor<3x2xf32>, tensor<2x2x16xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @fc(%x: tensor<3x2xf32>) -> tensor<3x32xf32> {
  %w = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], [32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]> : tensor<2x32xf32>
  %y = graph.matmul %x, %w : (tensor<3x2xf32>, tensor<2x32xf32>) -> tensor<3x32xf32>
  func.return %y : tensor<3x32xf32>
}

// A batch of matrices times one weight: the batch dims carry over to the result.
// CHECK-LABEL: func.func @batched(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x3x8xf32>)
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant #graph.splat<5.000000e-01 : f32> : tensor<3x8x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.matmul_packed %[[X]], %[[WP]] : (tensor<4x3x8xf32>, tensor<3x8x16xf32>) -> tensor<4x3x48xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @batched(%x: tensor<4x3x8xf32>) -> tensor<4x3x48xf32> {
  %w = graph.constant dense<0.5> : tensor<8x48xf32>
  %y = graph.matmul %x, %w : (tensor<4x3x8xf32>, tensor<8x48xf32>) -> tensor<4x3x48xf32>
  func.return %y : tensor<4x3x48xf32>
}

// Not packed: one panel (N = 16, already packed), N = 24 (not a multiple of 16) times one
// row (a matrix-vector product: the reduction template blocks its columns), a run-time
// weight, a vector lhs. A batch of constant weights is packed matrix by matrix, the lhs
// broadcast over the batch.
// CHECK-LABEL: func.func @stays(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x8xf32>, %[[V:\w+]]: tensor<8x32xf32>, %{{\w+}}: tensor<2x8x32xf32>, %[[U:\w+]]: tensor<8xf32>, %[[R:\w+]]: tensor<1x8xf32>)
// CHECK-NEXT:    %[[W16:\w+]] = graph.constant dense<5.000000e-01> : tensor<8x16xf32>
// CHECK-NEXT:    %[[W24:\w+]] = graph.constant dense<5.000000e-01> : tensor<8x24xf32>
// CHECK-NEXT:    %[[W3:\w+]] = graph.constant #graph.splat<5.000000e-01 : f32> : tensor<2x2x8x16xf32>
// CHECK-NEXT:    %[[W32:\w+]] = graph.constant dense<5.000000e-01> : tensor<8x32xf32>
// CHECK-NEXT:    graph.matmul %[[X]], %[[W16]] : (tensor<3x8xf32>, tensor<8x16xf32>) -> tensor<3x16xf32>
// CHECK-NEXT:    graph.matmul %[[R]], %[[W24]] : (tensor<1x8xf32>, tensor<8x24xf32>) -> tensor<1x24xf32>
// CHECK-NEXT:    graph.matmul %[[X]], %[[V]] : (tensor<3x8xf32>, tensor<8x32xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    graph.matmul_packed %[[X]], %[[W3]] : (tensor<3x8xf32>, tensor<2x2x8x16xf32>) -> tensor<2x3x32xf32>
// CHECK-NEXT:    graph.matmul %[[U]], %[[W32]] : (tensor<8xf32>, tensor<8x32xf32>) -> tensor<32xf32>
// CHECK-NEXT:    func.return
func.func @stays(%x: tensor<3x8xf32>, %v: tensor<8x32xf32>, %b: tensor<2x8x32xf32>, %u: tensor<8xf32>, %r: tensor<1x8xf32>) -> (tensor<3x16xf32>, tensor<1x24xf32>, tensor<3x32xf32>, tensor<2x3x32xf32>, tensor<32xf32>) {
  %w16 = graph.constant dense<0.5> : tensor<8x16xf32>
  %w24 = graph.constant dense<0.5> : tensor<8x24xf32>
  %w3 = graph.constant dense<0.5> : tensor<2x8x32xf32>
  %w32 = graph.constant dense<0.5> : tensor<8x32xf32>
  %0 = graph.matmul %x, %w16 : (tensor<3x8xf32>, tensor<8x16xf32>) -> tensor<3x16xf32>
  %1 = graph.matmul %r, %w24 : (tensor<1x8xf32>, tensor<8x24xf32>) -> tensor<1x24xf32>
  %2 = graph.matmul %x, %v : (tensor<3x8xf32>, tensor<8x32xf32>) -> tensor<3x32xf32>
  %3 = graph.matmul %x, %w3 : (tensor<3x8xf32>, tensor<2x8x32xf32>) -> tensor<2x3x32xf32>
  %4 = graph.matmul %u, %w32 : (tensor<8xf32>, tensor<8x32xf32>) -> tensor<32xf32>
  func.return %0, %1, %2, %3, %4 : tensor<3x16xf32>, tensor<1x24xf32>, tensor<3x32xf32>, tensor<2x3x32xf32>, tensor<32xf32>
}

// N = 24 (no whole number of panels) times four rows: the weight padded with zero columns
// to two panels, the product on them to its 24 columns. (Three rows would not be.)
// CHECK-LABEL: func.func @padded(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x8xf32>, %[[X3:\w+]]: tensor<3x8xf32>)
// CHECK-NEXT:    %[[W:\w+]] = graph.constant dense<5.000000e-01> : tensor<8x24xf32>
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant #graph.weights<{{\w+}}> : tensor<2x8x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.matmul_packed %[[X]], %[[WP]] {columns = 24 : i64} : (tensor<4x8xf32>, tensor<2x8x16xf32>) -> tensor<4x24xf32>
// CHECK-NEXT:    %[[Y3:\w+]] = graph.matmul %[[X3]], %[[W]] : (tensor<3x8xf32>, tensor<8x24xf32>) -> tensor<3x24xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[Y3]]
func.func @padded(%x: tensor<4x8xf32>, %x3: tensor<3x8xf32>) -> (tensor<4x24xf32>, tensor<3x24xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x24xf32>
  %y = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x24xf32>) -> tensor<4x24xf32>
  %y3 = graph.matmul %x3, %w : (tensor<3x8xf32>, tensor<8x24xf32>) -> tensor<3x24xf32>
  func.return %y, %y3 : tensor<4x24xf32>, tensor<3x24xf32>
}

// A gemm with a run-time bias (beta = 1): the packed product, then the bias added.
// CHECK-LABEL: func.func @gemm_bias(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x8xf32>, %[[C:\w+]]: tensor<32xf32>)
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant #graph.splat<5.000000e-01 : f32> : tensor<2x8x16xf32>
// CHECK-NEXT:    %[[P:\w+]] = graph.matmul_packed %[[X]], %[[WP]] : (tensor<3x8xf32>, tensor<2x8x16xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.add %[[P]], %[[C]] : (tensor<3x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @gemm_bias(%x: tensor<3x8xf32>, %c: tensor<32xf32>) -> tensor<3x32xf32> {
  %w = graph.constant dense<0.5> : tensor<8x32xf32>
  %y = graph.gemm %x, %w, %c : (tensor<3x8xf32>, tensor<8x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
  func.return %y : tensor<3x32xf32>
}

// alpha = 2 is folded into the packed weight (w as in @fc, doubled), beta = 0.5 into the
// constant bias c[n] = n.
// CHECK-LABEL: func.func @gemm_scaled(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x2xf32>)
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant dense<{{\[\[\[}}0.000000e+00, 2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00, 1.000000e+01, 1.200000e+01, 1.400000e+01, 1.600000e+01, 1.800000e+01, 2.000000e+01, 2.200000e+01, 2.400000e+01, 2.600000e+01, 2.800000e+01, 3.000000e+01], [6.400000e+01, 6.600000e+01, 6.800000e+01, 7.000000e+01, 7.200000e+01, 7.400000e+01, 7.600000e+01, 7.800000e+01, 8.000000e+01, 8.200000e+01, 8.400000e+01, 8.600000e+01, 8.800000e+01, 9.000000e+01, 9.200000e+01, 9.400000e+01]], {{\[\[}}3.200000e+01, 3.400000e+01, 3.600000e+01, 3.800000e+01, 4.000000e+01, 4.200000e+01, 4.400000e+01, 4.600000e+01, 4.800000e+01, 5.000000e+01, 5.200000e+01, 5.400000e+01, 5.600000e+01, 5.800000e+01, 6.000000e+01, 6.200000e+01], [9.600000e+01, 9.800000e+01, 1.000000e+02, 1.020000e+02, 1.040000e+02, 1.060000e+02, 1.080000e+02, 1.100000e+02, 1.120000e+02, 1.140000e+02, 1.160000e+02, 1.180000e+02, 1.200000e+02, 1.220000e+02, 1.240000e+02, 1.260000e+02]]]> : tensor<2x2x16xf32>
// CHECK-NEXT:    %[[C:\w+]] = graph.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00, 2.500000e+00, 3.000000e+00, 3.500000e+00, 4.000000e+00, 4.500000e+00, 5.000000e+00, 5.500000e+00, 6.000000e+00, 6.500000e+00, 7.000000e+00, 7.500000e+00, 8.000000e+00, 8.500000e+00, 9.000000e+00, 9.500000e+00, 1.000000e+01, 1.050000e+01, 1.100000e+01, 1.150000e+01, 1.200000e+01, 1.250000e+01, 1.300000e+01, 1.350000e+01, 1.400000e+01, 1.450000e+01, 1.500000e+01, 1.550000e+01]> : tensor<32xf32>
// CHECK-NEXT:    %[[P:\w+]] = graph.matmul_packed %[[X]], %[[WP]] : (tensor<3x2xf32>, tensor<2x2x16xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.add %[[P]], %[[C]] : (tensor<3x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @gemm_scaled(%x: tensor<3x2xf32>) -> tensor<3x32xf32> {
  %w = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], [32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]> : tensor<2x32xf32>
  %c = graph.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]> : tensor<32xf32>
  %y = graph.gemm %x, %w, %c {alpha = 2.0 : f32, beta = 0.5 : f32} : (tensor<3x2xf32>, tensor<2x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
  func.return %y : tensor<3x32xf32>
}

// beta = 0 drops the bias; without a bias only alpha is left (0.5 x 3 = 1.5).
// CHECK-LABEL: func.func @gemm_beta_zero(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x8xf32>, %{{\w+}}: tensor<32xf32>)
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant #graph.splat<5.000000e-01 : f32> : tensor<2x8x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.matmul_packed %[[X]], %[[WP]] : (tensor<3x8xf32>, tensor<2x8x16xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-LABEL: func.func @gemm_no_bias(
// CHECK-SAME:    %[[X:\w+]]: tensor<3x8xf32>)
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant #graph.splat<1.500000e+00 : f32> : tensor<2x8x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.matmul_packed %[[X]], %[[WP]] : (tensor<3x8xf32>, tensor<2x8x16xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @gemm_beta_zero(%x: tensor<3x8xf32>, %c: tensor<32xf32>) -> tensor<3x32xf32> {
  %w = graph.constant dense<0.5> : tensor<8x32xf32>
  %y = graph.gemm %x, %w, %c {beta = 0.0 : f32} : (tensor<3x8xf32>, tensor<8x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
  func.return %y : tensor<3x32xf32>
}
func.func @gemm_no_bias(%x: tensor<3x8xf32>) -> tensor<3x32xf32> {
  %w = graph.constant dense<0.5> : tensor<8x32xf32>
  %y = graph.gemm %x, %w {alpha = 3.0 : f32} : (tensor<3x8xf32>, tensor<8x32xf32>) -> tensor<3x32xf32>
  func.return %y : tensor<3x32xf32>
}

// Left alone: a run-time bias with beta != 1 (scaling it would take one more op), a
// transposed lhs, a transposed weight (graph-fold-weight-layout untransposes it first).
// CHECK-LABEL: func.func @gemm_stays(
// CHECK-NOT:     graph.matmul_packed
// CHECK:         graph.gemm %{{\w+}}, %{{\w+}}, %{{\w+}} {beta = 2.000000e+00 : f32} : (tensor<3x8xf32>, tensor<8x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    graph.gemm %{{\w+}}, %{{\w+}}, %{{\w+}} {trans_a = 1 : i64} : (tensor<8x3xf32>, tensor<8x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    graph.gemm %{{\w+}}, %{{\w+}}, %{{\w+}} {trans_b = 1 : i64} : (tensor<3x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<3x32xf32>
// CHECK-NEXT:    func.return
func.func @gemm_stays(%x: tensor<3x8xf32>, %xt: tensor<8x3xf32>, %c: tensor<32xf32>) -> (tensor<3x32xf32>, tensor<3x32xf32>, tensor<3x32xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x32xf32>
  %wt = graph.constant dense<0.5> : tensor<32x8xf32>
  %0 = graph.gemm %x, %w, %c {beta = 2.0 : f32} : (tensor<3x8xf32>, tensor<8x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
  %1 = graph.gemm %xt, %w, %c {trans_a = 1 : i64} : (tensor<8x3xf32>, tensor<8x32xf32>, tensor<32xf32>) -> tensor<3x32xf32>
  %2 = graph.gemm %x, %wt, %c {trans_b = 1 : i64} : (tensor<3x8xf32>, tensor<32x8xf32>, tensor<32xf32>) -> tensor<3x32xf32>
  func.return %0, %1, %2 : tensor<3x32xf32>, tensor<3x32xf32>, tensor<3x32xf32>
}

// A weight two GEMMs share is packed once (right after it); alpha-scaled weights are a
// constant of their own.
// CHECK-LABEL: func.func @shared(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x8xf32>, %[[Y:\w+]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[W2:\w+]] = graph.constant #graph.splat<1.000000e+00 : f32> : tensor<2x8x16xf32>
// CHECK-NEXT:    %[[W:\w+]] = graph.constant #graph.splat<5.000000e-01 : f32> : tensor<2x8x16xf32>
// CHECK-NEXT:    %[[A:\w+]] = graph.matmul_packed %[[X]], %[[W]] :
// CHECK-NEXT:    %[[B:\w+]] = graph.matmul_packed %[[Y]], %[[W]] :
// CHECK-NEXT:    %[[C:\w+]] = graph.matmul_packed %[[Y]], %[[W2]] :
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]]
func.func @shared(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x32xf32>
  %a = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
  %b = graph.matmul %y, %w : (tensor<4x8xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
  %c = graph.gemm %y, %w {alpha = 2.0 : f32} : (tensor<4x8xf32>, tensor<8x32xf32>) -> tensor<4x32xf32>
  func.return %a, %b, %c : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
}

// N = 70, wider than one 64-column block: padded to whole panels only (80 columns, 5
// panels); the GEMM's last column block is the shorter one (a block of 64, then 6 columns).
// CHECK-LABEL: func.func @wide(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant #graph.weights<{{\w+}}> : tensor<5x8x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.matmul_packed %[[X]], %[[WP]] {columns = 70 : i64} : (tensor<4x8xf32>, tensor<5x8x16xf32>) -> tensor<4x70xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @wide(%x: tensor<4x8xf32>) -> tensor<4x70xf32> {
  %w = graph.constant dense<0.5> : tensor<8x70xf32>
  %y = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x70xf32>) -> tensor<4x70xf32>
  func.return %y : tensor<4x70xf32>
}

// Rows that no block of 4 divides (6; 7 in a batch) are not padded: the GEMM template ends
// them with a shorter block. Only the columns of a constant weight are (24 to 32), and
// left out of the product; a run-time weight of whole panels and few rows is left as it is.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME:    %[[X:\w+]]: tensor<6x8xf32>, %[[XB:\w+]]: tensor<2x7x8xf32>, %[[V:\w+]]: tensor<8x32xf32>)
// CHECK-NEXT:    %[[WP:\w+]] = graph.constant #graph.weights<{{\w+}}> : tensor<2x8x16xf32>
// CHECK-NEXT:    %[[W32P:\w+]] = graph.constant #graph.splat<5.000000e-01 : f32> : tensor<2x8x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.matmul_packed %[[X]], %[[WP]] {columns = 24 : i64} : (tensor<6x8xf32>, tensor<2x8x16xf32>) -> tensor<6x24xf32>
// CHECK-NEXT:    %[[YB:\w+]] = graph.matmul_packed %[[XB]], %[[W32P]] : (tensor<2x7x8xf32>, tensor<2x8x16xf32>) -> tensor<2x7x32xf32>
// CHECK-NEXT:    %[[YV:\w+]] = graph.matmul %[[X]], %[[V]] : (tensor<6x8xf32>, tensor<8x32xf32>) -> tensor<6x32xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[YB]], %[[YV]]
func.func @rows(%x: tensor<6x8xf32>, %xb: tensor<2x7x8xf32>, %v: tensor<8x32xf32>) -> (tensor<6x24xf32>, tensor<2x7x32xf32>, tensor<6x32xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x24xf32>
  %w32 = graph.constant dense<0.5> : tensor<8x32xf32>
  %y = graph.matmul %x, %w : (tensor<6x8xf32>, tensor<8x24xf32>) -> tensor<6x24xf32>
  %yb = graph.matmul %xb, %w32 : (tensor<2x7x8xf32>, tensor<8x32xf32>) -> tensor<2x7x32xf32>
  %yv = graph.matmul %x, %v : (tensor<6x8xf32>, tensor<8x32xf32>) -> tensor<6x32xf32>
  func.return %y, %yb, %yv : tensor<6x24xf32>, tensor<2x7x32xf32>, tensor<6x32xf32>
}

// A run-time weight whose N no panel divides, times 32 rows or more: packed by ops that run
// with the model (zero columns, reshape, transpose), the product to its 24 columns.
// Fewer rows (31, 16) do not pay for the copy and keep the plain matmul.
// CHECK-LABEL: func.func @runtime(
// CHECK-SAME:    %[[X:\w+]]: tensor<32x8xf32>, %[[W:\w+]]: tensor<8x24xf32>, %[[X31:\w+]]: tensor<31x8xf32>, %[[X16:\w+]]: tensor<16x8xf32>)
// CHECK-NEXT:    %[[WPAD:\w+]] = graph.pad %[[W]] {pads = array<i64: 0, 0, 0, 8>} : tensor<8x24xf32> -> tensor<8x32xf32>
// CHECK-NEXT:    %[[R:\w+]] = graph.reshape %[[WPAD]] : tensor<8x32xf32> to tensor<8x2x16xf32>
// CHECK-NEXT:    %[[WP:\w+]] = graph.transpose %[[R]] {perm = array<i64: 1, 0, 2>} : tensor<8x2x16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.matmul_packed %[[X]], %[[WP]] {columns = 24 : i64} : (tensor<32x8xf32>, tensor<2x8x16xf32>) -> tensor<32x24xf32>
// CHECK-NEXT:    %[[Y31:\w+]] = graph.matmul %[[X31]], %[[W]] : (tensor<31x8xf32>, tensor<8x24xf32>) -> tensor<31x24xf32>
// CHECK-NEXT:    %[[Y16:\w+]] = graph.matmul %[[X16]], %[[W]] : (tensor<16x8xf32>, tensor<8x24xf32>) -> tensor<16x24xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[Y31]], %[[Y16]]
func.func @runtime(%x: tensor<32x8xf32>, %w: tensor<8x24xf32>, %x31: tensor<31x8xf32>, %x16: tensor<16x8xf32>) -> (tensor<32x24xf32>, tensor<31x24xf32>, tensor<16x24xf32>) {
  %y = graph.matmul %x, %w : (tensor<32x8xf32>, tensor<8x24xf32>) -> tensor<32x24xf32>
  %y31 = graph.matmul %x31, %w : (tensor<31x8xf32>, tensor<8x24xf32>) -> tensor<31x24xf32>
  %y16 = graph.matmul %x16, %w : (tensor<16x8xf32>, tensor<8x24xf32>) -> tensor<16x24xf32>
  func.return %y, %y31, %y16 : tensor<32x24xf32>, tensor<31x24xf32>, tensor<16x24xf32>
}
