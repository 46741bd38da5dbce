// Every loop op in its custom form, printed back exactly: loop.for with and without
// iter_args and with its hint attributes after the region, loop.if, scalar and vector
// accesses of several element types, loop.prefetch, loop.broadcast, loop.alloc, loop.constant
// with inline, splat and out-of-line values (and the dialect_resources section), loop.copy,
// loop.view, loop.sections.
// The three runs must agree: parse -> print, print -> parse -> print, and generic form in ->
// custom form out (so the generic printer and parser lose nothing either).
//
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s
//
// Names inside a line are captured as \w+ (a greedy .* would run on to a later "%").

// CHECK: builtin.module {

// loop.for without iter_args prints no terminator (an empty loop.yield is implied, and
// an explicit one is elided); attributes follow the region. With iter_args the body ends in
// an explicit loop.yield and the loop has one result per carried value.
// CHECK-LABEL: func.func @loops(
// CHECK-SAME:    %[[A:\w+]]: memref<64x16xf32>, %[[OUT:\w+]]: memref<64xf32>) attributes {loop.kernel} {
func.func @loops(%A: memref<64x16xf32>, %out: memref<64xf32>) attributes {loop.kernel} {
  // CHECK-NEXT: loop.for %[[I:\w+]] = 0 to 64 step 16 {
  // CHECK-NEXT:   loop.for %[[II:\w+]] = 0 to 16 step 1 {
  // CHECK-NEXT:     %[[ROW:\w+]] = arith.addi %[[I]], %[[II]] : index
  // CHECK-NEXT:     %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT:     %[[SUM:\w+]], %[[COUNT:\w+]] = loop.for %[[J:\w+]] = 0 to 16 step 1 iter_args(%[[ACC:\w+]] = %[[ZERO]], %[[N:\w+]] = %[[ZERO]]) -> (f32, f32) {
  // CHECK-NEXT:       %[[V:\w+]] = loop.load %[[A]][%[[ROW]], %[[J]]] : memref<64x16xf32> -> f32
  // CHECK-NEXT:       %[[NEXT:\w+]] = arith.addf %[[ACC]], %[[V]] : f32
  // CHECK-NEXT:       %[[ONE:\w+]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT:       %[[N1:\w+]] = arith.addf %[[N]], %[[ONE]] : f32
  // CHECK-NEXT:       loop.yield %[[NEXT]], %[[N1]] : f32, f32
  // CHECK-NEXT:     } {unroll}
  // CHECK-NEXT:     %[[MEAN:\w+]] = arith.divf %[[SUM]], %[[COUNT]] : f32
  // CHECK-NEXT:     loop.store %[[MEAN]], %[[OUT]][%[[ROW]]] : f32, memref<64xf32>
  // CHECK-NEXT:   } {vectorize}
  // CHECK-NEXT: } {parallel}
  loop.for %i = 0 to 64 step 16 {
    loop.for %ii = 0 to 16 step 1 {
      %row = arith.addi %i, %ii : index
      %zero = arith.constant 0.0 : f32
      %sum, %count = loop.for %j = 0 to 16 step 1 iter_args(%acc = %zero, %n = %zero) -> (f32, f32) {
        %v = loop.load %A[%row, %j] : memref<64x16xf32> -> f32
        %next = arith.addf %acc, %v : f32
        %one = arith.constant 1.0 : f32
        %n1 = arith.addf %n, %one : f32
        loop.yield %next, %n1 : f32, f32
      } {unroll}
      %mean = arith.divf %sum, %count : f32
      loop.store %mean, %out[%row] : f32, memref<64xf32>
      loop.yield
    } {vectorize}
  } {parallel}
  // Bounds need not start at 0; an empty range is valid; several attributes; carried values
  // of different types (one of them an index). A result group %last:2 prints as two names.
  // CHECK-NEXT: loop.for %[[K:\w+]] = 3 to 3 step 2 {
  // CHECK-NEXT: } {parallel, unroll}
  loop.for %k = 3 to 3 step 2 {
  } {parallel, unroll}
  // CHECK-NEXT: %[[Z:\w+]] = arith.constant 0 : index
  // CHECK-NEXT: %[[F:\w+]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT: %[[L0:\w+]], %[[L1:\w+]] = loop.for %[[M:\w+]] = 5 to 17 step 4 iter_args(%[[IDX:\w+]] = %[[Z]], %[[X:\w+]] = %[[F]]) -> (index, f32) {
  // CHECK-NEXT:   loop.yield %[[M]], %[[X]] : index, f32
  // CHECK-NEXT: }
  %z = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %last:2 = loop.for %m = 5 to 17 step 4 iter_args(%idx = %z, %x = %f) -> (index, f32) {
    loop.yield %m, %x : index, f32
  }
  // CHECK-NEXT: loop.store %[[L1]], %[[OUT]][%[[L0]]] : f32, memref<64xf32>
  loop.store %last#1, %out[%last#0] : f32, memref<64xf32>
  // CHECK-NEXT: func.return
  // CHECK-NEXT: }
  func.return
}

