// RUN: minitvm-opt %s -p loop-unroll | filecheck %s
// RUN: minitvm-opt %s -p 'loop-unroll{max-trip-count=2}' | filecheck %s --check-prefix=SMALL

// Each iteration is a copy of the body with the induction variable an index constant.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME:    %[[X:\w+]]: memref<3xf32>, %[[Y:\w+]]: memref<3xf32>)
// CHECK-NEXT:    %[[I0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[V0:\w+]] = loop.load %[[X]][%[[I0]]] : memref<3xf32> -> f32
// CHECK-NEXT:    loop.store %[[V0]], %[[Y]][%[[I0]]] : f32, memref<3xf32>
// CHECK-NEXT:    %[[I1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[V1:\w+]] = loop.load %[[X]][%[[I1]]] : memref<3xf32> -> f32
// CHECK-NEXT:    loop.store %[[V1]], %[[Y]][%[[I1]]] : f32, memref<3xf32>
// CHECK-NEXT:    %[[I2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[V2:\w+]] = loop.load %[[X]][%[[I2]]] : memref<3xf32> -> f32
// CHECK-NEXT:    loop.store %[[V2]], %[[Y]][%[[I2]]] : f32, memref<3xf32>
// CHECK-NEXT:    func.return
// SMALL-LABEL: func.func @plain(
// SMALL-NEXT:    loop.for %{{\w+}} = 0 to 3 step 1 {
func.func @plain(%x: memref<3xf32>, %y: memref<3xf32>) {
  loop.for %i = 0 to 3 step 1 {
    %v = loop.load %x[%i] : memref<3xf32> -> f32
    loop.store %v, %y[%i] : f32, memref<3xf32>
  } {unroll}
  func.return
}

// iter_args: each copy's yield feeds the next copy; the loop's result is the last yield.
// Bounds and step other than 0 and 1 give the constants the loop would have counted.
// CHECK-LABEL: func.func @carried(
// CHECK-SAME:    %[[X:\w+]]: memref<8xf32>, %[[OUT:\w+]]: memref<f32>)
// CHECK-NEXT:    %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[I2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[A:\w+]] = loop.load %[[X]][%[[I2]]] : memref<8xf32> -> f32
// CHECK-NEXT:    %[[S1:\w+]] = arith.addf %[[ZERO]], %[[A]] : f32
// CHECK-NEXT:    %[[I5:\w+]] = arith.constant 5 : index
// CHECK-NEXT:    %[[B:\w+]] = loop.load %[[X]][%[[I5]]] : memref<8xf32> -> f32
// CHECK-NEXT:    %[[S2:\w+]] = arith.addf %[[S1]], %[[B]] : f32
// CHECK-NEXT:    loop.store %[[S2]], %[[OUT]][] : f32, memref<f32>
// CHECK-NEXT:    func.return
func.func @carried(%x: memref<8xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %sum = loop.for %i = 2 to 8 step 3 iter_args(%acc = %zero) -> (f32) {
    %v = loop.load %x[%i] : memref<8xf32> -> f32
    %s = arith.addf %acc, %v : f32
    loop.yield %s : f32
  } {unroll}
  loop.store %sum, %out[] : f32, memref<f32>
  func.return
}

// Nested unrolls compose, inner first: 2 x 2 copies. Unmarked loops and other hints stay.
// CHECK-LABEL: func.func @nested(
// CHECK-SAME:    %[[Y:\w+]]: memref<2x2xf32>, %[[Z:\w+]]: memref<4xf32>)
// CHECK-NEXT:    %[[ONE:\w+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[I0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[J0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.store %[[ONE]], %[[Y]][%[[I0]], %[[J0]]] : f32, memref<2x2xf32>
// CHECK-NEXT:    %[[J1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    loop.store %[[ONE]], %[[Y]][%[[I0]], %[[J1]]] : f32, memref<2x2xf32>
// CHECK-NEXT:    %[[I1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[J2:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.store %[[ONE]], %[[Y]][%[[I1]], %[[J2]]] : f32, memref<2x2xf32>
// CHECK-NEXT:    %[[J3:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    loop.store %[[ONE]], %[[Y]][%[[I1]], %[[J3]]] : f32, memref<2x2xf32>
// CHECK-NEXT:    loop.for %[[K:\w+]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.store %[[ONE]], %[[Z]][%[[K]]] : f32, memref<4xf32>
// CHECK-NEXT:    } {parallel}
// CHECK-NEXT:    func.return
// SMALL-LABEL: func.func @nested(
// SMALL-NEXT:    arith.constant 1.000000e+00 : f32
// SMALL-NEXT:    arith.constant 0 : index
// SMALL-NEXT:    arith.constant 0 : index
func.func @nested(%y: memref<2x2xf32>, %z: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 2 step 1 {
    loop.for %j = 0 to 2 step 1 {
      loop.store %one, %y[%i, %j] : f32, memref<2x2xf32>
    } {unroll}
  } {unroll}
  loop.for %k = 0 to 4 step 1 {
    loop.store %one, %z[%k] : f32, memref<4xf32>
  } {parallel}
  func.return
}

