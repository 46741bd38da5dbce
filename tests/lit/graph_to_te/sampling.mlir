// convert-graph-to-te on the sampling ops (lowering/graph_to_te/sampling.py): resize's filter
// taps, grid_sample's data-dependent reads, roi_align's reduction over a bin's sample points,
// col2im's reduction over the kernel offsets. Indices computed from data are clamped into the
// input (NaN to 0) before the read; zeros padding selects 0 where a tap lies outside.
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s

// Bicubic upsampling: the 4 x 4 taps of both resampled dims in one compute.
// CHECK-LABEL: func.func @resize_0(
// CHECK-NEXT:    te.compute (%{{.*}}) in [1, 1, 8, 8] : tensor<1x1x8x8xf32> {
// CHECK-COUNT-16: te.read %{{.*}} : tensor<1x1x4x4xf32>
// CHECK-NOT:     te.read
// CHECK:         te.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "cubic"} : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  func.return %0 : tensor<1x1x8x8xf32>
}

// -----

// Antialiased bicubic downsampling by 2 stretches the filter to 8 taps per dim: one compute
// per dim (8 + 8 reads, not 64), the first into an f32 intermediate.
// CHECK-LABEL: func.func @resize_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[ROWS:\w+]] = te.compute (%{{.*}}) in [1, 1, 4, 8] : tensor<1x1x4x8xf32> {
// CHECK-COUNT-8: te.read %[[X]]
// CHECK-NOT:     te.read
// CHECK:         te.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%{{.*}}) in [1, 1, 4, 4] : tensor<1x1x4x4xf32> {
// CHECK-COUNT-8: te.read %[[ROWS]]
// CHECK-NOT:     te.read
// CHECK:         te.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x1x4x4xf32>
func.func @main(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 0.5, 0.5>, mode = "cubic", antialias = 1 : i64} : tensor<1x1x8x8xf32> to tensor<1x1x4x4xf32>
  func.return %0 : tensor<1x1x4x4xf32>
}

// -----

// tf_crop_and_resize, nearest: the source coordinate (i * 1.5 * 3 / 5 - 1.5 for the rows:
// the box's rows from -0.5 to 1) in f32, and which output rows fall outside the input is
// known at compile time: rows 0 and 1 read above it, so they get the extrapolation value.
// CHECK-LABEL: func.func @resize_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x1x4x4xf32>) -> tensor<1x1x6x6xf32> attributes {te.kernel} {
// CHECK-NEXT:    te.compute (%[[I0:\w+]], %[[I1:\w+]], %[[I2:\w+]], %[[I3:\w+]]) in [1, 1, 6, 6] : tensor<1x1x6x6xf32> {
// CHECK-NEXT:      %[[I2I:\w+]] = arith.index_cast %[[I2]] : index to i64
// CHECK-NEXT:      %[[I2F:\w+]] = arith.sitofp %[[I2I]] : i64 to f32
// CHECK-NEXT:      %[[W:\w+]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[I2F]], %[[W]] : f32
// CHECK:           %[[H:\w+]] = arith.minsi %{{.*}} : index
// CHECK:           %[[C:\w+]] = arith.minsi %{{.*}} : index
// CHECK-NEXT:      %[[TWO:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[OUT:\w+]] = arith.cmpi slt, %[[I2]], %[[TWO]] : index
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I0]], %[[I1]], %[[H]], %[[C]]] : tensor<1x1x4x4xf32>
// CHECK-NEXT:      %[[FILL:\w+]] = arith.constant 7.000000e+00 : f32
// CHECK-NEXT:      %[[R:\w+]] = arith.select %[[OUT]], %[[FILL]], %[[V]] : f32
// CHECK-NEXT:      te.yield %[[R]] : f32
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x6x6xf32> {
  %0 = graph.resize %x {scales = array<f32: 1.0, 1.0, 1.5, 1.5>, coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 7.0 : f32, roi = array<f32: 0.0, 0.0, -0.5, 0.0, 1.0, 1.0, 1.0, 1.0>} : tensor<1x1x4x4xf32> to tensor<1x1x6x6xf32>
  func.return %0 : tensor<1x1x6x6xf32>
}

// -----

