// convert-te-to-loop writes a graph.argsort into @main as a stable bottom-up merge sort of
// each row's positions: they start as 0..n-1, their keys copied beside them; each pass
// (width 1, 2, ... < n) merges pairs of sorted runs into scratch rows without a branch (the
// heads clamped into their runs, the right one taken only if it is still there and strictly
// better or the left is used up: ties keep their order), moving each position with its key,
// and copies them back.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<2x3xf32>, %1: memref<2x3xi64>) {
// CHECK-NEXT:    %[[SCRATCH:\d+]] = loop.alloc : memref<3xi64>
// CHECK-NEXT:    %[[KEYS:\d+]] = loop.alloc : memref<3xf32>
// CHECK-NEXT:    %[[MERGED_KEYS:\d+]] = loop.alloc : memref<3xf32>
// CHECK:         loop.for %[[R:\d+]] = 0 to 2 step 1 {
// The positions 0..n-1, and their keys copied into a row of their own.
// CHECK-NEXT:      loop.for %[[T:\d+]] = 0 to 3 step 1 {
// CHECK-NEXT:        %[[AT:\d+]] = arith.index_cast %[[T]] : index to i64
// CHECK-NEXT:        loop.store %[[AT]], %1[%[[R]], %[[T]]] : i64, memref<2x3xi64>
// CHECK-NEXT:        %[[KEY:\d+]] = loop.load %0[%[[R]], %[[T]]] : memref<2x3xf32> -> f32
// CHECK-NEXT:        loop.store %[[KEY]], %[[KEYS]][%[[T]]] : f32, memref<3xf32>
// CHECK-NEXT:      }
// A merge compares the keys beside the positions (no read of x at a position) and moves both.
// CHECK:           loop.for %{{\d+}} = 0 to 2 step 1 {
// CHECK:             %{{\d+}}, %{{\d+}} = loop.for %[[S:\d+]] = 0 to %{{\d+}} (at most 3) step 1 iter_args(%[[I:\d+]] = %[[LO:\d+]], %[[J:\d+]] = %[[MID:\d+]]) -> (index, index) {
// CHECK-NEXT:          %[[IC:\d+]] = arith.minsi %[[I]], %{{\d+}} : index
// CHECK-NEXT:          %[[JC:\d+]] = arith.minsi %[[J]], %{{\d+}} : index
// CHECK-NEXT:          %[[LEFT:\d+]] = loop.load %1[%[[R]], %[[IC]]] : memref<2x3xi64> -> i64
// CHECK-NEXT:          %[[RIGHT:\d+]] = loop.load %1[%[[R]], %[[JC]]] : memref<2x3xi64> -> i64
// CHECK-NEXT:          %[[LV:\d+]] = loop.load %[[KEYS]][%[[IC]]] : memref<3xf32> -> f32
// CHECK-NEXT:          %[[RV:\d+]] = loop.load %[[KEYS]][%[[JC]]] : memref<3xf32> -> f32
// CHECK-NEXT:          %[[BETTER:\d+]] = arith.cmpf ogt, %[[RV]], %[[LV]] : f32
// CHECK-NEXT:          %[[LEFT_DONE:\d+]] = arith.cmpi sge, %[[I]], %[[MID]] : index
// CHECK-NEXT:          %[[THERE:\d+]] = arith.cmpi slt, %[[J]], %{{\d+}} : index
// CHECK-NEXT:          %[[EITHER:\d+]] = arith.ori %[[LEFT_DONE]], %[[BETTER]] : i1
// CHECK-NEXT:          %[[TAKE:\d+]] = arith.andi %[[THERE]], %[[EITHER]] : i1
// CHECK-NEXT:          %[[TO:\d+]] = arith.addi %[[LO]], %[[S]] : index
// CHECK-NEXT:          %[[PICK:\d+]] = arith.select %[[TAKE]], %[[RIGHT]], %[[LEFT]] : i64
// CHECK-NEXT:          loop.store %[[PICK]], %[[SCRATCH]][%[[TO]]] : i64, memref<3xi64>
// CHECK-NEXT:          %[[PICK_KEY:\d+]] = arith.select %[[TAKE]], %[[RV]], %[[LV]] : f32
// CHECK-NEXT:          loop.store %[[PICK_KEY]], %[[MERGED_KEYS]][%[[TO]]] : f32, memref<3xf32>
// CHECK:             }
// CHECK:           loop.for %[[C:\d+]] = 0 to 3 step 1 {
// CHECK-NEXT:        %[[V:\d+]] = loop.load %[[SCRATCH]][%[[C]]] : memref<3xi64> -> i64
// CHECK-NEXT:        loop.store %[[V]], %1[%[[R]], %[[C]]] : i64, memref<2x3xi64>
// CHECK-NEXT:        %[[VK:\d+]] = loop.load %[[MERGED_KEYS]][%[[C]]] : memref<3xf32> -> f32
// CHECK-NEXT:        loop.store %[[VK]], %[[KEYS]][%[[C]]] : f32, memref<3xf32>
// CHECK-NEXT:      }
// CHECK:           loop.for %{{\d+}} = 0 to 1 step 1 {
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xi64> {
  %i = graph.argsort %x {descending = 1 : i64} : tensor<2x3xf32> -> tensor<2x3xi64>
  func.return %i : tensor<2x3xi64>
}
