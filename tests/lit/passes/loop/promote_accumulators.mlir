// RUN: minitvm-opt %s -p loop-promote-accumulators | filecheck %s
//
// Read-modify-write accesses at loop-invariant places become loop-carried values: loaded
// before the loop, stored after it. Anything the pass cannot prove safe stays as it is.

// A register block of two vectors: both carried, the index arithmetic moved out first.
// CHECK-LABEL: func.func @block(
// CHECK-SAME:    %[[A:\w+]]: memref<4x64xf32>, %[[B:\w+]]: memref<64x32xf32>, %[[C:\w+]]: memref<4x32xf32>, %[[I:\w+]]: index)
// CHECK-NEXT:    %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C16:\w+]] = arith.constant 16 : index
// CHECK-NEXT:    %[[X0:\w+]] = loop.vload %[[C]][%[[I]], %[[C0]]] : memref<4x32xf32> -> vector<16xf32>
// CHECK-NEXT:    %[[X1:\w+]] = loop.vload %[[C]][%[[I]], %[[C16]]] : memref<4x32xf32> -> vector<16xf32>
// CHECK-NEXT:    %[[R0:\w+]], %[[R1:\w+]] = loop.for %[[K:\w+]] = 0 to 64 step 1 iter_args(%[[ACC0:\w+]] = %[[X0]], %[[ACC1:\w+]] = %[[X1]]) -> (vector<16xf32>, vector<16xf32>) {
// CHECK-NEXT:      %[[AK:\w+]] = loop.load %[[A]][%[[I]], %[[K]]] : memref<4x64xf32> -> f32
// CHECK-NEXT:      %[[AV:\w+]] = loop.broadcast %[[AK]] : f32 -> vector<16xf32>
// CHECK-NEXT:      %[[B0:\w+]] = loop.vload %[[B]][%[[K]], %[[C0]]] : memref<64x32xf32> -> vector<16xf32>
// CHECK-NEXT:      %[[S0:\w+]] = math.fma %[[AV]], %[[B0]], %[[ACC0]] : vector<16xf32>
// CHECK-NEXT:      %[[B1:\w+]] = loop.vload %[[B]][%[[K]], %[[C16]]] : memref<64x32xf32> -> vector<16xf32>
// CHECK-NEXT:      %[[S1:\w+]] = math.fma %[[AV]], %[[B1]], %[[ACC1]] : vector<16xf32>
// CHECK-NEXT:      loop.yield %[[S0]], %[[S1]] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.vstore %[[R0]], %[[C]][%[[I]], %[[C0]]] : vector<16xf32>, memref<4x32xf32>
// CHECK-NEXT:    loop.vstore %[[R1]], %[[C]][%[[I]], %[[C16]]] : vector<16xf32>, memref<4x32xf32>
// CHECK-NEXT:    func.return
func.func @block(%A: memref<4x64xf32>, %B: memref<64x32xf32>, %C: memref<4x32xf32>, %i: index) {
  loop.for %k = 0 to 64 step 1 {
    %a = loop.load %A[%i, %k] : memref<4x64xf32> -> f32
    %av = loop.broadcast %a : f32 -> vector<16xf32>
    %c0 = arith.constant 0 : index
    %b0 = loop.vload %B[%k, %c0] : memref<64x32xf32> -> vector<16xf32>
    %x0 = loop.vload %C[%i, %c0] : memref<4x32xf32> -> vector<16xf32>
    %s0 = math.fma %av, %b0, %x0 : vector<16xf32>
    loop.vstore %s0, %C[%i, %c0] : vector<16xf32>, memref<4x32xf32>
    %c16 = arith.constant 16 : index
    %b1 = loop.vload %B[%k, %c16] : memref<64x32xf32> -> vector<16xf32>
    %x1 = loop.vload %C[%i, %c16] : memref<4x32xf32> -> vector<16xf32>
    %s1 = math.fma %av, %b1, %x1 : vector<16xf32>
    loop.vstore %s1, %C[%i, %c16] : vector<16xf32>, memref<4x32xf32>
  }
  func.return
}

// A scalar sum into an existing reduction's loop: the new value is carried after the old.
// Rows i and i + 1 (computed in the body) are distinct places.
// CHECK-LABEL: func.func @rows_and_iter_args(
// CHECK:         %[[T:\w+]], %[[Y0:\w+]], %[[Y1:\w+]] = loop.for %{{\w+}} = 0 to 8 step 1 iter_args(%{{\w+}} = %{{\w+}}, %{{\w+}} = %{{\w+}}, %{{\w+}} = %{{\w+}}) -> (f32, f32, f32) {
// CHECK-NOT:       loop.store
// CHECK:         }
// CHECK-NEXT:    loop.store %[[Y0]], %{{\w+}}[%{{\w+}}] : f32, memref<9xf32>
// CHECK-NEXT:    loop.store %[[Y1]], %{{\w+}}[%{{\w+}}] : f32, memref<9xf32>
// CHECK-NEXT:    loop.store %[[T]], %{{\w+}}[] : f32, memref<f32>
func.func @rows_and_iter_args(%x: memref<8xf32>, %y: memref<9xf32>, %total: memref<f32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  %t = loop.for %k = 0 to 8 step 1 iter_args(%acc = %zero) -> (f32) {
    %v = loop.load %x[%k] : memref<8xf32> -> f32
    %y0 = loop.load %y[%i] : memref<9xf32> -> f32
    %s0 = arith.addf %y0, %v : f32
    loop.store %s0, %y[%i] : f32, memref<9xf32>
    %one = arith.constant 1 : index
    %next = arith.addi %i, %one : index
    %y1 = loop.load %y[%next] : memref<9xf32> -> f32
    %s1 = arith.mulf %y1, %v : f32
    loop.store %s1, %y[%next] : f32, memref<9xf32>
    %sum = arith.addf %acc, %v : f32
    loop.yield %sum : f32
  }
  loop.store %t, %total[] : f32, memref<f32>
  func.return
}