// Bilinear grid_sample, zeros padding: the grid point's y (entry 1) and x (entry 0) are
// denormalized ((g + 1) * size - 1) / 2, and each of the four corners reads at an index
// clamped into the input and selects 0 where the corner lies outside.
// CHECK-LABEL: func.func @grid_sample_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x4x5xf32>, %[[G:\w+]]: tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32> attributes {te.kernel} {
// CHECK-NEXT:    te.compute (%[[N:\w+]], %[[C:\w+]], %[[OH:\w+]], %[[OW:\w+]]) in [1, 2, 3, 3] : tensor<1x2x3x3xf32> {
// CHECK-NEXT:      %[[E1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[GY:\w+]] = te.read %[[G]][%[[N]], %[[OH]], %[[OW]], %[[E1]]] : tensor<1x3x3x2xf32>
// CHECK-NEXT:      %[[ONE:\w+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[A:\w+]] = arith.addf %[[GY]], %[[ONE]] : f32
// CHECK-NEXT:      %[[HEIGHT:\w+]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      %[[B:\w+]] = arith.mulf %[[A]], %[[HEIGHT]] : f32
// CHECK:           %[[E0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[GX:\w+]] = te.read %[[G]][%[[N]], %[[OH]], %[[OW]], %[[E0]]] : tensor<1x3x3x2xf32>
// CHECK:           %[[V:\w+]] = te.read %[[X]][%[[N]], %[[C]], %{{.*}}, %{{.*}}] : tensor<1x2x4x5xf32>
// CHECK-NEXT:      %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %{{.*}} = arith.select %{{.*}}, %[[V]], %[[ZERO]] : f32
// CHECK-COUNT-3:   te.read %[[X]]
// CHECK-NOT:       te.read
// CHECK:           te.yield
func.func @main(%x: tensor<1x2x4x5xf32>, %grid: tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32> {
  %0 = graph.grid_sample %x, %grid : (tensor<1x2x4x5xf32>, tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32>
  func.return %0 : tensor<1x2x3x3xf32>
}

// -----

// roi_align with sampling_ratio 2: a sum over each bin's 2 x 2 points of their bilinear
// values (the batch index read first, four corner reads per point), then the division by 4.
// CHECK-LABEL: func.func @roi_align_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x2x6x6xf32>, %[[ROIS:\w+]]: tensor<3x4xf32>, %[[B:\w+]]: tensor<3xi64>) -> tensor<3x2x2x2xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[SUM:\w+]] = te.compute (%[[R:\w+]], %{{.*}}) in [3, 2, 2, 2] sum (%{{.*}}, %{{.*}}) in [2, 2] : tensor<3x2x2x2xf32> {
// CHECK-NEXT:      %{{.*}} = te.read %[[B]][%[[R]]] : tensor<3xi64>
// CHECK-COUNT-4:   te.read %[[ROIS]][%[[R]], %{{.*}}] : tensor<3x4xf32>
// CHECK-COUNT-4:   te.read %[[X]]
// CHECK-NOT:       te.read
// CHECK:         }
// CHECK-NEXT:    %[[Y:\w+]] = te.compute (%[[I0:\w+]], %[[I1:\w+]], %[[I2:\w+]], %[[I3:\w+]]) in [3, 2, 2, 2] : tensor<3x2x2x2xf32> {
// CHECK-NEXT:      %[[S:\w+]] = te.read %[[SUM]][%[[I0]], %[[I1]], %[[I2]], %[[I3]]] : tensor<3x2x2x2xf32>
// CHECK-NEXT:      %[[FOUR:\w+]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      %[[AVG:\w+]] = arith.divf %[[S]], %[[FOUR]] : f32
// CHECK-NEXT:      te.yield %[[AVG]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[Y]] : tensor<3x2x2x2xf32>
func.func @main(%x: tensor<1x2x6x6xf32>, %rois: tensor<3x4xf32>, %batch: tensor<3xi64>) -> tensor<3x2x2x2xf32> {
  %0 = graph.roi_align %x, %rois, %batch {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64} : (tensor<1x2x6x6xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  func.return %0 : tensor<3x2x2x2xf32>
}

// -----

// col2im, 2 x 2 blocks at stride 2 over a 4 x 5 image: every pixel sums over the kernel
// offsets (r0, r1) the column entry whose block b has b * 2 + r = pixel, selected where
// such a block exists (t = pixel - r in [0, 2] and even, per dim).
// CHECK-LABEL: func.func @col2im_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<1x8x4xf32>) -> tensor<1x2x4x5xf32> attributes {te.kernel} {
// CHECK-NEXT:    te.compute (%[[N:\w+]], %[[C:\w+]], %[[H:\w+]], %[[W:\w+]]) in [1, 2, 4, 5] sum (%[[R0:\w+]], %[[R1:\w+]]) in [2, 2] : tensor<1x2x4x5xf32> {
// CHECK-NEXT:      %[[K:\w+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[ROW0:\w+]] = arith.muli %[[C]], %[[K]] : index
// CHECK-NEXT:      %[[T:\w+]] = arith.subi %[[H]], %[[R0]] : index
// CHECK-NEXT:      %[[Z:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[GE:\w+]] = arith.cmpi sge, %[[T]], %[[Z]] : index
// CHECK-NEXT:      %[[LAST:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[LE:\w+]] = arith.cmpi sle, %[[T]], %[[LAST]] : index
// CHECK:           %[[V:\w+]] = te.read %[[X]][%[[N]], %{{.*}}, %{{.*}}] : tensor<1x8x4xf32>
// CHECK-NEXT:      %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[R:\w+]] = arith.select %{{.*}}, %[[V]], %[[ZERO]] : f32
// CHECK-NEXT:      te.yield %[[R]] : f32
func.func @main(%x: tensor<1x8x4xf32>) -> tensor<1x2x4x5xf32> {
  %0 = graph.col2im %x {image_shape = array<i64: 4, 5>, block_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x8x4xf32> -> tensor<1x2x4x5xf32>
  func.return %0 : tensor<1x2x4x5xf32>
}
