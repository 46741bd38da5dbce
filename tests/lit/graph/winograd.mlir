// graph-winograd: a 3x3 stride-1 conv_nchwc with a constant weight becomes the input
// transform, a batched matmul on G w G^T (computed now) and the output transform with the
// bias. The tiles (2 x 2 of a 4 x 4 output here) are rows of the product. F(4x4, 3x3) (F4)
// makes one 4 x 4 tile of it, 36 positions; `always` takes the tile this machine's roofline
// prefers (either), `never` none.
// RUN: minitvm-opt %s --split-input-file -p 'graph-winograd{mode=f2x2},graph-dce' | filecheck %s
// RUN: minitvm-opt %s --split-input-file -p 'graph-winograd{mode=f4x4},graph-dce' | filecheck %s --check-prefix=F4
// RUN: minitvm-opt %s --split-input-file -p 'graph-winograd{mode=always},graph-dce' | filecheck %s --check-prefix=ALWAYS
// RUN: minitvm-opt %s --split-input-file -p 'graph-winograd{mode=never}' | filecheck %s --check-prefix=NEVER

// w = 1 everywhere: U = (G 1 G^T)[xi, nu] = r[xi] r[nu] for G's row sums r = (1, 1.5, 0.5, 1).
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x1x4x4x1xf32>, %[[B:\w+]]: tensor<1xf32>)
// CHECK-NEXT:    %[[U:\w+]] = graph.constant dense<{{\[\[\[}}1.000000e+00]], {{\[\[}}1.500000e+00]], {{\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]], {{\[\[}}1.500000e+00]], {{\[\[}}2.250000e+00]], {{\[\[}}7.500000e-01]], {{\[\[}}1.500000e+00]], {{\[\[}}5.000000e-01]], {{\[\[}}7.500000e-01]], {{\[\[}}2.500000e-01]], {{\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]], {{\[\[}}1.500000e+00]], {{\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]]]> : tensor<16x1x1xf32>
// CHECK-NEXT:    %[[V:\w+]] = graph.winograd_input %[[X]] {pads = array<i64: 1, 1>, output = array<i64: 4, 4>, rows = 4 : i64} : (tensor<1x1x4x4x1xf32>) -> tensor<16x4x1xf32>
// CHECK-NEXT:    %[[M:\w+]] = graph.matmul %[[V]], %[[U]] : (tensor<16x4x1xf32>, tensor<16x1x1xf32>) -> tensor<16x4x1xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.winograd_output %[[M]], %[[B]] {output = array<i64: 1, 4, 4>, block = 1 : i64} : (tensor<16x4x1xf32>, tensor<1xf32>) -> tensor<1x1x4x4x1xf32>
// CHECK-NEXT:    func.return %[[Y]]
// F4-LABEL: func.func @conv(
// F4-SAME:    %[[X:\w+]]: tensor<1x1x4x4x1xf32>, %[[B:\w+]]: tensor<1xf32>)
// F4-NEXT:    %[[U:\w+]] = graph.constant dense<{{\[\[\[}}6.250000e-02]], {{\[\[}}-1.250000e-01]], {{.*}} : tensor<36x1x1xf32>
// F4-NEXT:    %[[V:\w+]] = graph.winograd_input %[[X]] {pads = array<i64: 1, 1>, output = array<i64: 4, 4>, rows = 1 : i64, tile = 4 : i64} : (tensor<1x1x4x4x1xf32>) -> tensor<36x1x1xf32>
// F4-NEXT:    %[[M:\w+]] = graph.matmul %[[V]], %[[U]] : (tensor<36x1x1xf32>, tensor<36x1x1xf32>) -> tensor<36x1x1xf32>
// F4-NEXT:    %[[Y:\w+]] = graph.winograd_output %[[M]], %[[B]] {output = array<i64: 1, 4, 4>, block = 1 : i64, tile = 4 : i64} : (tensor<36x1x1xf32>, tensor<1xf32>) -> tensor<1x1x4x4x1xf32>
// F4-NEXT:    func.return %[[Y]]
// ALWAYS-LABEL: func.func @conv(
// ALWAYS-NOT:     graph.conv_nchwc
// ALWAYS:         graph.winograd_input
// ALWAYS-NOT:     graph.conv_nchwc
// ALWAYS-LABEL: func.func @odd(
// NEVER-LABEL: func.func @conv(
// NEVER:         graph.conv_nchwc
func.func @conv(%x: tensor<1x1x4x4x1xf32>, %b: tensor<1xf32>) -> tensor<1x1x4x4x1xf32> {
  %w = graph.constant #graph.splat<1.0 : f32> : tensor<1x1x3x3x1x1xf32>
  %y = graph.conv_nchwc %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4x1xf32>, tensor<1x1x3x3x1x1xf32>, tensor<1xf32>) -> tensor<1x1x4x4x1xf32>
  func.return %y : tensor<1x1x4x4x1xf32>
}

// -----

