// A 1x1 conv that stays NCHW (grouped: conv-layout blocks only plain and depthwise convs),
// stride 1, no padding, gets the conv_nchw template: up to 14x14 output pixels its
// reduction moves outside the rows and the rows run as one loop (fuse_rows), and its bias
// runs per output channel (compute_at i1, the loop outside the reduction). From 15x15 on,
// and for a strided 1x1 conv (whose rows are not contiguous), the plain order stays, the
// bias per row.
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s

// CHECK-LABEL: func.func @conv_0(
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute "anchor" (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 7, 7] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [4, 1, 1] {schedule = [#te.reorder<["r0", "r1", "r2", "i2"]>, #te.fuse<"i2", "i3">]} : tensor<1x8x7x7xf32> {
// CHECK:         te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 7, 7] {schedule = [#te.compute_at<"anchor", "i1">]} : tensor<1x8x7x7xf32> {
func.func @main(%x: tensor<1x8x7x7xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x7x7xf32> {
  %0 = graph.conv %x, %w, %b {group = 2 : i64} : (tensor<1x8x7x7xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x7x7xf32>
  func.return %0 : tensor<1x8x7x7xf32>
}

// -----

// CHECK-LABEL: func.func @conv_0(
// CHECK-NEXT:    %[[ACC:\w+]] = te.compute "anchor" (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 15, 15] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [4, 1, 1] : tensor<1x8x15x15xf32> {
// CHECK:         te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 15, 15] {schedule = [#te.compute_at<"anchor", "i2">]} : tensor<1x8x15x15xf32> {
func.func @main(%x: tensor<1x8x15x15xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x15x15xf32> {
  %0 = graph.conv %x, %w, %b {group = 2 : i64} : (tensor<1x8x15x15xf32>, tensor<8x4x1x1xf32>, tensor<8xf32>) -> tensor<1x8x15x15xf32>
  func.return %0 : tensor<1x8x15x15xf32>
}

// -----

// CHECK-LABEL: func.func @conv_0(
// CHECK-NEXT:    %{{\w+}} = te.compute (%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) in [1, 8, 4, 4] sum (%{{\w+}}, %{{\w+}}, %{{\w+}}) in [4, 1, 1] : tensor<1x8x4x4xf32> {
func.func @main(%x: tensor<1x8x7x7xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %0 = graph.conv %x, %w {group = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %0 : tensor<1x8x4x4xf32>
}
