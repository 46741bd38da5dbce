// RUN: minitvm-opt %s --split-input-file -p graph-widen-bf16 | filecheck %s

// Arithmetic on bf16 runs on f32 between casts; each bf16 value is widened once (%b feeds
// add and less through one cast); results are rounded back to bf16 after every op, as
// ONNX Runtime rounds; value moves (reshape) and i1 results keep their types.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[A:\w+]]: tensor<4xbf16>, %[[B:\w+]]: tensor<4xbf16>
// CHECK-NEXT:    %[[A32:\w+]] = graph.cast %[[A]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT:    %[[B32:\w+]] = graph.cast %[[B]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT:    %[[SUM:\w+]] = graph.add %[[A32]], %[[B32]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SUM16:\w+]] = graph.cast %[[SUM]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT:    %[[SUM32:\w+]] = graph.cast %[[SUM16]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT:    %[[RELU:\w+]] = graph.relu %[[SUM32]] : tensor<4xf32>
// CHECK-NEXT:    %[[RELU16:\w+]] = graph.cast %[[RELU]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT:    %[[RELU32:\w+]] = graph.cast %[[RELU16]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT:    %[[LT:\w+]] = graph.less %[[RELU32]], %[[B32]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %[[FLAT:\w+]] = graph.reshape %[[RELU16]] : tensor<4xbf16> to tensor<2x2xbf16>
// CHECK-NEXT:    func.return %[[RELU16]], %[[LT]], %[[FLAT]] : tensor<4xbf16>, tensor<4xi1>, tensor<2x2xbf16>
func.func @main(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xi1>, tensor<2x2xbf16>) {
  %0 = graph.add %a, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %1 = graph.relu %0 : tensor<4xbf16>
  %2 = graph.less %1, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
  %3 = graph.reshape %1 : tensor<4xbf16> to tensor<2x2xbf16>
  func.return %1, %2, %3 : tensor<4xbf16>, tensor<4xi1>, tensor<2x2xbf16>
}

// -----

// f32 code is left alone.
// CHECK-LABEL: func.func @f32(
// CHECK-NEXT:    %[[Y:\w+]] = graph.relu %{{\w+}} : tensor<4xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4xf32>
func.func @f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