// Unpadded, an odd output (5 x 3: 3 x 2 tiles) of 2 images: 12 tiles; 3 images' 18 (the
// GEMM's rows: no padding, its register blocks end with a shorter one). The weight both
// read is transformed once.
// CHECK-LABEL: func.func @odd(
// CHECK-COUNT-1: graph.constant
// CHECK-NOT:     graph.constant
// CHECK:         graph.winograd_input %{{\w+}} {pads = array<i64: 0, 0>, output = array<i64: 5, 3>, rows = 12 : i64} : (tensor<2x1x7x5x1xf32>) -> tensor<16x12x1xf32>
// CHECK:         graph.winograd_output %{{\w+}} {output = array<i64: 2, 5, 3>, block = 1 : i64} : (tensor<16x12x1xf32>) -> tensor<2x1x5x3x1xf32>
// CHECK:         graph.winograd_input %{{\w+}} {pads = array<i64: 0, 0>, output = array<i64: 5, 3>, rows = 18 : i64} : (tensor<3x1x7x5x1xf32>) -> tensor<16x18x1xf32>
// With 4 x 4 tiles, 2 x 1 per image, the 3 rows left empty in the last tile row read zeros.
// F4-LABEL: func.func @odd(
// F4:         graph.winograd_input %{{\w+}} {pads = array<i64: 0, 0>, output = array<i64: 5, 3>, rows = 4 : i64, tile = 4 : i64} : (tensor<2x1x7x5x1xf32>) -> tensor<36x4x1xf32>
// F4:         graph.winograd_output %{{\w+}} {output = array<i64: 2, 5, 3>, block = 1 : i64, tile = 4 : i64} : (tensor<36x4x1xf32>) -> tensor<2x1x5x3x1xf32>
func.func @odd(%x: tensor<2x1x7x5x1xf32>, %z: tensor<3x1x7x5x1xf32>) -> (tensor<2x1x5x3x1xf32>, tensor<3x1x5x3x1xf32>) {
  %w = graph.constant #graph.splat<1.0 : f32> : tensor<1x1x3x3x1x1xf32>
  %y = graph.conv_nchwc %x, %w : (tensor<2x1x7x5x1xf32>, tensor<1x1x3x3x1x1xf32>) -> tensor<2x1x5x3x1xf32>
  %u = graph.conv_nchwc %z, %w : (tensor<3x1x7x5x1xf32>, tensor<1x1x3x3x1x1xf32>) -> tensor<3x1x5x3x1xf32>
  func.return %y, %u : tensor<2x1x5x3x1xf32>, tensor<3x1x5x3x1xf32>
}

// -----

// Strided, dilated and run-time-weight convs stay direct.
// CHECK-LABEL: func.func @direct(
// CHECK-NOT:     graph.winograd
// CHECK:         graph.conv_nchwc {{.*}}strides = array<i64: 2, 2>
// CHECK:         graph.conv_nchwc {{.*}}dilations = array<i64: 2, 2>
// CHECK:         graph.conv_nchwc %x, %wr
func.func @direct(%x: tensor<1x1x8x8x1xf32>, %wr: tensor<1x1x3x3x1x1xf32>) -> (tensor<1x1x4x4x1xf32>, tensor<1x1x8x8x1xf32>, tensor<1x1x8x8x1xf32>) {
  %w = graph.constant #graph.splat<1.0 : f32> : tensor<1x1x3x3x1x1xf32>
  %s = graph.conv_nchwc %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x1xf32>, tensor<1x1x3x3x1x1xf32>) -> tensor<1x1x4x4x1xf32>
  %d = graph.conv_nchwc %x, %w {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>} : (tensor<1x1x8x8x1xf32>, tensor<1x1x3x3x1x1xf32>) -> tensor<1x1x8x8x1xf32>
  %r = graph.conv_nchwc %x, %wr {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x1xf32>, tensor<1x1x3x3x1x1xf32>) -> tensor<1x1x8x8x1xf32>
  func.return %s, %d, %r : tensor<1x1x4x4x1xf32>, tensor<1x1x8x8x1xf32>, tensor<1x1x8x8x1xf32>
}

// -----

// A batch known only at run time: the tile grid is fixed, so the rows are the tiles of n
// images (6*n, no padding: the GEMM takes the tail); a run-time height keeps the direct conv.
// CHECK-LABEL: func.func @batch(
// CHECK:         %[[V:\w+]] = graph.winograd_input %x {pads = array<i64: 0, 0>, output = array<i64: 5, 3>, rows = #graph.sizes<"6*n">} : (tensor<?x1x7x5x1xf32, #graph.dims<"n">>) -> tensor<16x?x1xf32, #graph.dims<"6*n">>
// CHECK-NEXT:    %[[M:\w+]] = graph.matmul %[[V]], %{{\w+}} : (tensor<16x?x1xf32, #graph.dims<"6*n">>, tensor<16x1x1xf32>) -> tensor<16x?x1xf32, #graph.dims<"6*n">>
// CHECK-NEXT:    %{{\w+}} = graph.winograd_output %[[M]] {output = #graph.sizes<"n", 5, 3>, block = 1 : i64} : (tensor<16x?x1xf32, #graph.dims<"6*n">>) -> tensor<?x1x5x3x1xf32, #graph.dims<"n">>
// CHECK-NEXT:    %{{\w+}} = graph.conv_nchwc %h, %w
func.func @batch(%x: tensor<?x1x7x5x1xf32, #graph.dims<"n">>, %h: tensor<1x1x?x5x1xf32, #graph.dims<"h">>) -> (tensor<?x1x5x3x1xf32, #graph.dims<"n">>, tensor<1x1x?x3x1xf32, #graph.dims<"h - 2">>) {
  %w = graph.constant #graph.splat<1.0 : f32> : tensor<1x1x3x3x1x1xf32>
  %y = graph.conv_nchwc %x, %w : (tensor<?x1x7x5x1xf32, #graph.dims<"n">>, tensor<1x1x3x3x1x1xf32>) -> tensor<?x1x5x3x1xf32, #graph.dims<"n">>
  %u = graph.conv_nchwc %h, %w : (tensor<1x1x?x5x1xf32, #graph.dims<"h">>, tensor<1x1x3x3x1x1xf32>) -> tensor<1x1x?x3x1xf32, #graph.dims<"h - 2">>
  func.return %y, %u : tensor<?x1x5x3x1xf32, #graph.dims<"n">>, tensor<1x1x?x3x1xf32, #graph.dims<"h - 2">>
}
