// graph.greedy_nms in wrong IR: each error names what is wrong.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK:      {{^}}graph.greedy_nms: boxes must be [batch, boxes, 4] of f32, 1x8x4, got tensor<1x4x8xf32>{{$}}
func.func @four_rows(%boxes: tensor<1x4x8xf32>, %scores: tensor<1x2x8xf32>, %max: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %t : (tensor<1x4x8xf32>, tensor<1x2x8xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<1x2x8xi1>, tensor<1x2x8xi64>)
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.greedy_nms: scores must be [batch, classes, boxes] of f32, got tensor<2x8xf32>{{$}}
func.func @flat_scores(%boxes: tensor<2x8x4xf32>, %scores: tensor<2x8xf32>, %max: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %t : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<2x8xi1>, tensor<2x8xi64>)
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.greedy_nms: max_boxes must be a tensor<i64> (a scalar), got tensor<1xi64>{{$}}
func.func @max_not_scalar(%boxes: tensor<1x8x4xf32>, %scores: tensor<1x2x8xf32>, %max: tensor<1xi64>, %iou: tensor<f32>, %t: tensor<f32>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %t : (tensor<1x8x4xf32>, tensor<1x2x8xf32>, tensor<1xi64>, tensor<f32>, tensor<f32>) -> (tensor<1x2x8xi1>, tensor<1x2x8xi64>)
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.greedy_nms: thresholded must be 0 or 1, got 2{{$}}
func.func @flag(%boxes: tensor<1x8x4xf32>, %scores: tensor<1x2x8xf32>, %max: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %t {thresholded = 2 : i64} : (tensor<1x8x4xf32>, tensor<1x2x8xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<1x2x8xi1>, tensor<1x2x8xi64>)
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.greedy_nms: result #1 should be tensor<1x2x8xi64> but is declared tensor<1x2x8xi32>{{$}}
func.func @order_type(%boxes: tensor<1x8x4xf32>, %scores: tensor<1x2x8xf32>, %max: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %t : (tensor<1x8x4xf32>, tensor<1x2x8xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<1x2x8xi1>, tensor<1x2x8xi32>)
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.greedy_nms: center_point_box must be 0 or 1, got 3{{$}}
func.func @center_flag(%boxes: tensor<1x8x4xf32>, %scores: tensor<1x2x8xf32>, %max: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %t {center_point_box = 3 : i64} : (tensor<1x8x4xf32>, tensor<1x2x8xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<1x2x8xi1>, tensor<1x2x8xi64>)
  func.return
}