// loop.if prints no terminator either; its attributes follow the region.
// CHECK-LABEL: func.func @guards(
// CHECK-SAME:    %[[B:\w+]]: memref<10xf32>, %[[N2:\w+]]: f32)
func.func @guards(%b: memref<10xf32>, %n2: f32) {
  // CHECK-NEXT: loop.for %[[I:\w+]] = 0 to 12 step 1 {
  // CHECK-NEXT:   %[[N:\w+]] = arith.constant 10 : index
  // CHECK-NEXT:   %[[IN:\w+]] = arith.cmpi slt, %[[I]], %[[N]] : index
  // CHECK-NEXT:   loop.if %[[IN]] {
  // CHECK-NEXT:     %[[V:\w+]] = loop.load %[[B]][%[[I]]] : memref<10xf32> -> f32
  // CHECK-NEXT:     %[[W:\w+]] = arith.negf %[[V]] : f32
  // CHECK-NEXT:     loop.store %[[W]], %[[B]][%[[I]]] : f32, memref<10xf32>
  // CHECK-NEXT:   }
  // CHECK-NEXT:   loop.if %[[IN]] {
  // CHECK-NEXT:     loop.store %[[N2]], %[[B]][%[[I]]] : f32, memref<10xf32>
  // CHECK-NEXT:   } {likely}
  // CHECK-NEXT: }
  loop.for %i = 0 to 12 step 1 {
    %n = arith.constant 10 : index
    %in = arith.cmpi slt, %i, %n : index
    loop.if %in {
      %v = loop.load %b[%i] : memref<10xf32> -> f32
      %w = arith.negf %v : f32
      loop.store %w, %b[%i] : f32, memref<10xf32>
      loop.yield
    }
    loop.if %in {
      loop.store %n2, %b[%i] : f32, memref<10xf32>
    } {likely}
  }
  // CHECK-NEXT: func.return
  func.return
}

// Scalar accesses of several element types and ranks (rank 0 takes no index); vector
// accesses along the innermost dimension, a broadcast and a vector accumulator.
// CHECK-LABEL: func.func @accesses(
// CHECK-SAME:    %[[S:\w+]]: memref<f32>, %[[IDS:\w+]]: memref<8xi64>, %[[MASK:\w+]]: memref<2x8xi1>, %[[X:\w+]]: memref<4x32xf32>, %[[Y:\w+]]: memref<4x32xf32>)
func.func @accesses(%s: memref<f32>, %ids: memref<8xi64>, %mask: memref<2x8xi1>, %x: memref<4x32xf32>, %y: memref<4x32xf32>) {
  // CHECK-NEXT: %[[C0:\w+]] = arith.constant 0 : index
  // CHECK-NEXT: %[[C1:\w+]] = arith.constant 1 : index
  // CHECK-NEXT: %[[SV:\w+]] = loop.load %[[S]][] : memref<f32> -> f32
  // CHECK-NEXT: loop.store %[[SV]], %[[S]][] : f32, memref<f32>
  // CHECK-NEXT: %[[ID:\w+]] = loop.load %[[IDS]][%[[C1]]] : memref<8xi64> -> i64
  // CHECK-NEXT: loop.store %[[ID]], %[[IDS]][%[[C0]]] : i64, memref<8xi64>
  // CHECK-NEXT: %[[BIT:\w+]] = loop.load %[[MASK]][%[[C0]], %[[C1]]] : memref<2x8xi1> -> i1
  // CHECK-NEXT: loop.store %[[BIT]], %[[MASK]][%[[C1]], %[[C0]]] {nontemporal} : i1, memref<2x8xi1>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sv = loop.load %s[] : memref<f32> -> f32
  loop.store %sv, %s[] : f32, memref<f32>
  %id = loop.load %ids[%c1] : memref<8xi64> -> i64
  loop.store %id, %ids[%c0] : i64, memref<8xi64>
  %bit = loop.load %mask[%c0, %c1] : memref<2x8xi1> -> i1
  loop.store %bit, %mask[%c1, %c0] {nontemporal} : i1, memref<2x8xi1>
  // CHECK-NEXT: loop.prefetch %[[X]][%[[C1]], %[[C0]]] : memref<4x32xf32>
  loop.prefetch %x[%c1, %c0] : memref<4x32xf32>
  // CHECK-NEXT: %[[SPLAT:\w+]] = loop.broadcast %[[SV]] : f32 -> vector<16xf32>
  // CHECK-NEXT: loop.for %[[R:\w+]] = 0 to 4 step 1 {
  // CHECK-NEXT:   %[[ACC:\w+]] = loop.for %[[J:\w+]] = 0 to 32 step 16 iter_args(%[[A:\w+]] = %[[SPLAT]]) -> (vector<16xf32>) {
  // CHECK-NEXT:     %[[VX:\w+]] = loop.vload %[[X]][%[[R]], %[[J]]] : memref<4x32xf32> -> vector<16xf32>
  // CHECK-NEXT:     %[[VY:\w+]] = loop.vload %[[Y]][%[[R]], %[[J]]] {aligned} : memref<4x32xf32> -> vector<16xf32>
  // CHECK-NEXT:     %[[FMA:\w+]] = math.fma %[[VX]], %[[VY]], %[[A]] : vector<16xf32>
  // CHECK-NEXT:     loop.vstore %[[FMA]], %[[Y]][%[[R]], %[[J]]] : vector<16xf32>, memref<4x32xf32>
  // CHECK-NEXT:     loop.yield %[[FMA]] : vector<16xf32>
  // CHECK-NEXT:   } {vectorize}
  // CHECK-NEXT:   loop.vstore %[[ACC]], %[[X]][%[[R]], %[[C0]]] {aligned} : vector<16xf32>, memref<4x32xf32>
  // CHECK-NEXT: }
  %splat = loop.broadcast %sv : f32 -> vector<16xf32>
  loop.for %r = 0 to 4 step 1 {
    %acc = loop.for %j = 0 to 32 step 16 iter_args(%a = %splat) -> (vector<16xf32>) {
      %vx = loop.vload %x[%r, %j] : memref<4x32xf32> -> vector<16xf32>
      %vy = loop.vload %y[%r, %j] {aligned} : memref<4x32xf32> -> vector<16xf32>
      %fma = math.fma %vx, %vy, %a : vector<16xf32>
      loop.vstore %fma, %y[%r, %j] : vector<16xf32>, memref<4x32xf32>
      loop.yield %fma : vector<16xf32>
    } {vectorize}
    loop.vstore %acc, %x[%r, %c0] {aligned} : vector<16xf32>, memref<4x32xf32>
  }
  // CHECK-NEXT: func.return
  func.return
}

