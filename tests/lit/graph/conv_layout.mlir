// graph-conv-layout: convolutions run in NCHW16c; layout transforms are left only at the edges
// of the blocked world (graph inputs/outputs, pooling), cancelled between convolutions.
// RUN: minitvm-opt %s -p graph-conv-layout,graph-dce | filecheck %s

// A residual block: conv -> relu -> conv -> per-channel scale -> residual add. Everything
// between the input and the output transform stays blocked; the constant scale is re-laid out.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x16x8x8xf32>)
// CHECK:         %[[XB:\w+]] = graph.layout_transform %[[X]] {src_layout = "NCHW", dst_layout = "NCHW16c"} : tensor<1x16x8x8xf32> -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT:    %[[C1:\w+]] = graph.conv_nchwc %[[XB]], %{{\w+}}, %{{\w+}} {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x16xf32>, tensor<1x1x3x3x16x16xf32>, tensor<16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT:    %[[R:\w+]] = graph.relu %[[C1]] : tensor<1x1x8x8x16xf32>
// CHECK:         %[[C2:\w+]] = graph.conv_nchwc %[[R]], %{{\w+}} {pads = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[S:\w+]] = graph.constant #graph.splat<2.000000e-01 : f32> : tensor<1x1x1x1x16xf32>
// CHECK-NEXT:    %[[M:\w+]] = graph.mul %[[C2]], %[[S]] : (tensor<1x1x8x8x16xf32>, tensor<1x1x1x1x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT:    %[[A:\w+]] = graph.add %[[M]], %[[R]] : (tensor<1x1x8x8x16xf32>, tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.layout_transform %[[A]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @residual(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = graph.constant dense<0.5> : tensor<16x16x3x3xf32>
  %b = graph.constant dense<0.1> : tensor<16xf32>
  %c = graph.constant dense<0.2> : tensor<1x16x1x1xf32>
  %0 = graph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %1 = graph.relu %0 : tensor<1x16x8x8xf32>
  %2 = graph.conv %1, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %3 = graph.mul %2, %c : (tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %4 = graph.add %3, %1 : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  func.return %4 : tensor<1x16x8x8xf32>
}

// An RGB image is blocked whole (NCHW3c); the max pool runs on the blocks as a 3-D pool
// with a one-wide window over the 16 channels of a block, so only its result goes back.
// CHECK-LABEL: func.func @rgb_stem(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT:    %[[W:\w+]] = graph.constant #graph.splat<5.000000e-01 : f32> : tensor<1x1x3x3x3x16xf32>
// CHECK-NEXT:    %[[XB:\w+]] = graph.layout_transform %[[X]] {src_layout = "NCHW", dst_layout = "NCHW3c"} : tensor<1x3x8x8xf32> -> tensor<1x1x8x8x3xf32>
// CHECK-NEXT:    %[[C:\w+]] = graph.conv_nchwc %[[XB]], %[[W]] {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x8x8x3xf32>, tensor<1x1x3x3x3x16xf32>) -> tensor<1x1x8x8x16xf32>
// CHECK-NEXT:    %[[R:\w+]] = graph.relu %[[C]] : tensor<1x1x8x8x16xf32>
// CHECK-NEXT:    %[[P:\w+]] = graph.max_pool %[[R]] {kernel_shape = array<i64: 2, 2, 1>, strides = array<i64: 2, 2, 1>} : tensor<1x1x8x8x16xf32> -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT:    %[[U:\w+]] = graph.layout_transform %[[P]] {src_layout = "NCHW16c", dst_layout = "NCHW"} : tensor<1x1x4x4x16xf32> -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    func.return %[[U]]
func.func @rgb_stem(%x: tensor<1x3x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %w = graph.constant dense<0.5> : tensor<16x3x3x3xf32>
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
  %1 = graph.relu %0 : tensor<1x16x8x8xf32>
  %2 = graph.max_pool %1 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  func.return %2 : tensor<1x16x4x4xf32>
}

