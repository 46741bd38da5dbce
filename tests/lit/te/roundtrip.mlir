// Every te op and schedule attribute in its custom form, printed back exactly: te.compute
// with and without reductions (sum, prod, max, min; one and several reduction axes), schedules
// using every primitive, te.read of rank-0..4 tensors, te.yield, te.kernel functions.
// The three runs must agree: parse -> print, print -> parse -> print, and generic form in ->
// custom form out (so the generic printer and parser lose nothing either).
//
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s
//
// Names inside a line are captured as \w+ (a greedy .* would run on to a later "%").

// CHECK: builtin.module {

// An elementwise compute: one index argument per result dim, index arithmetic on `index`,
// scalar math on the element type; te.kernel is a unit attribute of the function.
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {te.kernel} {
func.func @elementwise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {te.kernel} {
  // CHECK-NEXT: %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [4, 8] : tensor<4x8xf32> {
  // CHECK-NEXT:   %[[C1:\w+]] = arith.constant 1 : index
  // CHECK-NEXT:   %[[J1:\w+]] = arith.addi %[[J]], %[[C1]] : index
  // CHECK-NEXT:   %[[C7:\w+]] = arith.constant 7 : index
  // CHECK-NEXT:   %[[JC:\w+]] = arith.minsi %[[J1]], %[[C7]] : index
  // CHECK-NEXT:   %[[A:\w+]] = te.read %[[X]][%[[I]], %[[J]]] : tensor<4x8xf32>
  // CHECK-NEXT:   %[[B:\w+]] = te.read %[[X]][%[[I]], %[[JC]]] : tensor<4x8xf32>
  // CHECK-NEXT:   %[[S:\w+]] = arith.addf %[[A]], %[[B]] : f32
  // CHECK-NEXT:   %[[Z:\w+]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT:   %[[M:\w+]] = arith.maximumf %[[S]], %[[Z]] : f32
  // CHECK-NEXT:   te.yield %[[M]] : f32
  // CHECK-NEXT: }
  // CHECK-NEXT: func.return %[[R]] : tensor<4x8xf32>
  // CHECK-NEXT: }
  %r = te.compute (%i, %j) in [4, 8] : tensor<4x8xf32> {
    %c1 = arith.constant 1 : index
    %j1 = arith.addi %j, %c1 : index
    %c7 = arith.constant 7 : index
    %jc = arith.minsi %j1, %c7 : index
    %a = te.read %x[%i, %j] : tensor<4x8xf32>
    %b = te.read %x[%i, %jc] : tensor<4x8xf32>
    %s = arith.addf %a, %b : f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %s, %z : f32
    te.yield %m : f32
  }
  func.return %r : tensor<4x8xf32>
}

// Reductions: the reduction axes' block arguments follow the result's; the body yields only
// the reduced term. sum (matmul), max and min over two axes, a compute reading another.
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:    %[[A:\w+]]: tensor<4x8xf32>, %[[B:\w+]]: tensor<8x16xf32>, %[[Q:\w+]]: tensor<2x3x5xf32>)
// CHECK-SAME:    -> (tensor<4x16xf32>, tensor<2xf32>, tensor<5xf32>, tensor<4xf32>) attributes {te.kernel} {
func.func @reductions(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>, %q: tensor<2x3x5xf32>)
    -> (tensor<4x16xf32>, tensor<2xf32>, tensor<5xf32>, tensor<4xf32>) attributes {te.kernel} {
  // CHECK-NEXT: %[[MM:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [4, 16] sum (%[[K:\w+]]) in [8] : tensor<4x16xf32> {
  // CHECK-NEXT:   %[[VA:\w+]] = te.read %[[A]][%[[I]], %[[K]]] : tensor<4x8xf32>
  // CHECK-NEXT:   %[[VB:\w+]] = te.read %[[B]][%[[K]], %[[J]]] : tensor<8x16xf32>
  // CHECK-NEXT:   %[[P:\w+]] = arith.mulf %[[VA]], %[[VB]] : f32
  // CHECK-NEXT:   te.yield %[[P]] : f32
  // CHECK-NEXT: }
  %mm = te.compute (%i, %j) in [4, 16] sum (%k) in [8] : tensor<4x16xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    %b = te.read %B[%k, %j] : tensor<8x16xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  // CHECK-NEXT: %[[MX:\w+]] = te.compute (%[[N:\w+]]) in [2] max (%[[R0:\w+]], %[[R1:\w+]]) in [3, 5] : tensor<2xf32> {
  // CHECK-NEXT:   %[[V:\w+]] = te.read %[[Q]][%[[N]], %[[R0]], %[[R1]]] : tensor<2x3x5xf32>
  // CHECK-NEXT:   te.yield %[[V]] : f32
  // CHECK-NEXT: }
  %mx = te.compute (%n) in [2] max (%r0, %r1) in [3, 5] : tensor<2xf32> {
    %v = te.read %q[%n, %r0, %r1] : tensor<2x3x5xf32>
    te.yield %v : f32
  }
  // CHECK-NEXT: %[[MN:\w+]] = te.compute (%[[W:\w+]]) in [5] min (%[[S0:\w+]], %[[S1:\w+]]) in [2, 3] : tensor<5xf32> {
  // CHECK-NEXT:   %[[U:\w+]] = te.read %[[Q]][%[[S0]], %[[S1]], %[[W]]] : tensor<2x3x5xf32>
  // CHECK-NEXT:   te.yield %[[U]] : f32
  // CHECK-NEXT: }
  %mn = te.compute (%w) in [5] min (%s0, %s1) in [2, 3] : tensor<5xf32> {
    %u = te.read %q[%s0, %s1, %w] : tensor<2x3x5xf32>
    te.yield %u : f32
  }
  // CHECK-NEXT: %[[ROW:\w+]] = te.compute (%[[RI:\w+]]) in [4] sum (%[[RJ:\w+]]) in [16] : tensor<4xf32> {
  // CHECK-NEXT:   %[[E:\w+]] = te.read %[[MM]][%[[RI]], %[[RJ]]] : tensor<4x16xf32>
  // CHECK-NEXT:   te.yield %[[E]] : f32
  // CHECK-NEXT: }
  %row = te.compute (%ri) in [4] sum (%rj) in [16] : tensor<4xf32> {
    %e = te.read %mm[%ri, %rj] : tensor<4x16xf32>
    te.yield %e : f32
  }
  // CHECK-NEXT: func.return %[[MM]], %[[MX]], %[[MN]], %[[ROW]] : tensor<4x16xf32>, tensor<2xf32>, tensor<5xf32>, tensor<4xf32>
  // CHECK-NEXT: }
  func.return %mm, %mx, %mn, %row : tensor<4x16xf32>, tensor<2xf32>, tensor<5xf32>, tensor<4xf32>
}