// Buffers: scratch (loop.alloc) and constants, inline (dense<...> : tensor type, then the
// buffer type), splat (#graph.splat) or out of line (#graph.weights<key>, its bytes in the
// file's dialect_resources section); loop.copy between buffers of one type; loop.view, another
// shape over a buffer's bytes from an element on.
// CHECK-LABEL: func.func @buffers(
// CHECK-SAME:    %[[OUT:\w+]]: memref<2x3xf32>)
func.func @buffers(%out: memref<2x3xf32>) {
  // CHECK-NEXT: %[[T:\w+]] = loop.alloc : memref<2x3xf32>
  // CHECK-NEXT: %[[T0:\w+]] = loop.alloc : memref<f32>
  // CHECK-NEXT: %[[DF:\w+]] = loop.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32> : memref<2x3xf32>
  // CHECK-NEXT: %[[DS:\w+]] = loop.constant dense<1.500000e+00> : tensor<2x3xf32> : memref<2x3xf32>
  // CHECK-NEXT: %[[DI:\w+]] = loop.constant dense<[1, -2, 9223372036854775807]> : tensor<3xi64> : memref<3xi64>
  // CHECK-NEXT: %[[DB:\w+]] = loop.constant dense<[true, false, true, true]> : tensor<4xi1> : memref<4xi1>
  // CHECK-NEXT: %[[SF:\w+]] = loop.constant #graph.splat<-5.000000e-01 : f32> : memref<2x3xf32>
  // CHECK-NEXT: %[[SI:\w+]] = loop.constant #graph.splat<7 : i64> : memref<16xi64>
  // CHECK-NEXT: %[[W:\w+]] = loop.constant #graph.weights<fc_w_4e97e43c9439> : memref<4xf32>
  // CHECK-NEXT: %[[WI:\w+]] = loop.constant #graph.weights<idx_0b6f7d5d138f> {name = "idx"} : memref<2x3xi64>
  // CHECK-NEXT: loop.copy %[[DF]], %[[T]] : memref<2x3xf32>, memref<2x3xf32>
  // CHECK-NEXT: loop.copy %[[T]], %[[OUT]] {note} : memref<2x3xf32>, memref<2x3xf32>
  // CHECK-NEXT: %[[R:\w+]] = loop.view %[[T]][0] : memref<2x3xf32> to memref<6xf32>
  // CHECK-NEXT: %[[P:\w+]] = loop.view %[[SI]][8] {note} : memref<16xi64> to memref<1x8xi64>
  // CHECK-NEXT: func.return
  // CHECK-NEXT: }
  %t = loop.alloc : memref<2x3xf32>
  %t0 = loop.alloc : memref<f32>
  %df = loop.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> : memref<2x3xf32>
  %ds = loop.constant dense<1.5> : tensor<2x3xf32> : memref<2x3xf32>
  %di = loop.constant dense<[1, -2, 9223372036854775807]> : tensor<3xi64> : memref<3xi64>
  %db = loop.constant dense<[true, false, true, true]> : tensor<4xi1> : memref<4xi1>
  %sf = loop.constant #graph.splat<-0.5 : f32> : memref<2x3xf32>
  %si = loop.constant #graph.splat<7 : i64> : memref<16xi64>
  %w = loop.constant #graph.weights<fc_w_4e97e43c9439> : memref<4xf32>
  %wi = loop.constant #graph.weights<idx_0b6f7d5d138f> {name = "idx"} : memref<2x3xi64>
  loop.copy %df, %t : memref<2x3xf32>, memref<2x3xf32>
  loop.copy %t, %out {note} : memref<2x3xf32>, memref<2x3xf32>
  %r = loop.view %t[0] : memref<2x3xf32> to memref<6xf32>
  %p = loop.view %si[8] {note} : memref<16xi64> to memref<1x8xi64>
  func.return
}