// A concat along channels of blocked and not yet blocked inputs is done on blocks; the
// input is blocked once for both the conv and the concat.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x16x4x4xf32>)
// CHECK-NEXT:    %[[W:\w+]] = graph.constant
// CHECK-NEXT:    %[[XB:\w+]] = graph.layout_transform %[[X]] {src_layout = "NCHW", dst_layout = "NCHW16c"}
// CHECK-NEXT:    %[[C:\w+]] = graph.conv_nchwc %[[XB]], %[[W]] : (tensor<1x1x4x4x16xf32>, tensor<2x1x1x1x16x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT:    %[[J:\w+]] = graph.concat %[[XB]], %[[C]] {axis = 1 : i64} : (tensor<1x1x4x4x16xf32>, tensor<1x2x4x4x16xf32>) -> tensor<1x3x4x4x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.layout_transform %[[J]] {src_layout = "NCHW16c", dst_layout = "NCHW"} : tensor<1x3x4x4x16xf32> -> tensor<1x48x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @concat(%x: tensor<1x16x4x4xf32>) -> tensor<1x48x4x4xf32> {
  %w = graph.constant dense<0.5> : tensor<32x16x1x1xf32>
  %0 = graph.conv %x, %w : (tensor<1x16x4x4xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32>
  %1 = graph.concat %x, %0 {axis = 1 : i64} : (tensor<1x16x4x4xf32>, tensor<1x32x4x4xf32>) -> tensor<1x48x4x4xf32>
  func.return %1 : tensor<1x48x4x4xf32>
}

// Pools between convs stay blocked: each pool's window gets a third, one-wide dim (pads 0,
// stride 1) over a block's channels; count_include_pad and ceil_mode carry over unchanged.
// CHECK-LABEL: func.func @pools(
// CHECK-NEXT:    %[[W:\w+]] = graph.constant
// CHECK-NEXT:    %[[XB:\w+]] = graph.layout_transform %{{\w+}} {src_layout = "NCHW", dst_layout = "NCHW16c"}
// CHECK-NEXT:    %[[C:\w+]] = graph.conv_nchwc %[[XB]], %[[W]] : (tensor<1x1x9x9x16xf32>, tensor<1x1x1x1x16x16xf32>) -> tensor<1x1x9x9x16xf32>
// CHECK-NEXT:    %[[M:\w+]] = graph.max_pool %[[C]] {kernel_shape = array<i64: 3, 3, 1>, strides = array<i64: 2, 2, 1>, pads = array<i64: 1, 0, 0, 1, 1, 0>, dilations = array<i64: 1, 2, 1>, ceil_mode = 1 : i64} : tensor<1x1x9x9x16xf32> -> tensor<1x1x5x4x16xf32>
// CHECK-NEXT:    %[[A:\w+]] = graph.avg_pool %[[M]] {kernel_shape = array<i64: 2, 2, 1>, pads = array<i64: 1, 1, 0, 1, 1, 0>, count_include_pad = 1 : i64} : tensor<1x1x5x4x16xf32> -> tensor<1x1x6x5x16xf32>
// CHECK-NEXT:    %[[W2:\w+]] = graph.constant
// CHECK-NEXT:    %[[D:\w+]] = graph.conv_nchwc %[[A]], %[[W2]] : (tensor<1x1x6x5x16xf32>, tensor<1x1x1x1x16x16xf32>) -> tensor<1x1x6x5x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.layout_transform %[[D]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @pools(%x: tensor<1x16x9x9xf32>) -> tensor<1x16x6x5xf32> {
  %w = graph.constant dense<0.5> : tensor<16x16x1x1xf32>
  %0 = graph.conv %x, %w : (tensor<1x16x9x9xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x9x9xf32>
  %1 = graph.max_pool %0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>, dilations = array<i64: 1, 2>, ceil_mode = 1 : i64} : tensor<1x16x9x9xf32> -> tensor<1x16x5x4xf32>
  %2 = graph.avg_pool %1 {kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64} : tensor<1x16x5x4xf32> -> tensor<1x16x6x5xf32>
  %3 = graph.conv %2, %w : (tensor<1x16x6x5xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x6x5xf32>
  func.return %3 : tensor<1x16x6x5xf32>
}

