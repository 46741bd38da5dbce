// RUN: minitvm-opt %s -p graph-dce | filecheck %s

// A dead chain goes in one run: the walk is backwards and revisits operands.
// CHECK-LABEL: func.func @dead_chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32>
func.func @dead_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : tensor<4xf32>
  %1 = graph.exp %0 : tensor<4xf32>
  %c = graph.constant dense<2.000000e+00> : tensor<4xf32>
  %2 = graph.mul %1, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @dead_constants
// CHECK-NEXT:    %[[USED:.*]] = graph.constant dense<[1, 2]> : tensor<2xi64>
// CHECK-NEXT:    func.return %[[USED]] : tensor<2xi64>
func.func @dead_constants() -> tensor<2xi64> {
  %dead = graph.constant dense<0.000000e+00> : tensor<8x8xf32>
  %used = graph.constant dense<[1, 2]> : tensor<2xi64>
  %also_dead = graph.constant dense<[3, 4]> : tensor<2xi64>
  func.return %used : tensor<2xi64>
}

// Negative: a multi-result op with one used result stays, whole.
// CHECK-LABEL: func.func @partly_used_results
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8xf32>, %[[S:.*]]: tensor<8xf32>)
// CHECK-NEXT:    %[[A:.*]], %{{.*}} = graph.split %[[X]]
// CHECK-NEXT:    %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_norm %[[A]], %[[S]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @partly_used_results(%x: tensor<2x8xf32>, %s: tensor<8xf32>) -> tensor<1x8xf32> {
  %a, %b = graph.split %x {axis = 0 : i64, sizes = array<i64: 1, 1>} : tensor<2x8xf32> -> tensor<1x8xf32>, tensor<1x8xf32>
  %y, %mean, %inv = graph.layer_norm %a, %s {axis = 1 : i64} : (tensor<1x8xf32>, tensor<8xf32>) -> (tensor<1x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  func.return %y : tensor<1x8xf32>
}

// Negative: ops of other dialects are not graph-dce's business (xDSL's `dce` covers them).
// CHECK-LABEL: func.func @other_dialects
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : i64
// CHECK-NEXT:    func.return
func.func @other_dialects(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.constant 1 : i64
  %1 = graph.neg %x : tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// Everything dead: only the return is left.
// CHECK-LABEL: func.func @all_dead
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT:    func.return %[[X]]
func.func @all_dead(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %w = graph.constant dense<1.000000e-01> : tensor<4x3x3x3xf32>
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.global_avg_pool %0 : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  func.return %x : tensor<1x3x8x8xf32>
}