// loop.sections: two sections or more, each a region that prints no terminator (an empty one
// too), then the op's attributes after the keyword `attributes` (a bare dict would be read as
// one more section).
// CHECK-LABEL: func.func @sections(
// CHECK-SAME:    %[[A:\w+]]: memref<4xf32>, %[[B:\w+]]: memref<4xf32>)
// CHECK-NEXT:  loop.sections {
// CHECK-NEXT:    loop.copy %[[A]], %[[B]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:  } {
// CHECK-NEXT:  } {
// CHECK-NEXT:    %[[T:\w+]] = loop.threads
// CHECK-NEXT:  } attributes {note}
// CHECK-NEXT:  func.return
func.func @sections(%a: memref<4xf32>, %b: memref<4xf32>) {
  loop.sections {
    loop.copy %a, %b : memref<4xf32>, memref<4xf32>
  } {
  } {
    %t = loop.threads
  } attributes {note}
  func.return
}

// loop.while reads its rank-0 i1 flag before each iteration; its body prints no terminator.
// CHECK-LABEL: func.func @countdown(
// CHECK-SAME:    %[[F:\w+]]: memref<i1>, %[[N:\w+]]: memref<i64>)
func.func @countdown(%flag: memref<i1>, %n: memref<i64>) {
  // CHECK-NEXT: loop.while %[[F]] : memref<i1> {
  // CHECK-NEXT:   %[[V:\w+]] = loop.load %[[N]][] : memref<i64> -> i64
  // CHECK-NEXT:   %[[ONE:\w+]] = arith.constant 1 : i64
  // CHECK-NEXT:   %[[W:\w+]] = arith.subi %[[V]], %[[ONE]] : i64
  // CHECK-NEXT:   loop.store %[[W]], %[[N]][] : i64, memref<i64>
  // CHECK-NEXT:   %[[ZERO:\w+]] = arith.constant 0 : i64
  // CHECK-NEXT:   %[[MORE:\w+]] = arith.cmpi sgt, %[[W]], %[[ZERO]] : i64
  // CHECK-NEXT:   loop.store %[[MORE]], %[[F]][] : i1, memref<i1>
  // CHECK-NEXT: } {note = "kept"}
  // CHECK-NEXT: func.return
  // CHECK-NEXT: }
  loop.while %flag : memref<i1> {
    %v = loop.load %n[] : memref<i64> -> i64
    %one = arith.constant 1 : i64
    %w = arith.subi %v, %one : i64
    loop.store %w, %n[] : i64, memref<i64>
    %zero = arith.constant 0 : i64
    %more = arith.cmpi sgt, %w, %zero : i64
    loop.store %more, %flag[] : i1, memref<i1>
  } {note = "kept"}
  func.return
}

// CHECK-NEXT: }

// The blobs come back byte for byte (xDSL 0.75 puts all keys of a dialect on one line;
// either layout parses).
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     graph: {
// CHECK-NEXT:       fc_w_4e97e43c9439: "0x080000000000803f0000004000004040000000bf",
// CHECK:            idx_0b6f7d5d138f: "0x08000000000000000000000001000000000000000200000000000000030000000000000004000000000000000500000000000000"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
{-#
  dialect_resources: {
    graph: {
      fc_w_4e97e43c9439: "0x080000000000803f0000004000004040000000bf",
      idx_0b6f7d5d138f: "0x08000000000000000000000001000000000000000200000000000000030000000000000004000000000000000500000000000000"
    }
  }
#-}