// A MobileNet block: a strided depthwise 3x3 (group = the 32 channels) with bias, ReLU6,
// then a pointwise 1x1 conv. The depthwise conv is blocked like its input, its weights
// [32, 1, 3, 3] re-laid out as [2, 1, 3, 3, 1, 16]; only the block's edges transform.
// CHECK-LABEL: func.func @depthwise(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x32x8x8xf32>)
// CHECK:         %[[XB:\w+]] = graph.layout_transform %[[X]] {src_layout = "NCHW", dst_layout = "NCHW16c"} : tensor<1x32x8x8xf32> -> tensor<1x2x8x8x16xf32>
// CHECK-NEXT:    %[[D:\w+]] = graph.conv_nchwc %[[XB]], %{{\w+}}, %{{\w+}} {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, group = 32 : i64} : (tensor<1x2x8x8x16xf32>, tensor<2x1x3x3x1x16xf32>, tensor<32xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NEXT:    %[[C:\w+]] = graph.clip %[[D]] {min = 0.000000e+00 : f32, max = 6.000000e+00 : f32} : tensor<1x2x4x4x16xf32>
// CHECK:         %[[P:\w+]] = graph.conv_nchwc %[[C]], %{{\w+}} : (tensor<1x2x4x4x16xf32>, tensor<1x2x1x1x16x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.layout_transform %[[P]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @depthwise(%x: tensor<1x32x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %dw = graph.constant dense<0.5> : tensor<32x1x3x3xf32>
  %b = graph.constant dense<0.1> : tensor<32xf32>
  %pw = graph.constant dense<0.25> : tensor<16x32x1x1xf32>
  %0 = graph.conv %x, %dw, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, group = 32 : i64} : (tensor<1x32x8x8xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>) -> tensor<1x32x4x4xf32>
  %1 = graph.clip %0 {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x32x4x4xf32>
  %2 = graph.conv %1, %pw : (tensor<1x32x4x4xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x4x4xf32>
  func.return %2 : tensor<1x16x4x4xf32>
}

// Channel counts that 16 does not divide but 8 does (MobileNetV2's 24) run in NCHW8c, one
// 8-float vector per pixel: the 16 -> 24 conv's output and the 24 -> 16 conv's input, so
// nothing is re-blocked between them.
// CHECK-LABEL: func.func @half_block(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x16x4x4xf32>)
// CHECK:         %[[XB:\w+]] = graph.layout_transform %[[X]] {src_layout = "NCHW", dst_layout = "NCHW16c"}
// CHECK-NEXT:    %[[A:\w+]] = graph.conv_nchwc %[[XB]], %{{\w+}} : (tensor<1x1x4x4x16xf32>, tensor<3x1x1x1x16x8xf32>) -> tensor<1x3x4x4x8xf32>
// CHECK-NEXT:    %[[R:\w+]] = graph.relu %[[A]] : tensor<1x3x4x4x8xf32>
// CHECK:         %[[B:\w+]] = graph.conv_nchwc %[[R]], %{{\w+}} : (tensor<1x3x4x4x8xf32>, tensor<1x3x1x1x8x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK-NEXT:    %[[Y:\w+]] = graph.layout_transform %[[B]] {src_layout = "NCHW16c", dst_layout = "NCHW"}
// CHECK-NEXT:    func.return %[[Y]]
func.func @half_block(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w1 = graph.constant dense<0.5> : tensor<24x16x1x1xf32>
  %w2 = graph.constant dense<0.5> : tensor<16x24x1x1xf32>
  %0 = graph.conv %x, %w1 : (tensor<1x16x4x4xf32>, tensor<24x16x1x1xf32>) -> tensor<1x24x4x4xf32>
  %1 = graph.relu %0 : tensor<1x24x4x4xf32>
  %2 = graph.conv %1, %w2 : (tensor<1x24x4x4xf32>, tensor<16x24x1x1xf32>) -> tensor<1x16x4x4xf32>
  func.return %2 : tensor<1x16x4x4xf32>
}

// Not rewritten: grouped convs (two groups; a depthwise conv with two outputs per channel),
// output channels not a multiple of 8, run-time weights.
// CHECK-LABEL: func.func @stays(
// CHECK-NOT:     graph.layout_transform
// CHECK-NOT:     graph.conv_nchwc
// CHECK:         func.return
func.func @stays(%x: tensor<1x16x4x4xf32>, %v: tensor<16x16x1x1xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x12x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x32x4x4xf32>) {
  %g = graph.constant dense<0.5> : tensor<16x8x1x1xf32>
  %w = graph.constant dense<0.5> : tensor<12x16x1x1xf32>
  %m = graph.constant dense<0.5> : tensor<32x1x3x3xf32>
  %0 = graph.conv %x, %g {group = 2 : i64} : (tensor<1x16x4x4xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x4x4xf32>
  %1 = graph.conv %x, %w : (tensor<1x16x4x4xf32>, tensor<12x16x1x1xf32>) -> tensor<1x12x4x4xf32>
  %2 = graph.conv %x, %v : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %3 = graph.conv %x, %m {pads = array<i64: 1, 1, 1, 1>, group = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x4x4xf32>
  func.return %0, %1, %2, %3 : tensor<1x16x4x4xf32>, tensor<1x12x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x32x4x4xf32>
}