// Nested loops (a k loop blocked in two): the inner loop's value is carried first, then
// the outer loop carries that.
// CHECK-LABEL: func.func @nested(
// CHECK:         %[[INIT:\w+]] = loop.load %[[Y:\w+]][%[[C1:\w+]]] : memref<4xf32> -> f32
// CHECK-NEXT:    %[[OUT:\w+]] = loop.for %{{\w+}} = 0 to 4 step 1 iter_args(%[[A:\w+]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:      %[[IN:\w+]] = loop.for %{{\w+}} = 0 to 2 step 1 iter_args(%[[B:\w+]] = %[[A]]) -> (f32) {
// CHECK-NEXT:        %[[S:\w+]] = arith.addf %[[B]], %{{\w+}} : f32
// CHECK-NEXT:        loop.yield %[[S]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.yield %[[IN]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    loop.store %[[OUT]], %[[Y]][%[[C1]]] : f32, memref<4xf32>
func.func @nested(%y: memref<4xf32>, %x: f32) {
  %c1 = arith.constant 1 : index
  loop.for %k = 0 to 4 step 1 {
    loop.for %j = 0 to 2 step 1 {
      %v = loop.load %y[%c1] : memref<4xf32> -> f32
      %s = arith.addf %v, %x : f32
      loop.store %s, %y[%c1] : f32, memref<4xf32>
    }
  }
  func.return
}

// Negative: vectors of 16 at elements 0 and 8 overlap; an index that changes with the loop;
// a parallel loop; the same buffer accessed in a nested loop too; a loop that never runs;
// the buffer passed to a call.
// CHECK-LABEL: func.func @unsafe(
// CHECK:         loop.for %{{\w+}} = 0 to 4 step 1 {
// CHECK:           loop.vstore
// CHECK:         loop.for %{{\w+}} = 0 to 4 step 1 {
// CHECK:           loop.store
// CHECK:         loop.for %{{\w+}} = 0 to 4 step 1 {
// CHECK:           loop.store
// CHECK:         } {parallel}
// CHECK-NEXT:    loop.for %{{\w+}} = 0 to 4 step 1 {
// CHECK-NEXT:      loop.load
// CHECK-NEXT:      loop.store
// CHECK-NEXT:      loop.for %{{\w+}} = 0 to 2 step 1 {
// CHECK-NEXT:        loop.load
// CHECK-NEXT:        loop.store
// CHECK:         loop.for %{{\w+}} = 0 to 0 step 1 {
// CHECK-NEXT:      loop.load
// CHECK-NEXT:      loop.store
// CHECK:         loop.for %{{\w+}} = 0 to 4 step 1 {
// CHECK-NEXT:      loop.load
// CHECK-NEXT:      loop.store
// CHECK-NEXT:      func.call @reads
func.func private @reads(memref<4xf32>) -> ()
func.func @unsafe(%C: memref<40xf32>, %y: memref<4xf32>) {
  loop.for %k = 0 to 4 step 1 {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %v = loop.vload %C[%c0] : memref<40xf32> -> vector<16xf32>
    loop.vstore %v, %C[%c8] : vector<16xf32>, memref<40xf32>
  }
  loop.for %k = 0 to 4 step 1 {
    %v = loop.load %y[%k] : memref<4xf32> -> f32
    loop.store %v, %y[%k] : f32, memref<4xf32>
  }
  %c1 = arith.constant 1 : index
  loop.for %k = 0 to 4 step 1 {
    %v = loop.load %y[%c1] : memref<4xf32> -> f32
    loop.store %v, %y[%c1] : f32, memref<4xf32>
  } {parallel}
  loop.for %k = 0 to 4 step 1 {
    %v = loop.load %y[%c1] : memref<4xf32> -> f32
    loop.store %v, %y[%c1] : f32, memref<4xf32>
    loop.for %j = 0 to 2 step 1 {
      %w = loop.load %y[%j] : memref<4xf32> -> f32
      loop.store %w, %y[%j] : f32, memref<4xf32>
    }
  }
  loop.for %k = 0 to 0 step 1 {
    %v = loop.load %y[%c1] : memref<4xf32> -> f32
    loop.store %v, %y[%c1] : f32, memref<4xf32>
  }
  loop.for %k = 0 to 4 step 1 {
    %v = loop.load %y[%c1] : memref<4xf32> -> f32
    loop.store %v, %y[%c1] : f32, memref<4xf32>
    func.call @reads(%y) : (memref<4xf32>) -> ()
  }
  func.return
}
