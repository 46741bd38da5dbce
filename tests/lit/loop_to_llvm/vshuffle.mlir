// convert-loop-to-llvm, loop.vshuffle: llvm.shufflevector with the same operands and mask.
// The result may have another lane count than the operands (xDSL's custom printer shows
// only the operands' type, so the generic form pins the result type), and LLVM IR gets a
// `shufflevector` with a <N x i32> mask.
// RUN: minitvm-opt %s -p convert-loop-to-llvm | filecheck %s
// RUN: minitvm-opt %s -p convert-loop-to-llvm --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: minitvm-opt %s -p convert-loop-to-llvm -t llvm | filecheck %s --check-prefix=IR

// Lanes of both operands, fewer than they have.
// CHECK-LABEL: llvm.func @pick(
// CHECK-SAME:    %[[A:[^:]*]]: vector<16xf32>, %[[B:[^:]*]]: vector<16xf32>) -> vector<4xf32> {
// CHECK:         %[[R:.*]] = llvm.shufflevector %[[A]], %[[B]] [0, 16, 1, 17] : vector<16xf32>
// CHECK-NEXT:    llvm.return %[[R]] : vector<4xf32>
// GENERIC-LABEL: sym_name = "pick"
// GENERIC:         "llvm.shufflevector"(%{{.*}}, %{{.*}}) <{mask = array<i32: 0, 16, 1, 17>}> : (vector<16xf32>, vector<16xf32>) -> vector<4xf32>
// IR-LABEL: define <4 x float> @"pick"(<16 x float> %{{.*}}, <16 x float> %{{.*}})
// IR:         shufflevector <16 x float> %{{.*}}, <16 x float> %{{.*}}, <4 x i32> <i32 0, i32 16, i32 1, i32 17>
func.func @pick(%a: vector<16xf32>, %b: vector<16xf32>) -> vector<4xf32> {
  %r = loop.vshuffle %a, %b [0, 16, 1, 17] : vector<16xf32> -> vector<4xf32>
  func.return %r : vector<4xf32>
}

// Two vectors joined into one twice as long, integer lanes.
// CHECK-LABEL: llvm.func @join(
// CHECK-SAME:    %[[A:[^:]*]]: vector<4xi64>, %[[B:[^:]*]]: vector<4xi64>) -> vector<8xi64> {
// CHECK:         %[[R:.*]] = llvm.shufflevector %[[A]], %[[B]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xi64>
// CHECK-NEXT:    llvm.return %[[R]] : vector<8xi64>
// GENERIC-LABEL: sym_name = "join"
// GENERIC:         "llvm.shufflevector"(%{{.*}}, %{{.*}}) <{mask = array<i32: 0, 1, 2, 3, 4, 5, 6, 7>}> : (vector<4xi64>, vector<4xi64>) -> vector<8xi64>
// IR-LABEL: define <8 x i64> @"join"(
// IR:         shufflevector <4 x i64> %{{.*}}, <4 x i64> %{{.*}}, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
func.func @join(%a: vector<4xi64>, %b: vector<4xi64>) -> vector<8xi64> {
  %r = loop.vshuffle %a, %b [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xi64> -> vector<8xi64>
  func.return %r : vector<8xi64>
}

// One round of a 4 x 4 register transpose inside a kernel: vector loads of two source
// rows, the shuffle of their values, a vector store.
// CHECK-LABEL: llvm.func @round(
// CHECK-SAME:    %[[A:[^:]*]]: !llvm.ptr {llvm.noalias}, %[[B:[^:]*]]: !llvm.ptr {llvm.noalias}) {
// CHECK:         %[[R0:.*]] = llvm.load %[[A]] {alignment = 4 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK-NEXT:    %[[P1:.*]] = llvm.getelementptr inbounds %[[A]][4] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[R1:.*]] = llvm.load %[[P1]] {alignment = 4 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK-NEXT:    %[[LOW:.*]] = llvm.shufflevector %[[R0]], %[[R1]] [0, 4, 2, 6] : vector<4xf32>
// CHECK-NEXT:    llvm.store %[[LOW]], %[[B]] {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-NEXT:    llvm.return
func.func @round(%A: memref<4x4xf32>, %B: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r0 = loop.vload %A[%c0, %c0] : memref<4x4xf32> -> vector<4xf32>
  %r1 = loop.vload %A[%c1, %c0] : memref<4x4xf32> -> vector<4xf32>
  %low = loop.vshuffle %r0, %r1 [0, 4, 2, 6] : vector<4xf32> -> vector<4xf32>
  loop.vstore %low, %B[%c0, %c0] : vector<4xf32>, memref<4x4xf32>
  func.return
}