// A product (ReduceProd's kind, starting from 1), here of integers.
// CHECK-LABEL: func.func @product(
// CHECK-SAME:    %[[P:\w+]]: tensor<3x7xi32>) -> tensor<3xi32> attributes {te.kernel} {
// CHECK-NEXT: %[[PR:\w+]] = te.compute (%[[PI:\w+]]) in [3] prod (%[[PK:\w+]]) in [7] : tensor<3xi32> {
// CHECK-NEXT:   %[[PV:\w+]] = te.read %[[P]][%[[PI]], %[[PK]]] : tensor<3x7xi32>
// CHECK-NEXT:   te.yield %[[PV]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: func.return %[[PR]] : tensor<3xi32>
func.func @product(%p: tensor<3x7xi32>) -> tensor<3xi32> attributes {te.kernel} {
  %pr = te.compute (%i) in [3] prod (%k) in [7] : tensor<3xi32> {
    %v = te.read %p[%i, %k] : tensor<3x7xi32>
    te.yield %v : i32
  }
  func.return %pr : tensor<3xi32>
}

// Schedules: the discardable `schedule` attribute, a list of primitives in application
// order; it goes after the extents (after the reduction's, when there is one). Other
// discardable attributes sit beside it, in the order written.
// CHECK-LABEL: func.func @schedules(
// CHECK-SAME:    %[[A:\w+]]: tensor<64x32xf32>, %[[B:\w+]]: tensor<32x64xf32>)
func.func @schedules(%A: tensor<64x32xf32>, %B: tensor<32x64xf32>) -> (tensor<64x64xf32>, tensor<64x32xf32>) attributes {te.kernel} {
  // CHECK-NEXT: %[[MM:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [64, 64] sum (%[[K:\w+]]) in [32] {schedule = [#te.split<"i1", 16>, #te.split<"r0", 4>, #te.reorder<["i0", "r0.o", "i1.o", "r0.i", "i1.i"]>, #te.vectorize<"i1.i">, #te.unroll<"r0.i">, #te.parallel<"i0">]} : tensor<64x64xf32> {
  // CHECK-NEXT:   %[[VA:\w+]] = te.read %[[A]][%[[I]], %[[K]]] : tensor<64x32xf32>
  // CHECK-NEXT:   %[[VB:\w+]] = te.read %[[B]][%[[K]], %[[J]]] : tensor<32x64xf32>
  // CHECK-NEXT:   %[[P:\w+]] = arith.mulf %[[VA]], %[[VB]] : f32
  // CHECK-NEXT:   te.yield %[[P]] : f32
  // CHECK-NEXT: }
  %mm = te.compute (%i, %j) in [64, 64] sum (%k) in [32] {schedule = [#te.split<"i1", 16>, #te.split<"r0", 4>, #te.reorder<["i0", "r0.o", "i1.o", "r0.i", "i1.i"]>, #te.vectorize<"i1.i">, #te.unroll<"r0.i">, #te.parallel<"i0">]} : tensor<64x64xf32> {
    %a = te.read %A[%i, %k] : tensor<64x32xf32>
    %b = te.read %B[%k, %j] : tensor<32x64xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  // CHECK-NEXT: %[[EW:\w+]] = te.compute (%[[I2:\w+]], %[[J2:\w+]]) in [64, 32] {schedule = [#te.parallel<"i0">, #te.vectorize<"i1">], tag = "ew"} : tensor<64x32xf32> {
  // CHECK-NEXT:   %[[V:\w+]] = te.read %[[A]][%[[I2]], %[[J2]]] : tensor<64x32xf32>
  // CHECK-NEXT:   %[[N:\w+]] = arith.negf %[[V]] : f32
  // CHECK-NEXT:   te.yield %[[N]] : f32
  // CHECK-NEXT: }
  %ew = te.compute (%i, %j) in [64, 32] {schedule = [#te.parallel<"i0">, #te.vectorize<"i1">], tag = "ew"} : tensor<64x32xf32> {
    %v = te.read %A[%i, %j] : tensor<64x32xf32>
    %n = arith.negf %v : f32
    te.yield %n : f32
  }
  // A compute may carry a name (a property, written as a string before the index
  // arguments) by which #te.compute_at refers to its producer; #te.inline takes no parameter;
  // #te.prefetch names the loop to prefetch the next iteration of and the one to spread over.
  // CHECK-NEXT: %[[PROD:\w+]] = te.compute "prod" (%[[I3:\w+]], %[[J3:\w+]]) in [64, 32] sum (%[[K3:\w+]]) in [64] {schedule = [#te.split<"i1", 16>, #te.prefetch<"i1.o", "i0">]} : tensor<64x32xf32> {
  // CHECK-NEXT:   %[[VM:\w+]] = te.read %[[MM]][%[[I3]], %[[K3]]] : tensor<64x64xf32>
  // CHECK-NEXT:   %[[VB2:\w+]] = te.read %[[B]][%[[J3]], %[[K3]]] : tensor<32x64xf32>
  // CHECK-NEXT:   %[[P2:\w+]] = arith.mulf %[[VM]], %[[VB2]] : f32
  // CHECK-NEXT:   te.yield %[[P2]] : f32
  // CHECK-NEXT: }
  %prod = te.compute "prod" (%i, %j) in [64, 32] sum (%k) in [64] {schedule = [#te.split<"i1", 16>, #te.prefetch<"i1.o", "i0">]} : tensor<64x32xf32> {
    %m = te.read %mm[%i, %k] : tensor<64x64xf32>
    %b = te.read %B[%j, %k] : tensor<32x64xf32>
    %p = arith.mulf %m, %b : f32
    te.yield %p : f32
  }
  // CHECK-NEXT: %[[SHIFT:\w+]] = te.compute "shift" (%[[I4:\w+]], %[[J4:\w+]]) in [64, 32] {schedule = [#te.inline]} : tensor<64x32xf32> {
  // CHECK-NEXT:   %[[VE:\w+]] = te.read %[[EW]][%[[I4]], %[[J4]]] : tensor<64x32xf32>
  // CHECK-NEXT:   %[[ONE:\w+]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT:   %[[SH:\w+]] = arith.addf %[[VE]], %[[ONE]] : f32
  // CHECK-NEXT:   te.yield %[[SH]] : f32
  // CHECK-NEXT: }
  %shift = te.compute "shift" (%i, %j) in [64, 32] {schedule = [#te.inline]} : tensor<64x32xf32> {
    %e = te.read %ew[%i, %j] : tensor<64x32xf32>
    %one = arith.constant 1.0 : f32
    %sh = arith.addf %e, %one : f32
    te.yield %sh : f32
  }
  // CHECK-NEXT: %[[EPI:\w+]] = te.compute (%[[I5:\w+]], %[[J5:\w+]]) in [64, 32] {schedule = [#te.compute_at<"prod", "i0">, #te.vectorize<"i1">]} : tensor<64x32xf32> {
  // CHECK-NEXT:   %[[VP:\w+]] = te.read %[[PROD]][%[[I5]], %[[J5]]] : tensor<64x32xf32>
  // CHECK-NEXT:   %[[VS:\w+]] = te.read %[[SHIFT]][%[[I5]], %[[J5]]] : tensor<64x32xf32>
  // CHECK-NEXT:   %[[SUM:\w+]] = arith.addf %[[VP]], %[[VS]] : f32
  // CHECK-NEXT:   te.yield %[[SUM]] : f32
  // CHECK-NEXT: }
  %epi = te.compute (%i, %j) in [64, 32] {schedule = [#te.compute_at<"prod", "i0">, #te.vectorize<"i1">]} : tensor<64x32xf32> {
    %p = te.read %prod[%i, %j] : tensor<64x32xf32>
    %s = te.read %shift[%i, %j] : tensor<64x32xf32>
    %sum = arith.addf %p, %s : f32
    te.yield %sum : f32
  }
  // CHECK-NEXT: func.return %[[MM]], %[[EPI]] : tensor<64x64xf32>, tensor<64x32xf32>
  func.return %mm, %epi : tensor<64x64xf32>, tensor<64x32xf32>
}

// te.read of tensors of rank 0 to 4 and of several element types (the result type is the
// element type, implied by the tensor's type); te.read and te.yield keep their attributes.
// A rank-0 compute has no index arguments: `() in []`.
// CHECK-LABEL: func.func @reads(
// CHECK-SAME:    %[[S:\w+]]: tensor<f32>, %[[V:\w+]]: tensor<8xi64>, %[[M:\w+]]: tensor<2x8xi1>, %[[T:\w+]]: tensor<2x3x8xf32>, %[[Q:\w+]]: tensor<1x2x3x8xf32>)
// CHECK-SAME:    -> (tensor<2x3x8xf32>, tensor<f32>, tensor<8xi64>, tensor<2x8xi1>) {
func.func @reads(%s: tensor<f32>, %v: tensor<8xi64>, %m: tensor<2x8xi1>, %t: tensor<2x3x8xf32>, %q: tensor<1x2x3x8xf32>)
    -> (tensor<2x3x8xf32>, tensor<f32>, tensor<8xi64>, tensor<2x8xi1>) {
  // CHECK-NEXT: %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]], %[[K:\w+]]) in [2, 3, 8] : tensor<2x3x8xf32> {
  // CHECK-NEXT:   %[[ZERO:\w+]] = arith.constant 0 : index
  // CHECK-NEXT:   %[[R0:\w+]] = te.read %[[S]][] : tensor<f32>
  // CHECK-NEXT:   %[[R1:\w+]] = te.read %[[V]][%[[K]]] : tensor<8xi64>
  // CHECK-NEXT:   %[[R2:\w+]] = te.read %[[M]][%[[I]], %[[K]]] : tensor<2x8xi1>
  // CHECK-NEXT:   %[[R3:\w+]] = te.read %[[T]][%[[I]], %[[J]], %[[K]]] {hint = "rank3"} : tensor<2x3x8xf32>
  // CHECK-NEXT:   %[[R4:\w+]] = te.read %[[Q]][%[[ZERO]], %[[I]], %[[J]], %[[K]]] : tensor<1x2x3x8xf32>
  // CHECK-NEXT:   %[[F:\w+]] = arith.sitofp %[[R1]] : i64 to f32
  // CHECK-NEXT:   %[[SUM:\w+]] = arith.addf %[[R3]], %[[R4]] : f32
  // CHECK-NEXT:   %[[SCALED:\w+]] = arith.mulf %[[SUM]], %[[R0]] : f32
  // CHECK-NEXT:   %[[SEL:\w+]] = arith.select %[[R2]], %[[SCALED]], %[[F]] : f32
  // CHECK-NEXT:   te.yield %[[SEL]] {note = "last"} : f32
  // CHECK-NEXT: }
  %r = te.compute (%i, %j, %k) in [2, 3, 8] : tensor<2x3x8xf32> {
    %zero = arith.constant 0 : index
    %r0 = te.read %s[] : tensor<f32>
    %r1 = te.read %v[%k] : tensor<8xi64>
    %r2 = te.read %m[%i, %k] : tensor<2x8xi1>
    %r3 = te.read %t[%i, %j, %k] {hint = "rank3"} : tensor<2x3x8xf32>
    %r4 = te.read %q[%zero, %i, %j, %k] : tensor<1x2x3x8xf32>
    %f = arith.sitofp %r1 : i64 to f32
    %sum = arith.addf %r3, %r4 : f32
    %scaled = arith.mulf %sum, %r0 : f32
    %sel = arith.select %r2, %scaled, %f : f32
    te.yield %sel {note = "last"} : f32
  }
  // CHECK-NEXT: %[[SC:\w+]] = te.compute () in [] : tensor<f32> {
  // CHECK-NEXT:   %[[X:\w+]] = te.read %[[S]][] : tensor<f32>
  // CHECK-NEXT:   te.yield %[[X]] : f32
  // CHECK-NEXT: }
  %sc = te.compute () in [] : tensor<f32> {
    %x = te.read %s[] : tensor<f32>
    te.yield %x : f32
  }
  // Integer and boolean results: te.yield carries the element type.
  // CHECK-NEXT: %[[IV:\w+]] = te.compute (%[[L:\w+]]) in [8] : tensor<8xi64> {
  // CHECK-NEXT:   %[[Y:\w+]] = te.read %[[V]][%[[L]]] : tensor<8xi64>
  // CHECK-NEXT:   te.yield %[[Y]] : i64
  // CHECK-NEXT: }
  %iv = te.compute (%l) in [8] : tensor<8xi64> {
    %y = te.read %v[%l] : tensor<8xi64>
    te.yield %y : i64
  }
  // CHECK-NEXT: %[[BV:\w+]] = te.compute (%[[BI:\w+]], %[[BJ:\w+]]) in [2, 8] : tensor<2x8xi1> {
  // CHECK-NEXT:   %[[BM:\w+]] = te.read %[[M]][%[[BI]], %[[BJ]]] : tensor<2x8xi1>
  // CHECK-NEXT:   %[[TRUE:\w+]] = arith.constant true
  // CHECK-NEXT:   %[[NOT:\w+]] = arith.xori %[[BM]], %[[TRUE]] : i1
  // CHECK-NEXT:   te.yield %[[NOT]] : i1
  // CHECK-NEXT: }
  %bv = te.compute (%bi, %bj) in [2, 8] : tensor<2x8xi1> {
    %bm = te.read %m[%bi, %bj] : tensor<2x8xi1>
    %true = arith.constant true
    %not = arith.xori %bm, %true : i1
    te.yield %not : i1
  }
  // CHECK-NEXT: func.return %[[R]], %[[SC]], %[[IV]], %[[BV]] : tensor<2x3x8xf32>, tensor<f32>, tensor<8xi64>, tensor<2x8xi1>
  // CHECK-NEXT: }
  func.return %r, %sc, %iv, %bv : tensor<2x3x8xf32>, tensor<f32>, tensor<8xi64>, tensor<2x8xi1>
}

// CHECK-NEXT: }
