// graph.greedy_nms: NonMaxSuppression's greedy pass over each (batch, class)'s candidates,
// best score first, on the boxes as ONNX gives them (corners, or centers and sizes with
// center_point_box); results: whether each rank was kept, and the candidate of each rank the
// pass looked at (-1 after). Round-trips in both forms; static and symbolic sizes.
// RUN: minitvm-opt %s --split-input-file | filecheck %s
// RUN: minitvm-opt %s --split-input-file | minitvm-opt --split-input-file | filecheck %s
// RUN: minitvm-opt %s --split-input-file --print-op-generic | minitvm-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @detector(%boxes: tensor<1x8400x4xf32>, %scores: tensor<1x80x8400xf32>, %max: tensor<i64>, %iou: tensor<f32>, %threshold: tensor<f32>) -> (tensor<1x80x8400xi1>, tensor<1x80x8400xi64>) {
// CHECK-NEXT:    %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %threshold {thresholded = 1 : i64} : (tensor<1x8400x4xf32>, tensor<1x80x8400xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<1x80x8400xi1>, tensor<1x80x8400xi64>)
func.func @detector(%boxes: tensor<1x8400x4xf32>, %scores: tensor<1x80x8400xf32>, %max: tensor<i64>, %iou: tensor<f32>, %threshold: tensor<f32>) -> (tensor<1x80x8400xi1>, tensor<1x80x8400xi64>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %threshold {thresholded = 1 : i64} : (tensor<1x8400x4xf32>, tensor<1x80x8400xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<1x80x8400xi1>, tensor<1x80x8400xi64>)
  func.return %keep, %order : tensor<1x80x8400xi1>, tensor<1x80x8400xi64>
}

// -----

// Without a threshold (the default, elided) every box is a candidate.
// CHECK-LABEL: func.func @any(
// CHECK-NEXT:    %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %unused : (tensor<?x?x4xf32, #graph.dims<"b", "n">>, tensor<?x3x?xf32, #graph.dims<"b", "n">>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<?x3x?xi1, #graph.dims<"b", "n">>, tensor<?x3x?xi64, #graph.dims<"b", "n">>)
func.func @any(%boxes: tensor<?x?x4xf32, #graph.dims<"b", "n">>, %scores: tensor<?x3x?xf32, #graph.dims<"b", "n">>, %max: tensor<i64>, %iou: tensor<f32>, %unused: tensor<f32>) -> tensor<?x3x?xi1, #graph.dims<"b", "n">> {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %unused : (tensor<?x?x4xf32, #graph.dims<"b", "n">>, tensor<?x3x?xf32, #graph.dims<"b", "n">>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<?x3x?xi1, #graph.dims<"b", "n">>, tensor<?x3x?xi64, #graph.dims<"b", "n">>)
  func.return %keep : tensor<?x3x?xi1, #graph.dims<"b", "n">>
}

// -----

// Boxes as centers and sizes.
// CHECK-LABEL: func.func @centers(
// CHECK-NEXT:    %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %threshold {thresholded = 1 : i64, center_point_box = 1 : i64} : (tensor<2x100x4xf32>, tensor<2x3x100xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<2x3x100xi1>, tensor<2x3x100xi64>)
func.func @centers(%boxes: tensor<2x100x4xf32>, %scores: tensor<2x3x100xf32>, %max: tensor<i64>, %iou: tensor<f32>, %threshold: tensor<f32>) -> tensor<2x3x100xi64> {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %threshold {thresholded = 1 : i64, center_point_box = 1 : i64} : (tensor<2x100x4xf32>, tensor<2x3x100xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<2x3x100xi1>, tensor<2x3x100xi64>)
  func.return %order : tensor<2x3x100xi64>
}