// Negative: more iterations than max-trip-count (64 by default): the loop stays and loses
// the hint; an inner unroll inside it still happens. A loop also marked vectorize is left
// to loop-vectorize.
// CHECK-LABEL: func.func @too_long(
// CHECK-SAME:    %[[Y:\w+]]: memref<65x2xf32>)
// CHECK-NEXT:    %[[ONE:\w+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    loop.for %[[I:\w+]] = 0 to 65 step 1 {
// CHECK-NEXT:      %[[J0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      loop.store %[[ONE]], %[[Y]][%[[I]], %[[J0]]] : f32, memref<65x2xf32>
// CHECK-NEXT:      %[[J1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      loop.store %[[ONE]], %[[Y]][%[[I]], %[[J1]]] : f32, memref<65x2xf32>
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    loop.for %[[K:\w+]] = 0 to 2 step 1 {
// CHECK-NEXT:      loop.store %[[ONE]], %[[Y]][%[[K]], %[[K]]] : f32, memref<65x2xf32>
// CHECK-NEXT:    } {unroll, vectorize}
// CHECK-NEXT:    func.return
func.func @too_long(%y: memref<65x2xf32>) {
  %one = arith.constant 1.0 : f32
  loop.for %i = 0 to 65 step 1 {
    loop.for %j = 0 to 2 step 1 {
      loop.store %one, %y[%i, %j] : f32, memref<65x2xf32>
    } {unroll}
  } {unroll}
  loop.for %k = 0 to 2 step 1 {
    loop.store %one, %y[%k, %k] : f32, memref<65x2xf32>
  } {unroll, vectorize}
  func.return
}

// Index arithmetic on the induction variable folds in each copy, inside nested loops too:
// a select on it keeps the operand it chooses, a comparison and a division become
// constants, and what the copy no longer uses is gone (a Winograd position's table lookup).
// CHECK-LABEL: func.func @folded(
// CHECK-SAME:    %[[X:\w+]]: memref<4x8xf32>, %[[Y:\w+]]: memref<2x8xf32>)
// CHECK-NEXT:    %[[HALF:\w+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    %[[MINUS:\w+]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:    %[[I0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    loop.for %[[J:\w+]] = 0 to 8 step 1 {
// CHECK-NEXT:      %[[ROW0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[A:\w+]] = loop.load %[[X]][%[[ROW0]], %[[J]]] : memref<4x8xf32> -> f32
// CHECK-NEXT:      %[[S:\w+]] = arith.mulf %[[A]], %[[HALF]] : f32
// CHECK-NEXT:      loop.store %[[S]], %[[Y]][%[[I0]], %[[J]]] : f32, memref<2x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[I1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    loop.for %[[K:\w+]] = 0 to 8 step 1 {
// CHECK-NEXT:      %[[ROW2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[B:\w+]] = loop.load %[[X]][%[[ROW2]], %[[K]]] : memref<4x8xf32> -> f32
// CHECK-NEXT:      %[[T:\w+]] = arith.mulf %[[B]], %[[MINUS]] : f32
// CHECK-NEXT:      loop.store %[[T]], %[[Y]][%[[I1]], %[[K]]] : f32, memref<2x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @folded(%x: memref<4x8xf32>, %y: memref<2x8xf32>) {
  %half = arith.constant 0.5 : f32
  %minus = arith.constant -1.0 : f32
  loop.for %i = 0 to 2 step 1 {
    loop.for %j = 0 to 8 step 1 {
      %two = arith.constant 2 : index
      %row = arith.muli %i, %two : index
      %zero = arith.constant 0 : index
      %first = arith.cmpi eq, %i, %zero : index
      %scale = arith.select %first, %half, %minus : f32
      %a = loop.load %x[%row, %j] : memref<4x8xf32> -> f32
      %s = arith.mulf %a, %scale : f32
      loop.store %s, %y[%i, %j] : f32, memref<2x8xf32>
    }
  } {unroll}
  func.return
}
